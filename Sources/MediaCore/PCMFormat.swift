/// How one PCM sample value is stored.
public enum PCMSampleType: String, Sendable, Hashable, CaseIterable {
    /// Unsigned 8-bit integer, 128 is silence (WAV's 8-bit format).
    case u8
    /// Signed 16-bit integer, little-endian.
    case s16
    /// Signed 24-bit integer packed in 3 bytes, little-endian.
    case s24
    /// Signed 32-bit integer, little-endian.
    case s32
    /// 32-bit IEEE float, little-endian, full scale ±1.0.
    case f32
    /// 64-bit IEEE float, little-endian, full scale ±1.0.
    case f64

    /// Bytes one sample value takes.
    public var bytesPerSample: Int {
        switch self {
        case .u8: return 1
        case .s16: return 2
        case .s24: return 3
        case .s32, .f32: return 4
        case .f64: return 8
        }
    }

    /// Whether values are IEEE floats.
    public var isFloat: Bool { self == .f32 || self == .f64 }
}

/// The layout of linear PCM in memory: sample type and interleaving. Always little-endian.
public struct PCMFormat: Sendable, Hashable, CustomStringConvertible {
    /// How each sample value is stored.
    public var sampleType: PCMSampleType
    /// `true`: one buffer, channels interleaved frame by frame. `false` (planar): one buffer per channel.
    public var isInterleaved: Bool

    /// A PCM layout.
    public init(_ sampleType: PCMSampleType, interleaved: Bool = true) {
        self.sampleType = sampleType
        self.isInterleaved = interleaved
    }

    /// Signed 16-bit interleaved, what most WAV files hold.
    public static let s16 = PCMFormat(.s16)
    /// 32-bit float interleaved.
    public static let f32 = PCMFormat(.f32)
    /// 32-bit float planar, what FFmpeg's AAC encoder takes (`AV_SAMPLE_FMT_FLTP`).
    public static let f32Planar = PCMFormat(.f32, interleaved: false)

    /// `s16`, `f32p` and so on, as FFmpeg names sample formats (with `s24` for packed 24-bit).
    public var description: String { sampleType.rawValue + (isInterleaved ? "" : "p") }
}
