#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import MediaCore

extension AudioMixer {
    /// The mix's peak limiter: a brick wall with instant attack and exponential release, so that no
    /// output value goes beyond ``ceiling``: what a broadcast chain puts after a mixer, and what
    /// `AVAudioMixerNode` users get from `AVAudioUnitEffect`'s peak limiter.
    ///
    /// - Per frame, the gain is the smaller of 1 and `ceiling / peak` (the frame's largest absolute
    ///   value over its channels), and of the previous frame's gain released towards 1: it falls at
    ///   once (no value passes the ceiling) and recovers with the time constant ``release`` (63 % of
    ///   the way back to 1 after that long). All channels get the same gain, so the stereo image stays.
    /// - Without look-ahead, the attack is instant: the first frame over the ceiling is scaled
    ///   down to it, a hard knee on that one frame, then held down smoothly. That is the price of
    ///   adding no latency; lower the input gains when clean peaks matter more than loudness.
    /// - Frames whose gain was below 1 are counted in ``AudioMixer/limitedFrames``.
    public struct Limiter: Sendable, Hashable {
        /// The largest absolute value the mix may reach, linear (default 0.891: −1 dBFS).
        public var ceiling: Double
        /// How long the gain takes to recover 63 % of the way back to 1 (default 50 ms).
        public var release: Duration

        /// A limiter at `ceiling` (linear, 0 < ceiling ≤ 1) recovering over `release`.
        public init(ceiling: Double = 0.891_250_938_133_745_5, release: Duration = .milliseconds(50)) {
            self.ceiling = ceiling
            self.release = release
        }

        /// A limiter whose ceiling is `decibels` dBFS (≤ 0).
        public static func ceiling(decibels: Double, release: Duration = .milliseconds(50)) -> Limiter {
            Limiter(ceiling: pow(10, decibels / 20), release: release)
        }

        func validated() throws(MediaError) -> Limiter {
            let seconds = Double(release.components.seconds) + Double(release.components.attoseconds) * 1e-18
            guard ceiling > 0, ceiling <= 1, ceiling.isFinite, seconds >= 0 else {
                throw MediaError(
                    .invalidArgument,
                    "a limiter needs a ceiling in (0, 1] and a release of 0 or more, not \(ceiling) and \(release)")
            }
            return self
        }
    }
}

/// The state of an ``AudioMixer/Limiter`` on a running mix: the gain of the last frame.
struct PeakLimiter {
    let ceiling: Double
    /// The fraction of the way back to 1 the gain goes per frame.
    let recovery: Double
    private(set) var gain: Double = 1

    init(_ limiter: AudioMixer.Limiter, sampleRate: Int) {
        ceiling = limiter.ceiling
        let seconds =
            Double(limiter.release.components.seconds) + Double(limiter.release.components.attoseconds) * 1e-18
        let frames = seconds * Double(sampleRate)
        recovery = frames > 0 ? 1 - exp(-1 / frames) : 1
    }

    /// Scales the first `frames` interleaved frames of `values` so that none goes beyond the ceiling;
    /// returns how many frames it lowered.
    mutating func apply(to values: inout [Double], frames: Int, channels: Int) -> Int {
        var limited = 0
        for frame in 0..<frames {
            let base = frame * channels
            var peak = 0.0
            for channel in 0..<channels { peak = max(peak, abs(values[base + channel])) }
            gain += (1 - gain) * recovery
            if peak * gain > ceiling { gain = ceiling / peak }
            if gain < 1 {
                limited += 1
                for channel in 0..<channels { values[base + channel] *= gain }
            }
        }
        return limited
    }
}
