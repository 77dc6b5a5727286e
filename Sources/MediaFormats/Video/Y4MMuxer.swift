public import MediaCore

/// Writes raw video frames as a YUV4MPEG2 stream (`.y4m`), as FFmpeg's `yuv4mpegpipe` muxer writes it:
/// the sink for decoded or converted frames (`ffmpeg -i in.h264 out.y4m`, GStreamer's `y4menc`).
///
/// ```swift
/// let muxer = CheckedSink(Y4MMuxer(output: try FileOutput(path: "decoded.y4m")))
/// for frame in frames { try muxer.write(frame) }
/// try muxer.finish()
/// ```
///
/// The header comes from the first frame's format, in FFmpeg's words and order:
/// `YUV4MPEG2 W<width> H<height> F<rate> Ip A<aspect> C<chroma>`. The frame rate is the format's (or,
/// without one, the first frame's duration inverted); the aspect is the format's pixel aspect ratio,
/// `0:0` when unknown; the chroma tag is `420jpeg`, `420mpeg2` or `420paldv` for `yuv420p` by the
/// format's chroma location (centre or unspecified, left, top left: what ``Y4MReader`` reads back),
/// `422`, `444`, or `mono` for `gray`, and `420p10`, `422p10`, `444p10` for the 10-bit formats (which
/// FFmpeg writes only with `-strict -1`: they are its extension), each with FFmpeg's `XYSCSS=` extension. Every frame is then
/// `FRAME` and a newline and its planes, row by row without the stride's padding. So frames that
/// FFmpeg's H.264 decoder gives, written here, are the bytes of `ffmpeg -i in.h264 -f yuv4mpegpipe`.
///
/// The muxer refuses what YUV4MPEG2 cannot carry and writes nothing of that frame: a format that is
/// not raw `yuv420p`, `yuv422p`, `yuv444p`, `gray` or their 10-bit counterparts (``/MediaCore/MediaError/Code/formatMismatch``: put a
/// `VideoConverter` in front), a frame whose size or pixel format differs from the first's (the header
/// is written once; ``/MediaCore/MediaError/Code/formatMismatch``), planes smaller than the format says
/// (``/MediaCore/MediaError/Code/invalidData``), no frame rate at all
/// (``/MediaCore/MediaError/Code/invalidArgument``). After one, ``finish()`` still flushes and closes
/// the output, whose frames so far stay a valid stream.
///
/// The driver keeps the life cycle (no write after an error or after ``finish()``, `finish` once) and
/// stamps the errors with the stage's name and the frame's index; to call the muxer by hand, wrap it in
/// a ``/MediaCore/CheckedSink``, which does the same.
///
/// The muxer is a class because it owns its output (a file descriptor, for a ``/MediaCore/FileOutput``):
/// copies of a value would share the output but not the muxer's state (whether the header is written,
/// the first frame's format, the frame count), so a copy would write a second header into the stream,
/// or one could finish and close the file while the other kept writing. It is not thread-safe; hand it
/// to one task at a time.
public final class Y4MMuxer: MediaSink {
    private static let frameHeader = Array("FRAME\n".utf8)
    private static let supported: Set<PixelFormat> = [
        .yuv420p, .yuv422p, .yuv444p, .gray, .yuv420p10le, .yuv422p10le, .yuv444p10le
    ]

    private let output: any MediaOutput
    /// The first frame's format: every later frame must have its pixel format and size.
    private var streamFormat: VideoFormat?

    /// Frames written so far.
    public private(set) var frameCount: Int64 = 0

    /// A muxer writing to `output`.
    public init(output: any MediaOutput) {
        self.output = output
    }

    /// The name used in errors.
    public var name: String { "Y4MMuxer" }

