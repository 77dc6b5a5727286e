/// How a raw video frame's pixels are laid out in memory: `kCVPixelFormatType_*` / FFmpeg's `AVPixelFormat`.
///
/// The formats are 8 bits per component except the `…10le` ones, which keep each 10-bit component in
/// the low bits of a little-endian 16-bit word, as FFmpeg's decoders hand out High 10 and High 4:2:2
/// H.264 (``bitDepth``, ``bytesPerComponent``). Planar formats keep one buffer per plane in a
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
    /// Planar Y, Cb, Cr at 4:2:0, 10 bits per component in little-endian 16-bit words (High 10 H.264).
    case yuv420p10le
    /// Planar Y, Cb, Cr at 4:2:2, 10 bits per component in little-endian 16-bit words (High 4:2:2 H.264).
    case yuv422p10le
    /// Planar Y, Cb, Cr at 4:4:4, 10 bits per component in little-endian 16-bit words.
    case yuv444p10le

    /// FFmpeg's name for it, e.g. `yuv420p`.
    public var description: String { rawValue }

    /// How many buffers a frame of this format has.
    public var planeCount: Int {
        switch self {
        case .yuv420p, .yuv422p, .yuv444p, .yuv420p10le, .yuv422p10le, .yuv444p10le: return 3
        case .nv12: return 2
        case .bgra, .rgb24, .gray: return 1
        }
    }

    /// Whether the format is Y′CbCr (as opposed to RGB).
    public var isYUV: Bool {
        switch self {
        case .yuv420p, .yuv422p, .yuv444p, .nv12, .gray, .yuv420p10le, .yuv422p10le, .yuv444p10le: return true
        case .bgra, .rgb24: return false
        }
    }

    /// Bits per colour component: 10 for the `…10le` formats, 8 for the others.
    public var bitDepth: Int {
        switch self {
        case .yuv420p10le, .yuv422p10le, .yuv444p10le: return 10
        case .yuv420p, .yuv422p, .yuv444p, .nv12, .bgra, .rgb24, .gray: return 8
        }
    }

    /// Bytes each component takes in memory: 2 for the `…10le` formats (a 16-bit word), 1 for the others.
    public var bytesPerComponent: Int { bitDepth > 8 ? 2 : 1 }

    /// The 8-bit format with the same planes and chroma subsampling (`yuv420p10le` → `yuv420p`); the format
    /// itself when it is 8-bit already.
    public var eightBitEquivalent: PixelFormat {
        switch self {
        case .yuv420p10le: return .yuv420p
        case .yuv422p10le: return .yuv422p
        case .yuv444p10le: return .yuv444p
        case .yuv420p, .yuv422p, .yuv444p, .nv12, .bgra, .rgb24, .gray: return self
        }
    }

    /// The size of plane `index` of a `width`×`height` frame, tightly packed: bytes per row of
    /// visible pixels, and rows. Chroma sizes round up, as FFmpeg's `AV_CEIL_RSHIFT` does.
    public func planeSize(_ index: Int, width: Int, height: Int) -> (bytesPerRow: Int, rows: Int) {
        let halfWidth = (width + 1) / 2
        let halfHeight = (height + 1) / 2
        switch (self, index) {
        case (.yuv420p10le, _), (.yuv422p10le, _), (.yuv444p10le, _):
            let eightBit = eightBitEquivalent.planeSize(index, width: width, height: height)
            return (2 * eightBit.bytesPerRow, eightBit.rows)
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
