internal import CMediaFFmpeg
public import MediaCore

/// Converts raw video frames to another pixel format and, optionally, another size:
/// `VTPixelTransferSession` / `vImage`, or GStreamer's `videoconvert ! videoscale`.
///
/// ```swift
/// let toEncoder = try VideoConverter(to: .yuv420p)                       // bgra capture → yuv420p
/// let thumbnail = try VideoConverter(to: .yuv420p, width: 160, height: 120)
/// ```
///
/// - Input: raw frames of any ``/MediaCore/PixelFormat`` (yuv420p, yuv422p, yuv444p, nv12, bgra, rgb24, gray, and
///   the 10-bit yuv420p10le, yuv422p10le, yuv444p10le), at any stride: the format's
///   ``/MediaCore/VideoFormat/bytesPerRow`` is honoured. The size may change from frame to frame. 10 bits to 8 is
///   swscale's, as the ffmpeg CLI's `-pix_fmt yuv420p` does it (the same bytes: `h264-encoder` is tested against it).
/// - Output: frames of ``pixelFormat`` at the target size (the input's size where none is given),
///   tightly packed; timing, flags and frame rate are the input's, untouched. The chroma location is
///   the input's and the pixel aspect ratio is scaled with the picture so that the display shape stays
///   the same, as FFmpeg's `scale` filter does. A frame already in the output's pixel format and size
///   passes through unconverted.
///
/// The scaler uses bicubic interpolation (`SWS_BICUBIC`), the `ffmpeg` CLI's default, so the output is
/// byte-identical to `ffmpeg -f rawvideo -pix_fmt X -s WxH -i in -pix_fmt Y -sws_flags bicubic`. A frame
/// whose planes are shorter than its format declares throws ``/MediaCore/MediaError/Code/invalidData`` naming the
/// sample index. Backed by libswscale (`sws_getContext` / `sws_scale`).
public final class VideoConverter: MediaStage {
    /// The pixel format produced.
    public let pixelFormat: PixelFormat
    /// The output width, or `nil` for the input's.
    public let width: Int?
    /// The output height, or `nil` for the input's.
    public let height: Int?

    private var session: Session?
    private var index: Int64 = 0

    /// A converter to `pixelFormat` at `width`×`height` (each `nil`: the input's).
    ///
    /// Throws ``/MediaCore/MediaError/Code/invalidArgument`` for a size that is not positive.
    public init(to pixelFormat: PixelFormat, width: Int? = nil, height: Int? = nil) throws(MediaError) {
        for (name, value) in [("width", width), ("height", height)] {
            if let value, !(1...16384).contains(value) {
                throw MediaError(.invalidArgument, "VideoConverter \(name) \(value) is outside 1...16384")
            }
        }
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        FFmpeg.quietLogging()
    }

    /// Converts one frame.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .video(let input) = sample.format, let inputPixels = input.pixelFormat else {
            throw MediaError.formatMismatch(stage: name, expected: "raw video", actual: sample.format)
        }
        defer { index += 1 }
        try sample.validateVideoLayout(input, index: index)
        let output = outputFormat(for: input)
        if output.packed == input.packed, input.bytesPerRow == output.bytesPerRow {
            try emit(sample)
            return
        }
        if session?.matches(inputPixels, input.width, input.height) != true {
            session = try Session(from: inputPixels, width: input.width, height: input.height, to: output)
        }
        guard let session else { return }
        try emit(try session.convert(sample, format: input))
    }

    /// The format of a converted `input` frame: this stage's pixel format and size, the input's rate and
    /// chroma location, and its pixel aspect ratio × (output height × input width) / (output width ×
    /// input height), reduced (FFmpeg's `scale` filter).
    private func outputFormat(for input: VideoFormat) -> VideoFormat {
        let outputWidth = width ?? input.width
        let outputHeight = height ?? input.height
        var aspect = input.pixelAspectRatio
        if let sar = aspect, outputWidth != input.width || outputHeight != input.height {
            // The ratio and the sizes come from the input: a product past 64 bits leaves the aspect unknown.
            let product = { (a: Int, b: Int, c: Int) -> Int64? in
                let (ab, first) = Int64(a).multipliedReportingOverflow(by: Int64(b))
                let (abc, second) = ab.multipliedReportingOverflow(by: Int64(c))
                return first || second ? nil : abc
            }
            if let h = product(sar.horizontalSpacing, outputHeight, input.width),
                let v = product(sar.verticalSpacing, outputWidth, input.height)
            {
                aspect = PixelAspectRatio.reduced(h, v)
            } else {
                aspect = nil
            }
        }
        return VideoFormat(
            codec: .raw(pixelFormat), width: outputWidth, height: outputHeight, frameRate: input.frameRate,
            pixelAspectRatio: aspect, chromaLocation: input.chromaLocation)
    }

    /// Nothing is held back; marks the stage finished.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        session = nil
    }
}

