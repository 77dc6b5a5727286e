internal import CMediaFFmpeg
public import MediaCore

/// Still pictures from image files: a PNG (with its alpha), a JPEG, or anything else libavformat's
/// image readers and libavcodec's decoders take (BMP, TIFF, WebP, GIF's first frame).
///
/// ```swift
/// let logo = try StillImage.load(path: "logo.png")   // bgra: blended by its alpha in a VideoCompositor
/// ```
public enum StillImage {
    /// The first picture of the image at `path`, as one raw video frame at time 0: `bgra` when the
    /// picture has alpha; `rgb24` for full-range Y′CbCr (a JPEG) and formats the library has no case
    /// for; otherwise its own pixel format.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` naming `path` for a file that is not an image
    ///   FFmpeg can read, or that holds no picture.
    public static func load(path: String) throws(MediaError) -> MediaSample {
        FFmpeg.quietLogging()
        let format: InputFormatContext
        do {
            format = try InputFormatContext(url: path, io: nil, formatName: nil)
        } catch {
            throw MediaError(.invalidData, "\(path) is not an image FFmpeg can read: \(error.message)")
        }
        try check(avformat_find_stream_info(format.raw, nil), calling: "avformat_find_stream_info", .invalidData)
        let index = av_find_best_stream(format.raw, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let stream = format.raw.pointee.streams[Int(index)],
            let codec = avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id)
        else {
            throw MediaError(.invalidData, "\(path) holds no picture FFmpeg can decode")
        }
        let context = try CodecContext(codec: codec)
        try check(
            avcodec_parameters_to_context(context.raw, stream.pointee.codecpar),
            calling: "avcodec_parameters_to_context")
        try check(avcodec_open2(context.raw, codec, nil), calling: "avcodec_open2", .decoderFailure)
        let packet = try Packet()
        let frame = try Frame()
        var picture: MediaSample?
        func take() throws {
            try context.receiveFrames(into: frame) {
                if picture == nil { picture = try Self.sample(of: frame, path: path) }
            }
        }
        while picture == nil, av_read_frame(format.raw, packet.raw) >= 0 {
            defer { av_packet_unref(packet.raw) }
            guard packet.raw.pointee.stream_index == index else { continue }
            do {
                try context.sendPacket(packet)
                try take()
            } catch let error as MediaError {
                throw MediaError(.invalidData, "\(path): the picture does not decode: \(error.message)")
            } catch {
                throw MediaError(.invalidData, "\(path): \(error)")
            }
        }
        if picture == nil {
            do {
                try context.sendPacket(nil)
                try take()
            } catch {}
        }
        guard let picture else { throw MediaError(.invalidData, "\(path) holds no picture that decodes") }
        return picture
    }

    /// A decoded frame as a sample: converted to bgra (alpha) or rgb24 when the library has no format for it.
    private static func sample(of frame: Frame, path: String) throws(MediaError) -> MediaSample {
        let raw = frame.raw.pointee
        let decoded = AVPixelFormat(rawValue: raw.format)
        let width = Int(raw.width)
        let height = Int(raw.height)
        let hasAlpha = (av_pix_fmt_desc_get(decoded)?.pointee.flags ?? 0) & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
        // Full-range Y′CbCr (a JPEG's yuvj420p) goes to RGB: the library's yuv formats are limited range.
        let fullRange =
            raw.color_range == AVCOL_RANGE_JPEG
            || [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P].contains(decoded)
        let target: PixelFormat = hasAlpha ? .bgra : fullRange ? .rgb24 : (PixelFormat(decoded) ?? .rgb24)
        let time = SampleTiming(presentationTime: .zero, decodeTime: .zero, duration: .invalid)
        let format = MediaFormat.video(.raw(target, width: width, height: height))
        if PixelFormat(decoded) == target {
            return MediaSample(
                format: format, planes: frame.packedPlanes(target, width: width, height: height), timing: time,
                frameCount: 1)
        }
        let scaler = try Scaler(
            from: decoded, width: width, height: height, to: target.avPixelFormat, width: width, height: height,
            flags: SWS_BICUBIC)
        let converted = try Frame()
        try converted.allocateVideo(target, width: width, height: height)
        try scaler.scale(frame, into: converted)
        return MediaSample(
            format: format, planes: converted.packedPlanes(target, width: width, height: height), timing: time,
            frameCount: 1)
    }
}
