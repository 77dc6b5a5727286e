extension MediaSample {
    /// Checks that a PCM sample's buffers hold what its format and ``frameCount`` say: one plane per
    /// channel (planar) or one plane (interleaved), each at least `frameCount × bytes per frame` long.
    ///
    /// Stages that hand buffers to C code call this first, so that a malformed sample is an error,
    /// never an out-of-bounds read. Throws ``MediaError/Code/invalidData`` naming the plane and sizes.
    public func validatePCMLayout() throws(MediaError) {
        guard case .audio(let audio) = format, audio.pcm != nil else { return }
        guard frameCount >= 0 else {
            throw MediaError(.invalidData, "PCM sample has a negative frame count \(frameCount)")
        }
        guard planeCount == audio.planeCount else {
            throw MediaError(
                .invalidData,
                "\(audio) sample has \(count: planeCount, "plane") but its format needs \(audio.planeCount)")
        }
        let (needed, overflow) = frameCount.multipliedReportingOverflow(by: audio.bytesPerFrame)
        guard !overflow else {
            throw MediaError(
                .invalidData,
                "PCM sample says it has \(count: frameCount, "frame"), more than any buffer of \(audio) holds")
        }
        for index in 0..<planeCount where storage.bytes.count(index) < needed {
            throw MediaError(
                .invalidData,
                "PCM plane \(index) holds \(count: storage.bytes.count(index), "byte") but \(count: frameCount, "frame") of \(audio) need \(needed)"
            )
        }
    }
}

extension MediaSample {
    /// Checks that a raw video sample's planes hold what its format says: one plane per
    /// ``PixelFormat`` plane, each at least `bytesPerRow × rows` bytes, each row at least as wide as
    /// the visible pixels, at most 65536 × 65536. Throws ``MediaError/Code/invalidData`` naming the plane and sizes, with
    /// `index` as the error's ``MediaError/sampleIndex``.
    ///
    /// Stages that hand planes to C code, and muxers that write them, call this first, so that a
    /// malformed sample is an error, never an out-of-bounds read.
    public func validateVideoLayout(_ format: VideoFormat, index: Int64) throws(MediaError) {
        guard let pixelFormat = format.pixelFormat else { return }
        // Sizes past 65536 (FFmpeg's own limit is lower) are refused before any arithmetic on them.
        guard (1...65_536).contains(format.width), (1...65_536).contains(format.height) else {
            throw MediaError(
                .invalidData, "raw video frame has a size of \(format.width)x\(format.height)", sampleIndex: index)
        }
        guard planeCount == pixelFormat.planeCount, format.bytesPerRow.count == pixelFormat.planeCount else {
            throw MediaError(
                .invalidData,
                "\(pixelFormat) frame has \(count: planeCount, "plane") and \(format.bytesPerRow.count) strides but the format needs \(pixelFormat.planeCount)",
                sampleIndex: index)
        }
        for plane in 0..<pixelFormat.planeCount {
            let size = pixelFormat.planeSize(plane, width: format.width, height: format.height)
            let stride = format.bytesPerRow[plane]
            guard stride >= size.bytesPerRow else {
                throw MediaError(
                    .invalidData,
                    "plane \(plane) of a \(format) frame has \(count: stride, "byte") per row but needs \(size.bytesPerRow)",
                    sampleIndex: index)
            }
            let (rowsBefore, overflow) = stride.multipliedReportingOverflow(by: size.rows - 1)
            let needed = overflow || rowsBefore > Int.max - size.bytesPerRow ? Int.max : rowsBefore + size.bytesPerRow
            guard storage.bytes.count(plane) >= needed, needed < Int.max else {
                throw MediaError(
                    .invalidData,
                    "plane \(plane) of a \(format) frame holds \(count: storage.bytes.count(plane), "byte") but \(size.rows) rows of \(count: stride, "byte") need \(needed)",
                    sampleIndex: index)
            }
        }
    }
}
