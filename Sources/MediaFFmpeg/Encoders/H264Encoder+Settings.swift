public import MediaCore

extension H264Encoder {
    /// How to encode, with the names of VideoToolbox's compression properties
    /// (`kVTCompressionPropertyKey_*`). Every `nil` leaves libx264's default as the `ffmpeg` CLI leaves
    /// it, so the same settings give the same stream as `ffmpeg -c:v libx264`.
    ///
    /// ```swift
    /// var settings = H264Encoder.Settings()
    /// settings.averageBitRate = 1_500_000          // -b:v 1500k
    /// settings.maxKeyFrameInterval = 30            // -g 30
    /// settings.preset = "veryfast"                 // -preset veryfast
    /// ```
    public struct Settings: Sendable, Hashable {
        /// Encode for live use: `tune=zerolatency` (no lookahead, no B-frames, no frame delay), one
        /// sample out per sample in. Mirrors `kVTCompressionPropertyKey_RealTime`.
        public var realTime: Bool = false
        /// The frame rate the encoder assumes for rate control and time base; `nil`: the input format's.
        /// Mirrors `kVTCompressionPropertyKey_ExpectedFrameRate`.
        public var expectedFrameRate: FrameRate?
        /// The long-term average bit rate in bits per second (`-b:v`); `nil`: libx264's constant-quality
        /// default (CRF 23). Mirrors `kVTCompressionPropertyKey_AverageBitRate`; as that one, it can change
        /// while the encoder runs (``H264Encoder/setAverageBitRate(_:)``, ``/MediaCore/BitRateControl``).
        public var averageBitRate: Int?
        /// A hard limit: at most `maxBitRate` bits per second through a `bufferSize`-bit buffer (VBV
        /// `-maxrate` / `-bufsize`). Mirrors `kVTCompressionPropertyKey_DataRateLimits`.
        public var dataRateLimit: (maxBitRate: Int, bufferSize: Int)?
        /// At most this many frames from one keyframe to the next (`-g`); `nil`: libx264's 250.
        /// Mirrors `kVTCompressionPropertyKey_MaxKeyFrameInterval`.
        public var maxKeyFrameInterval: Int?
        /// At most this long from one keyframe to the next, converted to frames with the frame rate
        /// (when ``maxKeyFrameInterval`` is also set, the smaller wins).
        /// Mirrors `kVTCompressionPropertyKey_MaxKeyFrameIntervalDuration`.
        public var maxKeyFrameIntervalDuration: MediaTime?
        /// `"baseline"`, `"main"`, `"high"`, ... (`-profile:v`); `nil`: the highest the other settings need.
        /// Mirrors `kVTCompressionPropertyKey_ProfileLevel`.
        public var profile: String?
        /// The level as written in Annex A, e.g. `"3.1"` (`-level`); `nil`: derived by libx264.
        /// Mirrors the level half of `kVTCompressionPropertyKey_ProfileLevel`.
        public var level: String?
        /// `false` forbids B-frames (decode order = presentation order, `-bf 0`); `nil` or `true`: the
        /// preset's choice. Mirrors `kVTCompressionPropertyKey_AllowFrameReordering`.
        public var allowFrameReordering: Bool?
        /// At most this many consecutive B-frames (`-bf`); ignored when ``allowFrameReordering`` is
        /// `false`. No VideoToolbox equivalent.
        public var maxBFrames: Int?
        /// The x264 speed/quality preset, `"ultrafast"` … `"placebo"`; `nil`: `"medium"`, as the CLI.
        /// No VideoToolbox equivalent (`kVTCompressionPropertyKey_Quality` is the nearest).
        public var preset: String?
        /// Encoder threads; `nil` or 0: automatic, as the CLI (`-threads auto`). The stream depends on
        /// the thread count, and with more than one thread and a bit rate target x264's rate control
        /// also depends on thread timing (the CLI's output varies under load too): set 1 for a
        /// reproducible stream. No VideoToolbox equivalent.
        public var threads: Int?

        /// libx264's defaults, as the `ffmpeg` CLI uses them.
        public init() {}

        /// Settings equal when every field is equal.
        public static func == (lhs: Settings, rhs: Settings) -> Bool {
            lhs.realTime == rhs.realTime && lhs.expectedFrameRate == rhs.expectedFrameRate
                && lhs.averageBitRate == rhs.averageBitRate
                && lhs.dataRateLimit?.maxBitRate == rhs.dataRateLimit?.maxBitRate
                && lhs.dataRateLimit?.bufferSize == rhs.dataRateLimit?.bufferSize
                && lhs.maxKeyFrameInterval == rhs.maxKeyFrameInterval
                && lhs.maxKeyFrameIntervalDuration == rhs.maxKeyFrameIntervalDuration && lhs.profile == rhs.profile
                && lhs.level == rhs.level && lhs.allowFrameReordering == rhs.allowFrameReordering
                && lhs.maxBFrames == rhs.maxBFrames && lhs.preset == rhs.preset && lhs.threads == rhs.threads
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
        }
    }
}