@available(*, unavailable) extension VideoConverter: Sendable {}

extension VideoConverter {
    /// The scaler and frames for one input size and pixel format.
    fileprivate final class Session {
        let source: (format: PixelFormat, width: Int, height: Int)
        let output: VideoFormat
        private let scaler: Scaler
        private let input: Frame
        /// The scaled pictures the emitted samples borrow, reused once none does.
        private var results = BorrowedSlots<PictureSlot>()
        private var recycler = SampleRecycler()

        init(from pixelFormat: PixelFormat, width: Int, height: Int, to output: VideoFormat) throws(MediaError) {
            guard let outputPixels = output.pixelFormat else {
                throw MediaError(.invalidArgument, "VideoConverter output \(output) is not raw video")
            }
            source = (pixelFormat, width, height)
            self.output = output
            scaler = try Scaler(
                from: pixelFormat, width: width, height: height,
                to: outputPixels, width: output.width, height: output.height, flags: SWS_BICUBIC)
            input = try Frame()
            try input.allocateVideo(pixelFormat, width: width, height: height)
        }

        func matches(_ pixelFormat: PixelFormat, _ width: Int, _ height: Int) -> Bool {
            source.format == pixelFormat && source.width == width && source.height == height
        }

        /// `sample` (of `format`) scaled: a sample that borrows a ``PictureSlot``'s planes when its rows
        /// come tightly packed (every line size a multiple of FFmpeg's alignment: 1280, 640, 320 wide...),
        /// else one with the planes packed into arrays of its own.
        func convert(_ sample: MediaSample, format: VideoFormat) throws(MediaError) -> MediaSample {
            guard let pixels = output.pixelFormat else { return sample }
            let result = try results.free()
            try result.prepare(pixels, width: output.width, height: output.height)
            if sample.memoryOwner is any PictureOwner || sample.memoryOwner is PacketSlot {
                // A decoder's or a scaler's frame or a demuxer's packet, borrowed: its planes are read where
                // they are (FFmpeg's buffers carry the padding libswscale may read past a row's end), with
                // no copy in.
                try scaler.scale(sample, format: format, into: result.frame)
            } else {
                // The sample's own arrays end where their bytes do: copied into a padded frame first.
                try input.copyPicture(from: sample, format: format)
                try scaler.scale(input, into: result.frame)
            }
            let rowBytes = output.bytesPerRow
            func rows(_ plane: Int) -> Int { pixels.planeSize(plane, width: output.width, height: output.height).rows }
            if rowBytes.indices.allSatisfy({ result.linesize($0) == rowBytes[$0] }) {
                return recycler.make(
                    format: .video(output), timing: sample.timing, frameCount: sample.frameCount, flags: sample.flags,
                    planeCount: rowBytes.count, owner: result
                ) { plane in result.plane(plane, rows: rows(plane), rowBytes: rowBytes[plane]) }
            }
            var converted = sample
            converted.format = .video(output)
            converted.planes = result.frame.packedPlanes(pixels, width: output.width, height: output.height)
            return converted
        }
    }
}
