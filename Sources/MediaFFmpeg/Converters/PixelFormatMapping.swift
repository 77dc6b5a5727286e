internal import CMediaFFmpeg
import MediaCore

extension PixelFormat {
    /// FFmpeg's pixel format for this layout.
    var avPixelFormat: AVPixelFormat {
        switch self {
        case .yuv420p: return AV_PIX_FMT_YUV420P
        case .yuv422p: return AV_PIX_FMT_YUV422P
        case .yuv444p: return AV_PIX_FMT_YUV444P
        case .nv12: return AV_PIX_FMT_NV12
        case .bgra: return AV_PIX_FMT_BGRA
        case .rgb24: return AV_PIX_FMT_RGB24
        case .gray: return AV_PIX_FMT_GRAY8
        case .yuv420p10le: return AV_PIX_FMT_YUV420P10LE
        case .yuv422p10le: return AV_PIX_FMT_YUV422P10LE
        case .yuv444p10le: return AV_PIX_FMT_YUV444P10LE
        }
    }

    /// The layout of an FFmpeg pixel format, if it has one here. The full-range `yuvj` formats of
    /// FFmpeg's MJPEG-era decoders map to their plain counterparts (same memory layout).
    init?(_ format: AVPixelFormat) {
        switch format {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: self = .yuv420p
        case AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P: self = .yuv422p
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: self = .yuv444p
        case AV_PIX_FMT_NV12: self = .nv12
        case AV_PIX_FMT_BGRA: self = .bgra
        case AV_PIX_FMT_RGB24: self = .rgb24
        case AV_PIX_FMT_GRAY8: self = .gray
        case AV_PIX_FMT_YUV420P10LE: self = .yuv420p10le
        case AV_PIX_FMT_YUV422P10LE: self = .yuv422p10le
        case AV_PIX_FMT_YUV444P10LE: self = .yuv444p10le
        default: return nil
        }
    }

    /// FFmpeg's name for an FFmpeg pixel format (e.g. `yuv420p10le`), for error messages.
    static func name(of format: AVPixelFormat) -> String {
        guard let name = av_get_pix_fmt_name(format) else { return "pixel format \(format.rawValue)" }
        return String(cString: name)
    }
}

extension Frame {
    /// Allocates this frame's buffers for a `width`×`height` picture of `pixelFormat` (aligned as
    /// FFmpeg likes them).
    func allocateVideo(_ pixelFormat: PixelFormat, width: Int, height: Int) throws(MediaError) {
        raw.pointee.format = pixelFormat.avPixelFormat.rawValue
        raw.pointee.width = Int32(width)
        raw.pointee.height = Int32(height)
        try check(av_frame_get_buffer(raw, 0), calling: "av_frame_get_buffer", .outOfMemory)
    }

    /// Copies a raw video sample (validated against `format` beforehand) into this frame's planes,
    /// row by row, honouring both sides' strides.
    func copyPicture(from sample: MediaSample, format: VideoFormat) throws(MediaError) {
        guard let pixelFormat = format.pixelFormat else { return }
        try check(av_frame_make_writable(raw), calling: "av_frame_make_writable", .outOfMemory)
        for plane in 0..<pixelFormat.planeCount {
            let size = pixelFormat.planeSize(plane, width: format.width, height: format.height)
            let sourceStride = format.bytesPerRow[plane]
            guard let destination = mp_frame_data(raw, Int32(plane)) else {
                throw MediaError(.outOfMemory, "frame plane \(plane) has no buffer", ffmpegCall: "av_frame_get_buffer")
            }
            let destinationStride = Int(mp_frame_linesize(raw, Int32(plane)))
            sample.withUnsafeBytes(plane: plane) { source in
                guard let base = source.baseAddress else { return }
                for row in 0..<size.rows {
                    (destination + row * destinationStride).update(
                        from: base.advanced(by: row * sourceStride).assumingMemoryBound(to: UInt8.self),
                        count: size.bytesPerRow)
                }
            }
        }
    }

    /// This frame's picture as tightly packed planes of `pixelFormat`.
    func packedPlanes(_ pixelFormat: PixelFormat, width: Int, height: Int) -> [[UInt8]] {
        (0..<pixelFormat.planeCount).map { plane in
            let size = pixelFormat.planeSize(plane, width: width, height: height)
            guard let source = mp_frame_data(raw, Int32(plane)) else { return [] }
            let stride = Int(mp_frame_linesize(raw, Int32(plane)))
            return [UInt8](unsafeUninitializedCapacity: size.bytesPerRow * size.rows) { buffer, count in
                guard let destination = buffer.baseAddress else { return }
                for row in 0..<size.rows {
                    (destination + row * size.bytesPerRow).update(from: source + row * stride, count: size.bytesPerRow)
                }
                count = size.bytesPerRow * size.rows
            }
        }
    }
}
