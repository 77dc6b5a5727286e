#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension PanStage {
    /// What ``PanStage`` does with mono input.
    public enum MonoHandling: Sendable, Hashable {
        /// Mono passes unchanged, whatever the pan (the default; the output keeps one channel).
        case unchanged
        /// Mono becomes stereo, placed by a constant-power (sine/cosine) law: with
        /// `θ = (pan + 1) × π/4`, left = cos θ and right = sin θ, so left² + right² = 1 at every
        /// pan: −1 is left only, 0 is both sides at −3.01 dB, +1 is right only. As `AVAudioPlayer`
        /// places a mono file on a stereo output. Ramped like the balance.
        case constantPowerStereo
    }

    /// The (left, right) gains of the constant-power law at pan `p` (clamped to −1…1).
    public static func constantPowerGains(pan p: Double) -> (left: Double, right: Double) {
        let theta = (min(max(p.isNaN ? 0 : p, -1), 1) + 1) * Double.pi / 4
        return (cos(theta), sin(theta))
    }

    /// Mono `sample` as stereo of the same sample type and interleaving, each frame placed by the
    /// ramp's pan for it.
    static func panMono(
        _ sample: MediaSample, format: AudioFormat, ramp: inout LinearRamp, recycler: inout SampleRecycler
    ) -> MediaSample {
        let frames = sample.frameCount
        let interleaved = format.pcm?.isInterleaved ?? true
        let stereo = AudioFormat.pcm(format.pcm ?? .f32, sampleRate: format.sampleRate, channelLayout: .stereo)
        let start = ramp
        var end = ramp
        let output = recycler.make(
            format: .audio(stereo), timing: sample.timing, frameCount: frames, flags: sample.flags,
            trimAtStart: sample.trimAtStart, trimAtEnd: sample.trimAtEnd, planeCount: stereo.planeCount
        ) { plane, bytes in
            var local = start
            sample.withUnsafeBytes(plane: 0) { input in
                for frame in 0..<frames {
                    let gains = constantPowerGains(pan: local.next())
                    let value = input.float32(at: frame)
                    for channel in 0..<2 where interleaved || channel == plane {
                        let bits = (value * Float(channel == 0 ? gains.left : gains.right)).bitPattern
                        bytes.append(UInt8(truncatingIfNeeded: bits))
                        bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
                        bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
                        bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
                    }
                }
            }
            end = local
        }
        ramp = end
        return output
    }
}
