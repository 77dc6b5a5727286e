/// The still-image file formats ``ImageEncoder``, ``ImageWriter`` and ``ImageGenerator`` write.
public enum ImageFileFormat: Sendable, Hashable, CustomStringConvertible {
    /// PNG: lossless, 8-bit RGB (RGBA for a `bgra` picture, its alpha kept), as `ffmpeg -i x -frames:v 1
    /// out.png` writes it.
    case png
    /// JPEG (baseline, full-range Y′CbCr, chroma kept at the picture's subsampling: 4:2:0 for a 4:2:0
    /// picture, 4:2:2 for 4:2:2, else 4:4:4), at a `quality` from 0 (smallest) to 1 (best), as
    /// `kCGImageDestinationLossyCompressionQuality` takes it. 0.9 by default.
    case jpeg(quality: Double = 0.9)

    /// The format a file name's extension says: `png`, or `jpg`/`jpeg` (any case) for JPEG at the default
    /// quality; `nil` for any other.
    public init?(pathExtension path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg()
        default: return nil
        }
    }

    /// `png`, or `jpeg` with its quality.
    public var description: String {
        switch self {
        case .png: return "png"
        case .jpeg(let quality): return "jpeg (quality \(quality))"
        }
    }
}