    /// Writes one frame (after the stream header, for the first).
    ///
    /// - Throws: see the type's documentation; the output's errors.
    public func write(_ sample: MediaSample) throws(MediaError) {
        guard case .video(let format) = sample.format, let pixels = format.pixelFormat, Self.supported.contains(pixels)
        else {
            throw MediaError.formatMismatch(
                stage: name, expected: "raw yuv420p, yuv422p, yuv444p or gray video (put a VideoConverter in front)",
                actual: sample.format)
        }
        try sample.validateVideoLayout(format, index: frameCount)
        if let first = streamFormat {
            guard format.pixelFormat == first.pixelFormat, format.width == first.width, format.height == first.height
            else {
                throw MediaError.formatMismatch(
                    stage: name, expected: "\(first) (the first frame's size and pixel format)", actual: sample.format)
            }
        } else {
            let header = try Self.header(for: format, firstDuration: sample.timing.duration)
            try output.write(header)
            streamFormat = format
        }
        try output.write(Self.frameHeader)
        try writePlanes(of: sample, format: format, pixels: pixels)
        frameCount += 1
    }

    /// Flushes and closes the output; also after ``write(_:)`` failed.
    ///
    /// - Throws: the output's errors.
    public func finish() throws(MediaError) {
        try output.flush()
        try output.close()
    }

    /// The stream header line for frames of `format`.
    static func header(for format: VideoFormat, firstDuration: MediaTime) throws(MediaError) -> [UInt8] {
        let rate: FrameRate
        if let frameRate = format.frameRate,
            let reduced = FrameRate.reduced(Int64(frameRate.numerator), Int64(frameRate.denominator))
        {
            rate = reduced
        } else if firstDuration.isNumeric,
            let inverted = FrameRate.reduced(Int64(firstDuration.timescale), firstDuration.value)
        {
            rate = inverted
        } else {
            throw MediaError(
                .invalidArgument,
                "a YUV4MPEG2 header needs a frame rate: the format has none and the first frame no duration")
        }
        let aspect = format.pixelAspectRatio.map { "\($0.horizontalSpacing):\($0.verticalSpacing)" } ?? "0:0"
        let chroma: String
        switch format.pixelFormat {
        case .yuv420p?:
            switch format.chromaLocation {
            case .left?: chroma = "420mpeg2 XYSCSS=420MPEG2"
            case .topLeft?: chroma = "420paldv XYSCSS=420PALDV"
            default: chroma = "420jpeg XYSCSS=420JPEG"
            }
        case .yuv422p?: chroma = "422 XYSCSS=422"
        case .yuv444p?: chroma = "444 XYSCSS=444"
        case .yuv420p10le?: chroma = "420p10 XYSCSS=420P10"
        case .yuv422p10le?: chroma = "422p10 XYSCSS=422P10"
        case .yuv444p10le?: chroma = "444p10 XYSCSS=444P10"
        default: chroma = "mono"
        }
        let line =
            "YUV4MPEG2 W\(format.width) H\(format.height) F\(rate.numerator):\(rate.denominator) "
            + "Ip A\(aspect) C\(chroma)\n"
        return Array(line.utf8)
    }

    /// The planes' visible rows, without the padding of strides wider than a row.
    private func writePlanes(of sample: MediaSample, format: VideoFormat, pixels: PixelFormat) throws(MediaError) {
        for plane in 0..<pixels.planeCount {
            let size = pixels.planeSize(plane, width: format.width, height: format.height)
            let stride = format.bytesPerRow[plane]
            var failure: MediaError?
            sample.withUnsafeBytes(plane: plane) { raw in
                do throws(MediaError) {
                    if stride == size.bytesPerRow {
                        try output.write(UnsafeRawBufferPointer(rebasing: raw[0..<stride * size.rows]))
                    } else {
                        for row in 0..<size.rows {
                            try output.write(
                                UnsafeRawBufferPointer(rebasing: raw[row * stride..<row * stride + size.bytesPerRow]))
                        }
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
    }
}

@available(*, unavailable)
extension Y4MMuxer: Sendable {}
