/// How a raw video frame's pixels are laid out in memory: `kCVPixelFormatType_*` / FFmpeg's `AVPixelFormat`.
///
/// Every format here is 8 bits per component. Planar formats keep one buffer per plane in a
/// ``MediaSample`` (``MediaSample/planes``), in the order ``planeCount`` gives.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Planar Y, Cb, Cr; chroma halved in both directions (4:2:0). `kCVPixelFormatType_420YpCbCr8Planar`.
    case yuv420p
    /// Planar Y, Cb, Cr; chroma halved horizontally (4:2:2).
    case yuv422p
    /// Planar Y, Cb, Cr at full resolution (4:4:4).
    case yuv444p
    /// Y plane, then one plane of interleaved Cb/Cr pairs at 4:2:0. `kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange`.
    case nv12
    /// One plane of B, G, R, A bytes per pixel. `kCVPixelFormatType_32BGRA`.
    case bgra
    /// One plane of R, G, B bytes per pixel. `kCVPixelFormatType_24RGB`.
    case rgb24
    /// A single plane of luma only (8-bit grey).
    case gray

    /// FFmpeg's name for it, e.g. `yuv420p`.
    public var description: String { rawValue }

    /// How many buffers a frame of this format has.
    public var planeCount: Int {
        switch self {
        case .yuv420p, .yuv422p, .yuv444p: return 3
        case .nv12: return 2
        case .bgra, .rgb24, .gray: return 1
        }
    }

    /// Whether the format is Y′CbCr (as opposed to RGB).
    public var isYUV: Bool {
        switch self {
        case .yuv420p, .yuv422p, .yuv444p, .nv12, .gray: return true
        case .bgra, .rgb24: return false
        }
    }

    /// The size of plane `index` of a `width`×`height` frame, tightly packed: bytes per row of
    /// visible pixels, and rows. Chroma sizes round up, as FFmpeg's `AV_CEIL_RSHIFT` does.
    public func planeSize(_ index: Int, width: Int, height: Int) -> (bytesPerRow: Int, rows: Int) {
        let halfWidth = (width + 1) / 2
        let halfHeight = (height + 1) / 2
        switch (self, index) {
        case (.yuv420p, 0), (.yuv422p, 0), (.yuv444p, 0), (.nv12, 0), (.gray, 0): return (width, height)
        case (.yuv420p, _): return (halfWidth, halfHeight)
        case (.yuv422p, _): return (halfWidth, height)
        case (.yuv444p, _): return (width, height)
        case (.nv12, _): return (2 * halfWidth, halfHeight)
        case (.bgra, _): return (4 * width, height)
        case (.rgb24, _): return (3 * width, height)
        case (.gray, _): return (width, height)
        }
    }

    /// The bytes one tightly packed `width`×`height` frame takes, all planes together.
    public func frameByteCount(width: Int, height: Int) -> Int {
        (0..<planeCount).reduce(0) { total, plane in
            let size = planeSize(plane, width: width, height: height)
            return total + size.bytesPerRow * size.rows
        }
    }
}
