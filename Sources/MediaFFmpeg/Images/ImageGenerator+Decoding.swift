import MediaCore

// How ImageGenerator finds a frame: seeks, decoding on, and seeking further back when a seek lands past
// the frame asked.
extension ImageGenerator {
    /// How far after the last frame taken a time may be for the generator to decode on rather than seek.
    static let decodeOnLimit = MediaTime.seconds(2)

    /// The first frame presented at or after `target` (in the stream's time).
    func exactFrame(at target: MediaTime) throws(MediaError) -> MediaSample {
        let decodesOn =
            decoder != nil && lastTaken.map { target > $0 && target - $0 <= Self.decodeOnLimit } ?? false
        if !decodesOn {
            // Seek to the keyframe before `target`; when the first frame decoded from there is after it,
            // frames presented before that keyframe may be the one asked: seek a second back, then two...
            var back = MediaTime.zero
            while true {
                let seekTime = target - back
                try seek(to: seekTime)
                let first = try nextFrame()
                if let first { pending.insert(first, at: 0) }
                // No frame at all from here (a seek near the end of an input without an index lands
                // after its last keyframe), or one after `target`: further back, unless at the start.
                if first.map({ $0.timing.presentationTime <= target }) == true || seekTime <= start { break }
                back = back == .zero ? .seconds(1) : back * 2
            }
        }
        while let frame = try nextFrame() {
            lastTaken = frame.timing.presentationTime
            if frame.timing.presentationTime >= target { return frame }
        }
        let last = lastTaken.map { "its last frame is at \($0 - start)" } ?? "it has no frame"
        throw MediaError(.invalidArgument, "'\(path)' has no frame at or after \(target - start): \(last)")
    }

    /// The last keyframe presented at or before `target` (in the stream's time), or the first keyframe
    /// when the video starts after it: found among the packets, and decoded alone.
    func keyframe(at target: MediaTime) throws(MediaError) -> MediaSample {
        var back = MediaTime.zero
        var chosen: MediaSample?
        var firstAfter: MediaSample?
        while chosen == nil {
            let seekTime = target - back
            try seek(to: seekTime)
            decoder = nil  // the packets are read here, not decoded: the next exact frame seeks again
            firstAfter = nil
            while let sample = try source.next() {
                if sample.flags.contains(.keyframe) {
                    if sample.timing.presentationTime <= target {
                        chosen = sample
                    } else if firstAfter == nil {
                        firstAfter = sample
                    }
                }
                // Later packets are decoded later, so presented later still.
                if sample.timing.effectiveDecodeTime > target { break }
            }
            if seekTime <= start { break }
            back = back == .zero ? .seconds(1) : back * 2
        }
        guard let keyframe = chosen ?? firstAfter else {
            throw MediaError(.invalidArgument, "'\(path)' has no keyframe to show at \(target - start)")
        }
        let alone = H264Decoder()
        var frame: MediaSample?
        do {
            try alone.process(keyframe) { frame = frame ?? $0 }
            try alone.finish { frame = frame ?? $0 }
        } catch let error as MediaError {
            throw error
        } catch {
            throw MediaError(.decoderFailure, "\(error)")
        }
        guard let frame else {
            throw MediaError(
                .decoderFailure,
                "'\(path)': the keyframe at \(keyframe.timing.presentationTime - start) decodes to no picture")
        }
        return frame
    }

    /// Moves the demuxer to the keyframe at or before `time` (the stream's first, for a time before it)
    /// and starts a new decoder there.
    private func seek(to time: MediaTime) throws(MediaError) {
        do {
            try demuxer.seek(to: time)
        } catch  where time <= start {
            // Before the first index entry (its decode time is before the start): from the very first.
            try demuxer.seek(to: start - .seconds(3600))
        }
        decoder = H264Decoder()
        pending.removeAll()
        lastTaken = nil
        decodedToEnd = false
    }

    /// The next frame in presentation order from the decoder, decoding as needed; `nil` at the end.
    private func nextFrame() throws(MediaError) -> MediaSample? {
        guard let decoder else { return nil }
        do {
            while pending.isEmpty && !decodedToEnd {
                if let sample = try source.next() {
                    try decoder.process(sample) { pending.append($0) }
                } else {
                    try decoder.finish { pending.append($0) }
                    decodedToEnd = true
                }
            }
        } catch let error as MediaError {
            throw error
        } catch {
            throw MediaError(.decoderFailure, "\(error)")
        }
        return pending.isEmpty ? nil : pending.removeFirst()
    }
}
