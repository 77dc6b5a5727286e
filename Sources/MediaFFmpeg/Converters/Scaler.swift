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

    /// Converts the raw video `sample` (validated against `format`, this context's source size and pixel
    /// format) into `destination`, reading the sample's planes where they are: no copy into a frame. The
    /// planes must be readable past each row's end as FFmpeg's own buffers are (a decoder's frame).
    func scale(_ sample: MediaSample, format: VideoFormat, into destination: Frame) throws(MediaError) {
        guard let pixels = format.pixelFormat, pixels.planeCount <= 4, format.bytesPerRow.count >= pixels.planeCount
        else { return }
        try check(av_frame_make_writable(destination.raw), calling: "av_frame_make_writable", .outOfMemory)
        let strides: (Int32, Int32, Int32, Int32) = (
            Int32(format.bytesPerRow[0]), pixels.planeCount > 1 ? Int32(format.bytesPerRow[1]) : 0,
            pixels.planeCount > 2 ? Int32(format.bytesPerRow[2]) : 0,
            pixels.planeCount > 3 ? Int32(format.bytesPerRow[3]) : 0
        )
        let code = withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: 4) { pointers in
            pointers.initialize(repeating: nil)
            return Self.withPlanes(of: sample, count: pixels.planeCount, into: pointers) {
                withUnsafePointer(to: strides) { tuple in
                    tuple.withMemoryRebound(to: Int32.self, capacity: 4) { stride in
                        mp_sws_scale_planes(raw, pointers.baseAddress!, stride, Int32(format.height), destination.raw)
                    }
                }
            }
        }
        try check(code, calling: "sws_scale")
    }

    /// Calls `body` once `pointers[plane]` holds the base address of each of the sample's first `count`
    /// planes (from `plane` on), each valid for the call: the planes are read in place, owned or borrowed.
    private static func withPlanes(
        of sample: MediaSample, count: Int, plane: Int = 0,
        into pointers: UnsafeMutableBufferPointer<UnsafePointer<UInt8>?>,
        _ body: () -> Int32
    ) -> Int32 {
        guard plane < count else { return body() }
        return sample.withUnsafeBytes(plane: plane) { bytes in
            pointers[plane] = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return withPlanes(of: sample, count: count, plane: plane + 1, into: pointers, body)
        }
    }
}

@available(*, unavailable) extension Scaler: Sendable {}
