import MediaCore

/// Reads tightly packed raw video frames, plane by plane, from a ``ForwardInput``: what ``Y4MReader``
/// and ``RawVideoReader`` share.
enum RawFrameInput {
    /// The sample of one frame of `format` (tightly packed), or `nil` when `allowEnd` is set and the
    /// input ends exactly where the frame would start. The frame is read straight into buffers from
    /// `recycler`, so a steady stream of frames allocates nothing once the consumer lets go of each.
    /// Its pts comes from `rate`, decode time = pts, one frame duration, a keyframe.
    ///
    /// - Parameters:
    ///   - input: where the bytes come from; its position is the frame's first byte.
    ///   - format: a raw format; its plane sizes say how much to read.
    ///   - index: the frame's index, for errors.
    ///   - structureOffset: the offset named in errors (the frame's header, or its first byte).
    ///   - what: how errors name the frame's container, e.g. `Y4M` or `raw yuv420p`.
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` when the input ends inside the frame, naming the frame
    ///   index, the bytes needed and those that remain; ``/MediaCore/MediaError/Code/io`` when reading fails.
    static func readFrame(
        from input: ForwardInput, format: VideoFormat, rate: FrameRate, index: Int64, structureOffset: Int64,
        what: String, allowEnd: Bool, recycler: inout SampleRecycler
    ) throws(MediaError) -> MediaSample? {
        let sizes = format.planeByteCounts
        let total = sizes.reduce(0, +)
        if let remaining = input.remaining {
            if remaining == 0, allowEnd { return nil }
            guard remaining >= Int64(total) else {
                throw truncated(
                    what, format: format, index: index, needed: total, available: Int(remaining), at: structureOffset)
            }
        }
        var got = 0
        var endedBeforeFrame = false
        let pts = rate.time(ofFrame: index)
        let sample = try recycler.make(
            format: .video(format),
            timing: SampleTiming(presentationTime: pts, decodeTime: pts, duration: rate.frameDuration),
            frameCount: 1, flags: [.keyframe], planeCount: sizes.count
        ) { (plane, bytes) throws(MediaError) in
            guard !endedBeforeFrame else { return }
            let size = sizes[plane]
            bytes.reserveCapacity(size)
            let read = try input.read(upTo: size, appendingTo: &bytes)
            got += read
            if got == 0, allowEnd {
                endedBeforeFrame = true
                return
            }
            guard read == size else {
                throw truncated(what, format: format, index: index, needed: total, available: got, at: structureOffset)
            }
        }
        return endedBeforeFrame ? nil : sample
    }

    /// The error for frame `index` cut short: `needed` bytes, of which `available` are there.
    static func truncated(
        _ what: String, format: VideoFormat, index: Int64, needed: Int, available: Int, at offset: Int64
    ) -> MediaError {
        MediaError(
            .truncated,
            "\(what) frame \(index) (\(format.codec) \(format.width)x\(format.height)) needs \(count: needed, "byte") but only \(available) remain",
            byteOffset: offset, sampleIndex: index)
    }

    /// The largest width or height the readers and the generator accept.
    static let maximumDimension = 8192
}
