internal import CMediaFFmpeg
import MediaCore

/// Owns a libswscale `SwsContext` (freed with `sws_freeContext`) for one conversion: source size and
/// pixel format to destination size and pixel format.
final class Scaler {
    let raw: OpaquePointer

    convenience init(
        from source: PixelFormat, width: Int, height: Int,
        to destination: PixelFormat, width outWidth: Int, height outHeight: Int, flags: Int32
    ) throws(MediaError) {
        try self.init(
            from: source.avPixelFormat, width: width, height: height, to: destination.avPixelFormat,
            width: outWidth, height: outHeight, flags: flags)
    }

    /// A scaler between FFmpeg pixel formats, including those the library has no ``/MediaCore/PixelFormat``
    /// for (the compositor's yuva420p layers).
    init(
        from source: AVPixelFormat, width: Int, height: Int,
        to destination: AVPixelFormat, width outWidth: Int, height outHeight: Int, flags: Int32
    ) throws(MediaError) {
        guard
            let context = sws_getContext(
                Int32(width), Int32(height), source, Int32(outWidth), Int32(outHeight), destination, flags, nil,
                nil, nil)
        else {
            throw MediaError(
                .unsupportedFormat,
                "libswscale cannot convert \(PixelFormat.name(of: source)) \(width)x\(height) to \(PixelFormat.name(of: destination)) \(outWidth)x\(outHeight)",
                ffmpegCall: "sws_getContext")
        }
        raw = context
        FFmpeg.didAllocate()
    }

    deinit {
        sws_freeContext(raw)
        FFmpeg.didFree()
    }

    /// Converts the whole of `source` into `destination` (both allocated to this context's sizes).
    func scale(_ source: Frame, into destination: Frame) throws(MediaError) {
        try check(av_frame_make_writable(destination.raw), calling: "av_frame_make_writable", .outOfMemory)
        try check(mp_sws_scale(raw, source.raw, destination.raw), calling: "sws_scale")
    }
}

@available(*, unavailable) extension Scaler: Sendable {}
