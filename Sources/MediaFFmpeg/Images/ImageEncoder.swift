internal import CMediaFFmpeg
public import MediaCore

/// Encodes raw video frames as the bytes of PNG or JPEG files: `CGImageDestination`, or GStreamer's
/// `pngenc` / `jpegenc`.
///
/// ```swift
/// let png = try ImageEncoder(format: .png).encode(frame)            // [UInt8], a whole .png file
/// let jpeg = try ImageEncoder(format: .jpeg(quality: 0.8)).encode(frame)
/// ```
///
/// - Input: a raw frame of any ``/MediaCore/PixelFormat``, at any stride. Size and pixel format may
///   change from frame to frame.
/// - Output: one whole file's bytes per frame. PNG is 8-bit RGB (RGBA for `bgra`, its alpha kept; grey
///   for `gray`); JPEG is full-range Y′CbCr at the picture's chroma subsampling (4:2:0 for 4:2:0 and
///   `nv12`, 4:2:2 for 4:2:2, else 4:4:4). The conversion is libswscale's with bicubic interpolation, the
///   `ffmpeg` CLI's default, so a PNG of a decoded frame holds the pixels of `ffmpeg -i x.mp4
///   -frames:v 1 out.png`. JPEG quality maps to FFmpeg's fixed quantiser scale, `-q:v` 2 (quality 1) to
///   31 (quality 0).
///
/// A frame whose planes are shorter than its format declares throws
/// ``/MediaCore/MediaError/Code/invalidData``; a format that is not raw video throws
/// ``/MediaCore/MediaError/Code/formatMismatch``. Backed by libavcodec's `png` and `mjpeg` encoders. Not
/// thread-safe: one encoder per thread (it keeps its scaler and encoder from frame to frame).
public final class ImageEncoder {
    /// The file format written.
    public let format: ImageFileFormat
    private var session: Session?
    private var index: Int64 = 0

    /// An encoder writing `format`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a JPEG quality outside 0...1.
    public init(format: ImageFileFormat) throws(MediaError) {
        if case .jpeg(let quality) = format, !(0...1).contains(quality) {
            throw MediaError(.invalidArgument, "JPEG quality \(quality) is outside 0...1")
        }
        self.format = format
        FFmpeg.quietLogging()
    }

    /// The bytes of one image file holding `sample`'s picture.
    ///
    /// - Throws: see the type's documentation; libavcodec's refusal as
    ///   ``/MediaCore/MediaError/Code/encoderFailure``.
    public func encode(_ sample: MediaSample) throws(MediaError) -> [UInt8] {
        guard case .video(let input) = sample.format, let pixels = input.pixelFormat else {
            throw MediaError.formatMismatch(stage: "ImageEncoder", expected: "raw video", actual: sample.format)
        }
        defer { index += 1 }
        try sample.validateVideoLayout(input, index: index)
        if session?.matches(pixels, input.width, input.height) != true {
            session = try Session(from: pixels, width: input.width, height: input.height, to: format)
        }
        guard let session else { return [] }
        return try session.encode(sample, format: input)
    }
}

@available(*, unavailable) extension ImageEncoder: Sendable {}

extension ImageEncoder {
    /// The scaler and encoder for one input size and pixel format.
    fileprivate final class Session {
        let source: (format: PixelFormat, width: Int, height: Int)
        private let scaler: Scaler
        private let input: Frame
        private let picture: Frame
        private let codec: CodecContext
        private let packet: Packet
        private var count: Int64 = 0

        init(from pixels: PixelFormat, width: Int, height: Int, to format: ImageFileFormat) throws(MediaError) {
            source = (pixels, width, height)
            let target: AVPixelFormat
            let codecID: AVCodecID
            var qscale: Int32?
            switch format {
            case .png:
                codecID = AV_CODEC_ID_PNG
                switch pixels {
                case .bgra: target = AV_PIX_FMT_RGBA
                case .gray: target = AV_PIX_FMT_GRAY8
                default: target = AV_PIX_FMT_RGB24
                }
            case .jpeg(let quality):
                codecID = AV_CODEC_ID_MJPEG
                switch pixels {
                case .yuv420p, .nv12, .yuv420p10le, .gray: target = AV_PIX_FMT_YUVJ420P
                case .yuv422p, .yuv422p10le: target = AV_PIX_FMT_YUVJ422P
                default: target = AV_PIX_FMT_YUVJ444P
                }
                qscale = Int32(2 + ((1 - quality) * 29).rounded())
            }
            guard let encoder = avcodec_find_encoder(codecID) else {
                throw MediaError(
                    .unavailable, "this FFmpeg build has no \(format) encoder", ffmpegCall: "avcodec_find_encoder")
            }
            scaler = try Scaler(
                from: pixels.avPixelFormat, width: width, height: height, to: target, width: width, height: height,
                flags: SWS_BICUBIC)
            input = try Frame()
            try input.allocateVideo(pixels, width: width, height: height)
            picture = try Frame()
            picture.raw.pointee.format = target.rawValue
            picture.raw.pointee.width = Int32(width)
            picture.raw.pointee.height = Int32(height)
            try check(av_frame_get_buffer(picture.raw, 0), calling: "av_frame_get_buffer", .outOfMemory)
            codec = try CodecContext(codec: encoder)
            let ctx = codec.raw
            ctx.pointee.width = Int32(width)
            ctx.pointee.height = Int32(height)
            ctx.pointee.pix_fmt = target
            ctx.pointee.time_base = AVRational(num: 1, den: 25)
            if let qscale {
                // A fixed quantiser, as `ffmpeg -q:v N` sets it: the flag, the context's quality and
                // each frame's (the encoder reads the frame's).
                ctx.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
                ctx.pointee.global_quality = qscale * Int32(FF_QP2LAMBDA)
                ctx.pointee.color_range = AVCOL_RANGE_JPEG
                picture.raw.pointee.quality = ctx.pointee.global_quality
                picture.raw.pointee.color_range = AVCOL_RANGE_JPEG
            }
            try check(avcodec_open2(ctx, encoder, nil), calling: "avcodec_open2", .encoderFailure)
            packet = try Packet()
        }

        func matches(_ pixels: PixelFormat, _ width: Int, _ height: Int) -> Bool {
            source.format == pixels && source.width == width && source.height == height
        }

        func encode(_ sample: MediaSample, format: VideoFormat) throws(MediaError) -> [UInt8] {
            try input.copyPicture(from: sample, format: format)
            try scaler.scale(input, into: picture)
            // Increasing times: the encoders refuse a frame that is not after the last.
            picture.raw.pointee.pts = count
            count += 1
            try codec.sendFrame(picture)
            var bytes: [UInt8] = []
            do {
                try codec.receivePackets(into: packet) { packet.append(to: &bytes) }
            } catch let error as MediaError {
                throw error
            } catch {
                throw MediaError(.encoderFailure, "\(error)")
            }
            guard !bytes.isEmpty else {
                throw MediaError(.encoderFailure, "the image encoder gave no bytes for a \(format) frame")
            }
            return bytes
        }
    }
}
