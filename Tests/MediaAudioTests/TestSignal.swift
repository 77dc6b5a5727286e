import Foundation
import MediaAudio

/// Test audio: signals as `Double`s (1.0 = full scale), quantised into PCM samples of any layout, and a
/// helper that runs them through a meter's stage.
enum TestSignal {
    /// `frames` values of a sine of `amplitude` (1.0 = full scale) and `frequency` Hz.
    static func sine(amplitude: Double, frequency: Double, sampleRate: Int, frames: Int) -> [Double] {
        (0..<frames).map { amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(sampleRate)) }
    }

    /// `frames` values of uniform white noise in ±`amplitude` from a fixed seed (a 64-bit LCG).
    static func noise(amplitude: Double, frames: Int, seed: UInt64) -> [Double] {
        var state = seed
        return (0..<frames).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return amplitude * (Double(state >> 11) / Double(1 << 53) * 2 - 1)
        }
    }

    /// The bytes of `value` (1.0 = full scale) as `type`, little-endian: integers rounded to nearest
    /// and clamped (so +1.0 is the largest positive value, −1.0 the most negative).
    static func encode(_ value: Double, as type: PCMSampleType, into bytes: inout [UInt8]) {
        func integer(_ scale: Double, _ low: Double, _ high: Double) -> Int64 {
            Int64(min(high, max(low, (value * scale).rounded())))
        }
        switch type {
        case .u8: bytes.append(UInt8(integer(128, -128, 127) + 128))
        case .s16: appendLittleEndian(UInt64(bitPattern: integer(32_768, -32_768, 32_767)), count: 2, to: &bytes)
        case .s24:
            appendLittleEndian(UInt64(bitPattern: integer(8_388_608, -8_388_608, 8_388_607)), count: 3, to: &bytes)
        case .s32:
            appendLittleEndian(
                UInt64(bitPattern: integer(2_147_483_648, -2_147_483_648, 2_147_483_647)), count: 4, to: &bytes)
        case .f32: appendLittleEndian(UInt64(Float(value).bitPattern), count: 4, to: &bytes)
        case .f64: appendLittleEndian(value.bitPattern, count: 8, to: &bytes)
        }
    }

    private static func appendLittleEndian(_ bits: UInt64, count: Int, to bytes: inout [UInt8]) {
        for index in 0..<count { bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index)))) }
    }

    /// One PCM sample of `channels` (each the same length) in `format`, starting at `startFrame`.
    static func sample(_ channels: [[Double]], format: PCMFormat, sampleRate: Int = 48_000, startFrame: Int64 = 0)
        -> MediaSample
    {
        let frames = channels.first?.count ?? 0
        let audio = AudioFormat.pcm(format, sampleRate: sampleRate, channels: channels.count)
        let timing = SampleTiming.audio(startFrame: startFrame, frameCount: frames, sampleRate: sampleRate)
        if format.isInterleaved {
            var bytes: [UInt8] = []
            for frame in 0..<frames {
                for channel in channels { encode(channel[frame], as: format.sampleType, into: &bytes) }
            }
            return MediaSample(format: .audio(audio), data: bytes, timing: timing, frameCount: frames)
        }
        let planes = channels.map { channel in
            var bytes: [UInt8] = []
            for value in channel { encode(value, as: format.sampleType, into: &bytes) }
            return bytes
        }
        return MediaSample(format: .audio(audio), planes: planes, timing: timing, frameCount: frames)
    }

    /// `channels` cut at `splits` (frame indices, ascending) into consecutive samples.
    static func samples(_ channels: [[Double]], format: PCMFormat, sampleRate: Int = 48_000, splits: [Int])
        -> [MediaSample]
    {
        let frames = channels.first?.count ?? 0
        let bounds = [0] + splits.filter { $0 > 0 && $0 < frames } + [frames]
        return zip(bounds, bounds.dropFirst()).map { start, end in
            sample(
                channels.map { Array($0[start..<end]) }, format: format, sampleRate: sampleRate,
                startFrame: Int64(start))
        }
    }

    /// A fresh meter fed `samples` through its stage (and the stage finished when `finish`), with
    /// ``LevelMeter/updateMeters()`` called at the end.
    static func metered(
        _ samples: [MediaSample], configuration: LevelMeter.Configuration = .init(), finish: Bool = false
    ) throws -> LevelMeter {
        let meter = try LevelMeter(configuration: configuration)
        let stage = CheckedStage(meter.stage)
        for sample in samples { try stage.process(sample) { _ in } }
        if finish { try stage.finish { _ in } }
        meter.updateMeters()
        return meter
    }
}
