public import MediaCore

extension VideoEncoder {
    /// How to encode: the settings every video encoder shares (``VideoEncoderSettings``).
    public typealias Settings = VideoEncoderSettings
}

/// How to encode video, with the names of VideoToolbox's compression properties
/// (`kVTCompressionPropertyKey_*`): the settings of ``H264Encoder``, ``HEVCEncoder``, ``AV1Encoder`` and
/// ``VP9Encoder``. Every `nil` leaves the encoder's default as the `ffmpeg` CLI leaves it, so the same
/// settings give the same stream as `ffmpeg -c:v libx264` (`libx265`, `libsvtav1`, `libvpx-vp9`).
///
/// ```swift
/// var settings = VideoEncoderSettings()
/// settings.averageBitRate = 1_500_000          // -b:v 1500k
/// settings.maxKeyFrameInterval = 30            // -g 30
/// settings.preset = "veryfast"                 // -preset veryfast
/// ```
///
/// Where the encoders differ, the field's documentation says how each takes it; a setting an encoder
/// has no equivalent for throws ``/MediaCore/MediaError/Code/invalidArgument`` when the encoder is created.
public struct VideoEncoderSettings: Sendable, Hashable {
    /// Encode for live use: no lookahead, no B-frames, no frame delay, one sample out per sample in.
    /// Mirrors `kVTCompressionPropertyKey_RealTime`. libx264 and libx265: `tune=zerolatency`;
    /// libvpx-vp9: `deadline=realtime`, `lag-in-frames=0`; SVT-AV1: its low-delay prediction structure
    /// (`pred-struct=1`); libaom: `usage=realtime`, `lag-in-frames=0`.
    public var realTime: Bool = false
    /// The frame rate the encoder assumes for rate control and time base; `nil`: the input format's.
    /// Mirrors `kVTCompressionPropertyKey_ExpectedFrameRate`.
    public var expectedFrameRate: FrameRate?
    /// The long-term average bit rate in bits per second (`-b:v`); `nil`: the encoder's constant-quality
    /// default (libx264 CRF 23, libx265 CRF 28, SVT-AV1 CRF 35). Mirrors
    /// `kVTCompressionPropertyKey_AverageBitRate`; as that one, it can change while an ``H264Encoder``
    /// runs (``H264Encoder/setAverageBitRate(_:)``, ``/MediaCore/BitRateControl``): FFmpeg 5.1's other
    /// wrappers read it only when they open.
    public var averageBitRate: Int?
    /// A hard limit: at most `maxBitRate` bits per second through a `bufferSize`-bit buffer (VBV
    /// `-maxrate` / `-bufsize`). Mirrors `kVTCompressionPropertyKey_DataRateLimits`.
    public var dataRateLimit: (maxBitRate: Int, bufferSize: Int)?
    /// At most this many frames from one keyframe to the next (`-g`); `nil`: the encoder's (libx264's
    /// and libx265's 250).
    /// Mirrors `kVTCompressionPropertyKey_MaxKeyFrameInterval`.
    public var maxKeyFrameInterval: Int?
    /// At most this long from one keyframe to the next, converted to frames with the frame rate
    /// (when ``maxKeyFrameInterval`` is also set, the smaller wins).
    /// Mirrors `kVTCompressionPropertyKey_MaxKeyFrameIntervalDuration`.
    public var maxKeyFrameIntervalDuration: MediaTime?
    /// `"baseline"`, `"main"`, `"high"`, ... for H.264, `"main"`, `"main10"`, ... for HEVC, `"0"` to `"3"`
    /// for VP9, `"main"`, `"high"`, `"professional"` for AV1 (`-profile:v`); `nil`: the highest the other
    /// settings need.
    /// Mirrors `kVTCompressionPropertyKey_ProfileLevel`.
    public var profile: String?
    /// The H.264 level as written in Annex A, e.g. `"3.1"` (`-level`); `nil`: derived by the encoder.
    /// HEVC's (`"4.1"`) goes to libx265 as `level-idc`; VP9 and AV1 encoders have none to set.
    /// Mirrors the level half of `kVTCompressionPropertyKey_ProfileLevel`.
    public var level: String?
    /// `false` forbids B-frames (decode order = presentation order, `-bf 0`); `nil` or `true`: the
    /// preset's choice. Mirrors `kVTCompressionPropertyKey_AllowFrameReordering`.
    public var allowFrameReordering: Bool?
    /// At most this many consecutive B-frames (`-bf`); ignored when ``allowFrameReordering`` is
    /// `false`. No VideoToolbox equivalent.
    public var maxBFrames: Int?
    /// The speed/quality preset (`-preset`): x264's and x265's `"ultrafast"` … `"placebo"` (`nil`:
    /// `"medium"`, as the CLI), SVT-AV1's `"0"` (slowest) … `"13"` (fastest); libaom's and libvpx's
    /// `cpu-used` (`"0"` … `"8"`). No VideoToolbox equivalent (`kVTCompressionPropertyKey_Quality` is
    /// the nearest).
    public var preset: String?
    /// Encoder threads; `nil` or 0: automatic, as the CLI (`-threads auto`). The stream depends on
    /// the thread count, and with more than one thread and a bit rate target x264's rate control
    /// also depends on thread timing (the CLI's output varies under load too): set 1 for a
    /// reproducible stream. No VideoToolbox equivalent.
    public var threads: Int?
    /// The encoder's own options, by the names `ffmpeg -h encoder=NAME` lists (`"x265-params":
    /// "aq-mode=3"`, `"cpu-used": "4"`, `"row-mt": "1"`), set after the fields above: what GStreamer's
    /// `x265enc option-string` or the CLI's private options do. An option the encoder does not have
    /// throws ``/MediaCore/MediaError/Code/invalidArgument`` when the encoder opens.
    public var encoderOptions: [String: String] = [:]

