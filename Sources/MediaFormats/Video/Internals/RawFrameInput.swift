import MediaCore

/// Reads tightly packed raw video frames, plane by plane, from a ``ForwardInput``: what ``Y4MReader``
/// and ``RawVideoReader`` share.
enum RawFrameInput {
    /// The planes of one frame of `format` (tightly packed), or `nil` when `allowEnd` is set and the
    /// input ends exactly where the frame would start.
    ///
    /// - Parameters:
    ///   - input: where the bytes come from; its position is the frame's first byte.
    ///   - format: a raw format; its plane sizes say how much to read.
    ///   - index: the frame's index, for errors.
    ///   - structureOffset: the offset named in errors (the frame's header, or its first byte).
    ///   - what: how errors name the frame's container, e.g. `Y4M` or `raw yuv420p`.
    /// - Throws: ``MediaError/Code/truncated`` when the input ends inside the frame, naming the frame
    ///   index, the bytes needed and those that remain; ``MediaError/Code/io`` when reading fails.
    static func readFrame(
        from input: ForwardInput, format: VideoFormat, index: Int64, structureOffset: Int64, what: String,
        allowEnd: Bool
    ) throws(MediaError) -> [[UInt8]]? {
        let sizes = format.planeByteCounts
        let total = sizes.reduce(0, +)
        if let remaining = input.remaining {
            if remaining == 0, allowEnd { return nil }
            guard remaining >= Int64(total) else {
                throw truncated(what, format: format, index: index, needed: total, available: Int(remaining), at: structureOffset)
            }
        }
        var planes: [[UInt8]] = []
        planes.reserveCapacity(sizes.count)
        var got = 0
        for size in sizes {
            let plane = try input.read(upTo: size)
            got += plane.count
            if got == 0, allowEnd { return nil }
            guard plane.count == size else {
                throw truncated(what, format: format, index: index, needed: total, available: got, at: structureOffset)
            }
            planes.append(plane)
        }
        return planes
    }

    private static func truncated(
        _ what: String, format: VideoFormat, index: Int64, needed: Int, available: Int, at offset: Int64
    ) -> MediaError {
        MediaError(
            .truncated,
            "\(what) frame \(index) (\(format.codec) \(format.width)x\(format.height)) needs \(needed) bytes but only \(available) remain",
            byteOffset: offset, sampleIndex: index)
    }

    /// The sample for frame `index` with `planes`: pts from the frame rate, decode time = pts, one frame
    /// duration, a keyframe.
    static func sample(planes: [[UInt8]], format: VideoFormat, rate: FrameRate, index: Int64) -> MediaSample {
        let pts = rate.time(ofFrame: index)
        return MediaSample(
            format: .video(format), planes: planes,
            timing: SampleTiming(presentationTime: pts, decodeTime: pts, duration: rate.frameDuration),
            frameCount: 1, flags: [.keyframe])
    }

    /// The largest width or height the readers and the generator accept.
    static let maximumDimension = 8192
}
