public import MediaCore

/// A camera-like source of test pictures: 75% colour bars scrolling to the left by ``scrollStep``
/// pixels per frame, with the frame number drawn in large digits on a dark box near the top-left
/// corner, so that a dropped, repeated or reordered frame shows after encoding and decoding.
///
/// ```swift
/// var camera = try TestPatternGenerator(width: 1280, height: 720, frameRate: FrameRate(30000, 1001),
///                                       length: .duration(MediaTime(value: 10, timescale: 1)))
/// while let frame = try camera.next() { try encoder.process(frame, into: mux) }   // 300 frames
/// ```
///
/// The picture, for frame `n`:
/// - the seven 75% bars of SMPTE EG 1 / ITU-R BT.801 (white, yellow, cyan, green, magenta, red, blue,
///   RGB components 0 or 191), each `width / 7` wide, shifted left by `n × scrollStep` pixels and
///   wrapping around;
/// - a black box at (``numberBox``), holding `n` in ``digitCount`` decimal digits (leading zeros;
///   beyond, the last digits) drawn white in a 5×7 cell font, each cell `max(1, min(width, height) / 48)`
///   pixels square.
///
/// The picture is drawn in RGB and, for Y′CbCr formats, converted with BT.601 limited-range integer
/// math (black is Y 16, white Y 235, neutral chroma 128); a chroma sample is the rounded mean of the
/// pixels it covers horizontally. Every byte depends only on the settings and the frame index: the same
/// settings give the same bytes.
///
/// Each frame is one ``/MediaCore/MediaSample`` with tightly packed planes in ``/MediaCore/PixelFormat``
/// order, pts `frameRate.time(ofFrame: n)`, decode time = pts, one frame's duration and the keyframe
/// flag.
public struct TestPatternGenerator: MediaSource, Sendable {
    /// How many frames the generator produces; a ``GeneratorLength/duration(_:)-enum.case`` is the frames whose
    /// start lies before its end, i.e. the duration in frames rounded up.
    public typealias Length = GeneratorLength

    /// A rectangle of pixels.
    public struct Rectangle: Sendable, Hashable {
        /// The left column.
        public var x: Int
        /// The top row.
        public var y: Int
        /// Columns.
        public var width: Int
        /// Rows.
        public var height: Int
    }

    /// The format of every frame: raw, tightly packed, with the frame rate.
    public let format: VideoFormat
    /// The number of frames, or `nil` for ``GeneratorLength/unlimited``.
    public let totalFrames: Int64?
    /// How many pixels the bars move left from one frame to the next.
    public let scrollStep: Int
    /// The dark box holding the frame number (within the picture, in luma pixels).
    public let numberBox: Rectangle
    /// How many digits of the frame number are drawn: enough for the last frame (6 when unlimited).
    public let digitCount: Int
    /// Frames produced so far: the index of the next frame.
    public private(set) var framesGenerated: Int64 = 0

    private let pixelFormat: PixelFormat
    private let frameRate: FrameRate
    /// The side of one font cell in pixels.
    private let cell: Int

    /// A short name for errors: `TestPatternGenerator`.
    public var name: String { "TestPatternGenerator" }