    /// The encoders' defaults, as the `ffmpeg` CLI uses them.
    public init() {}

    /// Settings equal when every field is equal.
    public static func == (lhs: VideoEncoderSettings, rhs: VideoEncoderSettings) -> Bool {
        lhs.realTime == rhs.realTime && lhs.expectedFrameRate == rhs.expectedFrameRate
            && lhs.averageBitRate == rhs.averageBitRate
            && lhs.dataRateLimit?.maxBitRate == rhs.dataRateLimit?.maxBitRate
            && lhs.dataRateLimit?.bufferSize == rhs.dataRateLimit?.bufferSize
            && lhs.maxKeyFrameInterval == rhs.maxKeyFrameInterval
            && lhs.maxKeyFrameIntervalDuration == rhs.maxKeyFrameIntervalDuration && lhs.profile == rhs.profile
            && lhs.level == rhs.level && lhs.allowFrameReordering == rhs.allowFrameReordering
            && lhs.maxBFrames == rhs.maxBFrames && lhs.preset == rhs.preset && lhs.threads == rhs.threads
            && lhs.encoderOptions == rhs.encoderOptions
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(realTime)
        hasher.combine(expectedFrameRate)
        hasher.combine(averageBitRate)
        hasher.combine(dataRateLimit?.maxBitRate)
        hasher.combine(dataRateLimit?.bufferSize)
        hasher.combine(maxKeyFrameInterval)
        hasher.combine(maxKeyFrameIntervalDuration)
        hasher.combine(profile)
        hasher.combine(level)
        hasher.combine(allowFrameReordering)
        hasher.combine(maxBFrames)
        hasher.combine(preset)
        hasher.combine(threads)
        hasher.combine(encoderOptions)
    }
}

extension VideoEncoderSettings {
    /// Throws ``/MediaCore/MediaError/Code/invalidArgument`` naming the first setting out of range;
    /// `encoder` names the stage in the message.
    func validate(encoder: String) throws(MediaError) {
        let counts: [(String, Int?, ClosedRange<Int>)] = [
            ("averageBitRate", averageBitRate, 1...1_000_000_000),
            ("dataRateLimit.maxBitRate", dataRateLimit?.maxBitRate, 1...1_000_000_000),
            ("dataRateLimit.bufferSize", dataRateLimit?.bufferSize, 1...2_000_000_000),
            ("maxKeyFrameInterval", maxKeyFrameInterval, 1...100_000),
            ("maxBFrames", maxBFrames, 0...16),
            ("threads", threads, 0...64)
        ]
        for (name, value, range) in counts {
            if let value, !range.contains(value) {
                throw MediaError(.invalidArgument, "\(encoder) setting \(name) \(value) is outside \(range)")
            }
        }
        if let rate = expectedFrameRate, !rate.isValid {
            throw MediaError(.invalidArgument, "\(encoder) expectedFrameRate \(rate) is not a positive rate")
        }
        if let duration = maxKeyFrameIntervalDuration, !(duration.isNumeric && duration > .zero) {
            throw MediaError(
                .invalidArgument, "\(encoder) maxKeyFrameIntervalDuration \(duration) is not a positive time")
        }
    }

    /// The keyframe interval in frames: ``maxKeyFrameInterval``, or ``maxKeyFrameIntervalDuration`` at
    /// `rate` (rounded to nearest, at least 1) when that is smaller; `nil` when neither is set.
    func keyFrameInterval(rate: FrameRate?, codec: String) throws(MediaError) -> Int? {
        guard let duration = maxKeyFrameIntervalDuration else { return maxKeyFrameInterval }
        guard let rate, rate.isValid else {
            throw MediaError(
                .invalidArgument,
                "\(codec) encoder maxKeyFrameIntervalDuration needs a frame rate (set expectedFrameRate)")
        }
        // frames = seconds × numerator / denominator, rounded to nearest, at least 1
        let frames =
            (Int128(duration.value) * Int128(rate.numerator) * 2 + Int128(duration.timescale)
                * Int128(rate.denominator))
            / (2 * Int128(duration.timescale) * Int128(rate.denominator))
        let fromDuration = max(1, Int(clamping: frames))
        return min(maxKeyFrameInterval ?? fromDuration, fromDuration)
    }
}
