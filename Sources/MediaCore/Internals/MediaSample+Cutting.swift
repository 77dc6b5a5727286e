/// What ``PrefixSource`` and ``SkippingSource`` need of a sample: its audio frames that play, counted
/// only after checking that they can be counted, and the sample cut at one of them.
extension MediaSample {
    /// The frames of this audio sample that play: its frame count less both trims.
    ///
    /// Throws ``MediaError/Code/invalidData`` when they cannot be counted: trims that are negative or
    /// do not fit in the frame count; PCM whose planes do not hold exactly `frameCount` frames each
    /// (what the limit delivers would then disagree with what it counted); a compressed packet that
    /// declares no frames.
    func playingFrames(of audio: AudioFormat) throws(MediaError) -> Int {
        guard frameCount >= 0, trimAtStart >= 0, trimAtEnd >= 0, trimAtStart <= frameCount - trimAtEnd else {
            throw MediaError(
                .invalidData,
                "\(audio) sample of \(count: frameCount, "frame") has trims \(trimAtStart)/\(trimAtEnd) that do not fit in it"
            )
        }
        guard audio.pcm != nil else {
            guard frameCount > 0 else {
                throw MediaError(
                    .invalidData, "\(audio) packet declares no frame count, so its frames cannot be counted")
            }
            return frameCount - trimAtStart - trimAtEnd
        }
        let (needed, overflow) = frameCount.multipliedReportingOverflow(by: audio.bytesPerFrame)
        guard planeCount == audio.planeCount else {
            throw MediaError(
                .invalidData,
                "\(audio) sample has \(count: planeCount, "plane") but its format needs \(audio.planeCount)")
        }
        for plane in 0..<planeCount where overflow || byteCount(plane: plane) != needed {
            throw MediaError(
                .invalidData,
                "\(audio) sample says it has \(count: frameCount, "frame") but plane \(plane) holds \(count: byteCount(plane: plane), "byte")"
                    + (overflow ? "" : ", not \(needed)"))
        }
        return frameCount - trimAtStart - trimAtEnd
    }

    /// This audio sample ending after its first `count` playing frames (fewer than it has): PCM cut to
    /// them (bytes, frame count, duration); a compressed packet kept whole, marked to drop the rest
    /// (``trimAtEnd``), since a packet cannot be cut.
    func keepingPlayingFrames(_ count: Int, of audio: AudioFormat) throws(MediaError) -> MediaSample {
        guard audio.pcm != nil else {
            var packet = self
            packet.trimAtEnd = frameCount - trimAtStart - count
            return packet
        }
        return try pcmFrames(0..<(trimAtStart + count))
    }

    /// This audio sample without its first `count` playing frames (fewer than it has): PCM cut to the
    /// rest, its times moved on by what was cut; a compressed packet kept whole, marked to drop them
    /// (``trimAtStart``).
    func droppingPlayingFrames(_ count: Int, of audio: AudioFormat) throws(MediaError) -> MediaSample {
        guard audio.pcm != nil else {
            var packet = self
            packet.trimAtStart += count
            return packet
        }
        return try pcmFrames((trimAtStart + count)..<frameCount)
    }

    /// A compressed packet that only prepares a decoder (its pre-roll): all its frames marked to drop.
    var preRoll: MediaSample {
        var packet = self
        packet.trimAtStart = frameCount
        packet.trimAtEnd = 0
        return packet
    }
}

extension AudioFormat {
    /// The frames at this rate that start within `time` of the first: ⌈`time` × rate⌉, or `Int64.max`
    /// when that does not fit (so a limit that large is never reached). Zero for `time` ≤ 0.
    ///
    /// Throws ``MediaError/Code/invalidData`` for a sample rate that cannot time frames (≤ 0, or
    /// beyond a timescale).
    func framesStarting(within time: MediaTime) throws(MediaError) -> Int64 {
        guard sampleRate > 0, let rate = Int32(exactly: sampleRate) else {
            throw MediaError(.invalidData, "\(self) has a sample rate of \(sampleRate), which cannot time its frames")
        }
        guard time > .zero else { return 0 }
        let frames = time.converted(to: rate, rounding: .up)
        return frames.isNumeric ? frames.value : .max
    }

    /// `frames` frames at this rate as a time (the rate is checked by ``framesStarting(within:)`` first).
    func time(ofFrames frames: Int) -> MediaTime {
        MediaTime(value: Int64(frames), timescale: Int32(clamping: sampleRate))
    }
}