    /// A generator of `width`×`height` frames at `frameRate` in `pixelFormat`.
    ///
    /// - Parameters:
    ///   - width: 16...8192 pixels, even or odd.
    ///   - height: 16...8192 pixels, even or odd.
    ///   - frameRate: frames per second; both terms positive.
    ///   - pixelFormat: any ``/MediaCore/PixelFormat``; yuv420p by default.
    ///   - length: how many frames.
    ///   - scrollStep: pixels the bars move left per frame, 0 (still) to `width`; 4 by default.
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` naming the value for a size, rate, length or
    ///   step out of range.
    public init(
        width: Int, height: Int, frameRate: FrameRate = FrameRate(30), pixelFormat: PixelFormat = .yuv420p,
        length: Length, scrollStep: Int = 4
    ) throws(MediaError) {
        let limit = RawFrameInput.maximumDimension
        guard (16...limit).contains(width), (16...limit).contains(height) else {
            throw Self.invalid("size \(width)x\(height) is outside 16...\(limit) in either direction")
        }
        guard frameRate.isValid else { throw Self.invalid("frame rate \(frameRate) is not positive") }
        guard (0...width).contains(scrollStep) else {
            throw Self.invalid("scroll step of \(count: scrollStep, "pixel") is outside 0...\(width)")
        }
        switch length {
        case .frames(let frames):
            guard frames >= 0 else { throw Self.invalid("length of \(count: frames, "frame") is negative") }
            totalFrames = frames
        case .duration(let duration):
            guard duration.isNumeric else { throw Self.invalid("duration \(duration) is not a finite time") }
            guard duration.value >= 0 else { throw Self.invalid("duration \(duration) is negative") }
            // frames = ceil(duration × numerator / denominator), exactly.
            let ticks = Int128(duration.value) * Int128(frameRate.numerator)
            let per = Int128(duration.timescale) * Int128(frameRate.denominator)
            guard let frames = Int64(exactly: (ticks + per - 1) / per) else {
                throw Self.invalid("duration \(duration) is too long in frames at \(frameRate)")
            }
            totalFrames = frames
        case .unlimited:
            totalFrames = nil
        }
        self.pixelFormat = pixelFormat
        self.frameRate = frameRate
        self.scrollStep = scrollStep
        format = .raw(pixelFormat, width: width, height: height, frameRate: frameRate)
        digitCount = totalFrames.map { String(max(0, $0 - 1)).count } ?? 6
        cell = max(1, min(width, height) / 48)
        // Even corner and size, so that the box covers whole chroma samples in every subsampling.
        let x = 2 * cell
        let y = 2 * cell
        let boxWidth = (cell * (6 * digitCount + 2) + 1) & ~1
        let boxHeight = (cell * (DigitFont.rows + 2) + 1) & ~1
        numberBox = Rectangle(x: x, y: y, width: min(boxWidth, width - x), height: min(boxHeight, height - y))
    }

    /// The next frame, or `nil` once ``totalFrames`` have been produced.
    public mutating func next() throws(MediaError) -> MediaSample? {
        if let totalFrames, framesGenerated >= totalFrames { return nil }
        let index = framesGenerated
        framesGenerated += 1
        let pts = frameRate.time(ofFrame: index)
        return MediaSample(
            format: .video(format), planes: render(frame: index),
            timing: SampleTiming(presentationTime: pts, decodeTime: pts, duration: frameRate.frameDuration),
            frameCount: 1, flags: [.keyframe])
    }

    /// The planes of frame `index`.
    func render(frame index: Int64) -> [[UInt8]] {
        guard pixelFormat.bitDepth > 8 else { return render(frame: index, in: pixelFormat) }
        // 10 bits: the 8-bit picture with each component shifted up two bits (`x << 2`, what swscale gives
        // for limited-range video), as 16-bit little-endian words.
        return render(frame: index, in: pixelFormat.eightBitEquivalent).map { plane in
            var words = [UInt8](repeating: 0, count: 2 * plane.count)
            for (index, value) in plane.enumerated() {
                let word = UInt16(value) << 2
                words[2 * index] = UInt8(truncatingIfNeeded: word)
                words[2 * index + 1] = UInt8(truncatingIfNeeded: word >> 8)
            }
            return words
        }
    }

    /// The planes of frame `index` in the 8-bit `pixelFormat`.
    private func render(frame index: Int64, in pixelFormat: PixelFormat) -> [[UInt8]] {
        let width = format.width
        let offset = Int((Int128(index) * Int128(scrollStep)) % Int128(width))
        // The bar under each column of this frame, computed once per frame.
        var bars = [Int](repeating: 0, count: width)
        for x in 0..<width { bars[x] = ((x + offset) % width) * 7 / width }
        let digits = digitCells(index)
        let box = numberBox

        switch pixelFormat {
        case .rgb24, .bgra:
            let bytesPerPixel = pixelFormat == .rgb24 ? 3 : 4
            let order = pixelFormat == .rgb24 ? [0, 1, 2] : [2, 1, 0]
            var row = [UInt8](repeating: 255, count: width * bytesPerPixel)
            for x in 0..<width {
                let rgb = Self.barRGB[bars[x]]
                for c in 0..<3 { row[x * bytesPerPixel + c] = rgb[order[c]] }
            }
            let black: [UInt8] = bytesPerPixel == 3 ? [0, 0, 0] : [0, 0, 0, 255]
            let white: [UInt8] = bytesPerPixel == 3 ? [255, 255, 255] : [255, 255, 255, 255]
            var plane = Self.plane(repeating: row, rows: format.height)
            Self.fill(&plane, bytesPerRow: row.count, box, pixel: black)
            for rect in digits { Self.fill(&plane, bytesPerRow: row.count, rect, pixel: white) }
            return [plane]
        case .yuv420p, .yuv422p, .yuv444p, .gray, .nv12, .yuv420p10le, .yuv422p10le, .yuv444p10le:
            var lumaRow = [UInt8](repeating: 0, count: width)
            for x in 0..<width { lumaRow[x] = Self.barYUV[bars[x]].y }
            var luma = Self.plane(repeating: lumaRow, rows: format.height)
            Self.fill(&luma, bytesPerRow: width, box, pixel: [16])
            for rect in digits { Self.fill(&luma, bytesPerRow: width, rect, pixel: [235]) }
            guard pixelFormat != .gray else { return [luma] }

            let horizontal = pixelFormat == .yuv444p ? 1 : 2
            let vertical = pixelFormat == .yuv420p || pixelFormat == .nv12 ? 2 : 1
            let chromaWidth = (width + horizontal - 1) / horizontal
            let chromaRows = format.planeRows[1]
            var cb = [UInt8](repeating: 128, count: chromaWidth)
            var cr = [UInt8](repeating: 128, count: chromaWidth)
            for cx in 0..<chromaWidth {
                let left = Self.barYUV[bars[cx * horizontal]]
                let right = Self.barYUV[bars[min(cx * horizontal + horizontal - 1, width - 1)]]
                cb[cx] = UInt8((Int(left.cb) + Int(right.cb) + 1) / 2)
                cr[cx] = UInt8((Int(left.cr) + Int(right.cr) + 1) / 2)
            }
            let chromaBox = Rectangle(
                x: box.x / horizontal, y: box.y / vertical,
                width: (box.x + box.width + horizontal - 1) / horizontal - box.x / horizontal,
                height: (box.y + box.height + vertical - 1) / vertical - box.y / vertical)
            if pixelFormat == .nv12 {
                var row = [UInt8](repeating: 128, count: 2 * chromaWidth)
                for cx in 0..<chromaWidth {
                    row[2 * cx] = cb[cx]
                    row[2 * cx + 1] = cr[cx]
                }
                var plane = Self.plane(repeating: row, rows: chromaRows)
                Self.fill(&plane, bytesPerRow: row.count, chromaBox, pixel: [128, 128])
                return [luma, plane]
            }
            var cbPlane = Self.plane(repeating: cb, rows: chromaRows)
            var crPlane = Self.plane(repeating: cr, rows: chromaRows)
            Self.fill(&cbPlane, bytesPerRow: chromaWidth, chromaBox, pixel: [128])
            Self.fill(&crPlane, bytesPerRow: chromaWidth, chromaBox, pixel: [128])
            return [luma, cbPlane, crPlane]
        }
    }

    /// The lit font cells of frame `index`'s number, as pixel rectangles inside ``numberBox``.
    private func digitCells(_ index: Int64) -> [Rectangle] {
        var number = index
        var digits = [Int](repeating: 0, count: digitCount)
        for position in stride(from: digitCount - 1, through: 0, by: -1) {
            digits[position] = Int(number % 10)
            number /= 10
        }
        var cells: [Rectangle] = []
        for (position, digit) in digits.enumerated() {
            let left = numberBox.x + cell * (1 + 6 * position)
            for row in 0..<DigitFont.rows {
                for column in 0..<DigitFont.columns where DigitFont.isLit(digit: digit, column: column, row: row) {
                    cells.append(
                        Rectangle(x: left + column * cell, y: numberBox.y + cell * (1 + row), width: cell, height: cell)
                    )
                }
            }
        }
        return cells
    }

    /// `rows` copies of `row`, one after the other.
    private static func plane(repeating row: [UInt8], rows: Int) -> [UInt8] {
        let count = row.count * rows
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            row.withUnsafeBufferPointer { source in
                for r in 0..<rows {
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[r * row.count..<(r + 1) * row.count]).initialize(
                        from: source)
                }
            }
            initialized = count
        }
    }

    /// Sets every pixel of `rect` (in pixels of `pixel.count` bytes, clipped to the plane) to `pixel`.
    private static func fill(_ plane: inout [UInt8], bytesPerRow: Int, _ rect: Rectangle, pixel: [UInt8]) {
        let size = pixel.count
        let columns = bytesPerRow / size
        let rows = plane.count / bytesPerRow
        let x0 = max(0, rect.x)
        let x1 = min(columns, rect.x + rect.width)
        let y0 = max(0, rect.y)
        let y1 = min(rows, rect.y + rect.height)
        guard x0 < x1, y0 < y1 else { return }
        plane.withUnsafeMutableBufferPointer { bytes in
            for y in y0..<y1 {
                var i = y * bytesPerRow + x0 * size
                for _ in x0..<x1 {
                    for c in 0..<size { bytes[i + c] = pixel[c] }
                    i += size
                }
            }
        }
    }

    /// The seven 75% bars in R, G, B.
    private static let barRGB: [[UInt8]] = [
        [191, 191, 191],  // white
        [191, 191, 0],  // yellow
        [0, 191, 191],  // cyan
        [0, 191, 0],  // green
        [191, 0, 191],  // magenta
        [191, 0, 0],  // red
        [0, 0, 191]  // blue
    ]

    /// The bars in BT.601 limited-range Y′CbCr.
    private static let barYUV: [(y: UInt8, cb: UInt8, cr: UInt8)] = barRGB.map {
        ycbcr(r: Int($0[0]), g: Int($0[1]), b: Int($0[2]))
    }

    /// BT.601 limited range from full-range R′G′B′, in 8-bit integer math (the coefficients × 256).
    static func ycbcr(r: Int, g: Int, b: Int) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let y = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16
        let cb = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128
        let cr = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128
        return (UInt8(clamping: y), UInt8(clamping: cb), UInt8(clamping: cr))
    }

    private static func invalid(_ message: String) -> MediaError {
        MediaError(.invalidArgument, "TestPatternGenerator " + message)
    }
}
