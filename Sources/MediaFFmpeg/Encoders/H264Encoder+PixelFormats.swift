internal import CMediaFFmpeg
import MediaCore

extension H264Encoder {
    /// The pixel formats taken: libx264's planar 8- and 10-bit ones, and nv12.
    static let acceptedPixelFormats: Set<PixelFormat> = [
        .yuv420p, .yuv422p, .yuv444p, .nv12, .yuv420p10le, .yuv422p10le, .yuv444p10le
    ]

    /// Throws ``/MediaCore/MediaError/Code/unsupportedFormat`` unless `encoder` lists `pixels` among its
    /// pixel formats: libx264 built for 8 bits only has no 10-bit ones, hardware encoders have their own.
    /// An encoder that lists none is given the chance (FFmpeg's own rule: no list, no restriction).
    static func checkEncoder(_ encoder: UnsafePointer<AVCodec>, encodes pixels: PixelFormat) throws(MediaError) {
        guard var format = encoder.pointee.pix_fmts else { return }
        var names: [String] = []
        while format.pointee != AV_PIX_FMT_NONE {
            if format.pointee == pixels.avPixelFormat { return }
            names.append(PixelFormat.name(of: format.pointee))
            format += 1
        }
        let encoderName = String(cString: encoder.pointee.name)
        throw MediaError(
            .unsupportedFormat,
            "\(encoderName) in this FFmpeg build does not encode \(pixels); it takes \(names.joined(separator: ", "))",
            ffmpegCall: "avcodec_find_encoder_by_name")
    }
}
