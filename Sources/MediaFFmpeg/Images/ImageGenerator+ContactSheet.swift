public import MediaCore

extension ImageGenerator {
    /// A contact sheet: `columns` × `rows` pictures of the movie in one `rgb24` picture, row by row, each
    /// fitted (display shape kept, never enlarged) and centred in a cell of `cellWidth`×`cellHeight` on
    /// black, as FFmpeg's `tile` filter lays them out.
    ///
    /// - Parameters:
    ///   - columns: pictures in a row, 1 to 64.
    ///   - rows: rows of pictures, 1 to 64.
    ///   - cellWidth: the width of a cell; by default 320 pixels.
    ///   - cellHeight: the height of a cell; by default as high as the video's display shape makes a
    ///     `cellWidth`-wide picture.
    ///   - times: the times of the pictures (at most `columns` × `rows`, from the start of the file), or
    ///     `nil` for `columns` × `rows` times spread evenly over the movie: the middle of each of as many
    ///     equal parts of its ``duration``.
    /// - Returns: a raw `rgb24` picture of `columns × cellWidth` by `rows × cellHeight`, timed at the first
    ///   picture's time. ``tolerance`` applies to each picture; ``scaling`` and ``pixelFormat`` do not.
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a grid or cell that is not positive,
    ///   more times than cells, or no times and no duration; the errors of ``image(at:)``.
    public func contactSheet(
        columns: Int, rows: Int, cellWidth: Int? = nil, cellHeight: Int? = nil, at times: [MediaTime]? = nil
    ) throws(MediaError) -> MediaSample {
        guard (1...64).contains(columns), (1...64).contains(rows) else {
            throw MediaError(.invalidArgument, "a contact sheet of \(columns)x\(rows) is not within 1x1...64x64")
        }
        let count = columns * rows
        let aspect = videoFormat.pixelAspectRatio ?? .square
        let displayWidth = Double(videoFormat.width) * Double(aspect.horizontalSpacing) / Double(aspect.verticalSpacing)
        let width = cellWidth ?? 320
        let height = cellHeight ?? max(2, Int((Double(width) * Double(videoFormat.height) / displayWidth).rounded()))
        guard (1...4096).contains(width), (1...4096).contains(height) else {
            throw MediaError(
                .invalidArgument, "a contact sheet's cell of \(width)x\(height) is not within 1x1...4096x4096")
        }
        let chosen: [MediaTime]
        if let times {
            guard times.count <= count else {
                throw MediaError(
                    .invalidArgument, "\(times.count) pictures do not fit a \(columns)x\(rows) contact sheet")
            }
            chosen = times
        } else {
            guard duration.isNumeric, duration > .zero else {
                throw MediaError(.invalidArgument, "'\(path)' does not say how long it is: give the sheet's times")
            }
            // To the microsecond: duration × (2i + 1) / 2n.
            let total = duration.approximateSeconds * 1_000_000
            chosen = (0..<count).map {
                MediaTime(value: Int64(total * Double(2 * $0 + 1) / Double(2 * count)), timescale: 1_000_000)
            }
        }
        let saved = (scaling, pixelFormat)
        defer { (scaling, pixelFormat) = saved }
        (scaling, pixelFormat) = (.fitting(width: width, height: height), .rgb24)
        let stride = columns * width * 3
        var canvas = [UInt8](repeating: 0, count: stride * rows * height)
        var timing = SampleTiming(presentationTime: .zero, duration: .invalid)
        for (index, time) in chosen.enumerated() {
            let picture = try image(at: time)
            guard case .video(let format) = picture.format else { continue }
            if index == 0 { timing = picture.timing }
            let left = (index % columns) * width + (width - format.width) / 2
            let top = (index / columns) * height + (height - format.height) / 2
            let rowBytes = format.width * 3
            picture.withUnsafeBytes(plane: 0) { source in
                canvas.withUnsafeMutableBytes { destination in
                    guard let from = source.baseAddress, let to = destination.baseAddress else { return }
                    for row in 0..<format.height where (row + 1) * format.bytesPerRow[0] <= source.count {
                        (to + (top + row) * stride + left * 3).copyMemory(
                            from: from + row * format.bytesPerRow[0], byteCount: rowBytes)
                    }
                }
            }
        }
        return MediaSample(
            format: .video(.raw(.rgb24, width: columns * width, height: rows * height)), data: canvas,
            timing: timing, frameCount: 1)
    }
}
