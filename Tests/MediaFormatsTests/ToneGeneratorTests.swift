import Foundation
import MediaCore
@testable import MediaFormats
import MediaTestSupport
import Testing

/// ToneGenerator: lengths, the exact sine values, level and frequency, deterministic noise, argument checks.
@Suite(.timeLimit(.minutes(2))) struct ToneGeneratorTests {
    static func floats(_ bytes: [UInt8]) -> [Float] { RawAudio.floats(Data(bytes)) }
    static func int16s(_ bytes: [UInt8]) -> [Int16] { RawAudio.int16s(Data(bytes)) }

    @Test func framesLengthGivesExactSamplesAndTiming() throws {
        var tone = try ToneGenerator(length: .frames(10_000), framesPerSample: 1024)
        #expect(tone.totalFrames == 10_000)
        #expect(tone.format == .pcm(.f32, sampleRate: 48_000, channelLayout: .stereo))
        let (samples, bytes) = try WAVTest.drain(&tone)
        #expect(samples.map(\.frameCount) == Array(repeating: 1024, count: 9) + [784])
        let starts: [MediaTime] = (0..<10).map { (i: Int) -> MediaTime in
            MediaTime(value: Int64(i * 1024), timescale: 48_000)
        }
        #expect(samples.map(\.timing.presentationTime) == starts)
        #expect(samples.last?.timing.duration == MediaTime(value: 784, timescale: 48_000))
        #expect(bytes.count == 10_000 * 2 * 4)
        #expect(tone.framesGenerated == 10_000)
        #expect(try tone.next() == nil)
        #expect(try tone.next() == nil)
    }

    @Test(arguments: [
        (MediaTime(value: 1, timescale: 3), 48_000, Int64(16_000)),
        (MediaTime(value: 1, timescale: 3), 44_100, 14_700),
        (MediaTime(value: 1, timescale: 7), 48_000, 6_857),  // 6857.14: down
        (MediaTime(value: 1001, timescale: 30_000), 44_100, 1_471),  // 1471.47: down
        (MediaTime(value: 2, timescale: 3), 44_101, 29_401),  // 29400.67: up
        (MediaTime(value: 1, timescale: 96_000), 48_000, 1),  // 0.5: away from zero
        (MediaTime(value: 0, timescale: 1), 48_000, 0),
        (MediaTime(value: 5, timescale: 1), 8_000, 40_000)
    ])
    func durationIsRoundedToNearestFrame(duration: MediaTime, rate: Int, frames: Int64) throws {
        var tone = try ToneGenerator(sampleRate: rate, channels: 1, length: .duration(duration))
        #expect(tone.totalFrames == frames)
        let (samples, _) = try WAVTest.drain(&tone)
        #expect(Int64(samples.reduce(0) { $0 + $1.frameCount }) == frames)
    }

    @Test(arguments: [PCMSampleType.f32, .s16])
    func sineStartsAtPhaseZeroOnEveryChannel(type: PCMSampleType) throws {
        var tone = try ToneGenerator(
            .sine(frequency: 1000, amplitude: 0.9), channels: 6, sampleType: type, length: .frames(10))
        let sample = try #require(try tone.next())
        let frameBytes = 6 * type.bytesPerSample
        #expect(Array(sample.data.prefix(frameBytes)) == [UInt8](repeating: 0, count: frameBytes))
        // Frame 1 is non-zero and the same on all channels.
        let frame1 = Array(sample.data[frameBytes..<2 * frameBytes])
        #expect(frame1.contains { $0 != 0 })
        let first = Array(frame1.prefix(type.bytesPerSample))
        #expect(
            (0..<6).allSatisfy { Array(frame1[$0 * type.bytesPerSample..<($0 + 1) * type.bytesPerSample]) == first })
    }

    @Test(arguments: [440.0, 997.0, 1234.5, 19_999.75])
    func f32ValuesAreTheSineFormula(frequency: Double) throws {
        var tone = try ToneGenerator(
            .sine(frequency: frequency, amplitude: 0.8), channels: 1, length: .frames(48_000),
            framesPerSample: 1000)
        let values = Self.floats(try WAVTest.drain(&tone).bytes)
        #expect(values.count == 48_000)
        var worst = 0.0
        for (n, value) in values.enumerated() {
            let exact = 0.8 * sin(2 * Double.pi * frequency * Double(n) / 48_000)
            worst = max(worst, abs(Double(value) - exact))
        }
        #expect(worst < 1e-7)  // Float rounding of values below 1: at most 6e-8
    }

    @Test func s16ValuesAreRoundedAndNeverWrapAtFullScale() throws {
        // 12 kHz at 48 kHz, amplitude 1: 0, +full, 0, -full, ...
        var tone = try ToneGenerator(
            .sine(frequency: 12_000, amplitude: 1), channels: 1, sampleType: .s16, length: .frames(4000))
        let values = Self.int16s(try WAVTest.drain(&tone).bytes)
        #expect(values.max() == 32767)
        #expect(values.min() == -32767)
        #expect(Array(values.prefix(8)) == [0, 32767, 0, -32767, 0, 32767, 0, -32767])

        var full = try ToneGenerator(
            .sine(frequency: 1000, amplitude: 1), channels: 1, sampleType: .s16, length: .frames(48_000))
        let fullValues = Self.int16s(try WAVTest.drain(&full).bytes)
        var mismatches = 0
        for (n, value) in fullValues.enumerated() {
            let exact = sin(2 * Double.pi * 1000 * Double(n) / 48_000)
            let scaled = exact * 32767
            #expect(abs(Int(value) - Int(scaled.rounded())) <= 1)
            // Away from ties (sin = ±0.5 gives exactly ±16383.5, where 1e-16 decides), rounding is to nearest.
            let tie = abs(abs(scaled - scaled.rounded(.down)) - 0.5) < 1e-6
            if !tie && Int(value) != Int(scaled.rounded()) { mismatches += 1 }
            if exact > 0.01 { #expect(value > 0) }  // a wrapped value would flip sign
            if exact < -0.01 { #expect(value < 0) }
        }
        #expect(mismatches == 0)
    }

    @Test func peakLevelIsTheAmplitude() throws {
        var f32 = try ToneGenerator(.sine(frequency: 440, amplitude: 0.5), length: .frames(48_000))
        let floats = Self.floats(try WAVTest.drain(&f32).bytes)
        let peak = floats.map { abs($0) }.max() ?? 0
        #expect(abs(Double(peak) - 0.5) < 1e-6)
        #expect(abs(RawAudio.rms(floats) - 0.5 / 2.squareRoot()) < 1e-4)

        var s16 = try ToneGenerator(.sine(frequency: 440, amplitude: 0.5), sampleType: .s16, length: .frames(48_000))
        let ints = Self.int16s(try WAVTest.drain(&s16).bytes)
        let intPeak = ints.map { abs(Int($0)) }.max() ?? 0
        #expect((16_383...16_384).contains(intPeak))  // 0.5 × 32767 = 16383.5
    }

    @Test(arguments: [100, 1000, 5000, 15_000])
    func measuredFrequencyIsTheRequestedOne(frequency: Int) throws {
        var tone = try ToneGenerator(
            .sine(frequency: Double(frequency), amplitude: 0.5), sampleRate: 44_100,
            channels: 1, length: .frames(44_100))
        let values = Self.floats(try WAVTest.drain(&tone).bytes)
        // Rising zero crossings in one second: one per period.
        var rising = 0
        for i in 1..<values.count where values[i - 1] < 0 && values[i] >= 0 { rising += 1 }
        #expect(abs(rising - frequency) <= 1)
        let peak = RawAudio.spectralPeak(values, sampleRate: 44_100, low: frequency - 50, high: frequency + 50)
        #expect(peak.frequency == frequency)
        #expect(abs(peak.amplitude - 0.5) < 0.01)
    }

    @Test func splittingDoesNotChangeTheSignal() throws {
        for waveform in [
            ToneGenerator.Waveform.sine(frequency: 441.3, amplitude: 0.7), .noise(amplitude: 0.3, seed: 42)
        ] {
            for type in [PCMSampleType.f32, .s16] {
                var reference = try ToneGenerator(
                    waveform, sampleType: type, length: .frames(5000), framesPerSample: 5000)
                let expected = try WAVTest.drain(&reference).bytes
                for framesPerSample in [1, 255, 256, 1000, 4096] {
                    var tone = try ToneGenerator(
                        waveform, sampleType: type, length: .frames(5000), framesPerSample: framesPerSample)
                    #expect(
                        try WAVTest.drain(&tone).bytes == expected, "\(waveform) \(type) split by \(framesPerSample)")
                }
            }
        }
    }

    /// One second of stereo noise at amplitude 0.6.
    static func noise(seed: UInt64, _ type: PCMSampleType = .f32) throws -> [UInt8] {
        var tone = try ToneGenerator(
            .noise(amplitude: 0.6, seed: seed), channels: 2, sampleType: type, length: .frames(48_000))
        return try WAVTest.drain(&tone).bytes
    }

    @Test func noiseIsDeterministicPerSeedAndDiffersBetweenSeedsAndChannels() throws {
        let a = try Self.noise(seed: 1)
        #expect(try Self.noise(seed: 1) == a)
        #expect(try Self.noise(seed: 2) != a)
        #expect(try Self.noise(seed: 1, .s16) == (try Self.noise(seed: 1, .s16)))
        #expect(try Self.noise(seed: 1, .s16) != (try Self.noise(seed: 3, .s16)))
        let values = Self.floats(a)
        let left = stride(from: 0, to: values.count, by: 2).map { values[$0] }
        let right = stride(from: 1, to: values.count, by: 2).map { values[$0] }
        #expect(left != right)
        #expect(values.allSatisfy { $0 >= -0.6 && $0 <= 0.6 })
        let mean = values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
        #expect(abs(mean) < 0.01)
        #expect(abs(RawAudio.rms(values) - 0.6 / 3.squareRoot()) < 0.005)  // uniform: amplitude / √3
        // Uncorrelated channels.
        let correlation = zip(left, right).reduce(0.0) { $0 + Double($1.0) * Double($1.1) } / Double(left.count)
        #expect(abs(correlation) < 0.005)
    }

    @Test(arguments: [PCMSampleType.f32, .s16])
    func silenceIsZero(type: PCMSampleType) throws {
        var tone = try ToneGenerator(.silence, channels: 3, sampleType: type, length: .frames(3000))
        let (samples, bytes) = try WAVTest.drain(&tone)
        #expect(samples.count == 3)
        #expect(bytes.count == 3000 * 3 * type.bytesPerSample)
        #expect(bytes.allSatisfy { $0 == 0 })
    }

    @Test func unlimitedAndEmptyLengths() throws {
        var unlimited = try ToneGenerator(length: .unlimited, framesPerSample: 480)
        #expect(unlimited.totalFrames == nil)
        for index in 0..<50 {
            let sample = try #require(try unlimited.next())
            #expect(sample.frameCount == 480)
            #expect(sample.timing.presentationTime == MediaTime(value: Int64(index * 480), timescale: 48_000))
        }
        var empty = try ToneGenerator(length: .frames(0))
        #expect(empty.totalFrames == 0)
        #expect(try empty.next() == nil)
    }

    static let invalid: [(String, @Sendable () throws -> ToneGenerator)] = [
        ("0", { try ToneGenerator(sampleRate: 0, length: .unlimited) }),
        ("-44100", { try ToneGenerator(sampleRate: -44_100, length: .unlimited) }),
        ("0", { try ToneGenerator(channels: 0, length: .unlimited) }),
        ("9", { try ToneGenerator(channels: 9, length: .unlimited) }),
        ("0", { try ToneGenerator(length: .unlimited, framesPerSample: 0) }),
        ("24000.0 Hz", { try ToneGenerator(.sine(frequency: 24_000, amplitude: 0.5), length: .unlimited) }),
        ("-1.0 Hz", { try ToneGenerator(.sine(frequency: -1, amplitude: 0.5), length: .unlimited) }),
        ("nan Hz", { try ToneGenerator(.sine(frequency: .nan, amplitude: 0.5), length: .unlimited) }),
        ("inf Hz", { try ToneGenerator(.sine(frequency: .infinity, amplitude: 0.5), length: .unlimited) }),
        ("1.5", { try ToneGenerator(.sine(frequency: 440, amplitude: 1.5), length: .unlimited) }),
        ("-0.1", { try ToneGenerator(.noise(amplitude: -0.1, seed: 1), length: .unlimited) }),
        ("nan", { try ToneGenerator(.noise(amplitude: .nan, seed: 1), length: .unlimited) }),
        ("-1 frames", { try ToneGenerator(length: .frames(-1)) }),
        ("-0.5 s", { try ToneGenerator(length: .duration(MediaTime(value: -1, timescale: 2))) }),
        ("invalid", { try ToneGenerator(length: .duration(.invalid)) }),
        ("+inf", { try ToneGenerator(length: .duration(.positiveInfinity)) })
    ]

    @Test(arguments: 0..<invalid.count)
    func invalidArgumentsThrowNamingTheValue(index: Int) throws {
        let (value, make) = Self.invalid[index]
        let error = try #require(throws: MediaError.self) { _ = try make() }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains(value), "\(error.message)")
    }

    @Test(arguments: [PCMSampleType.u8, .s24, .s32, .f64])
    func otherSampleTypesAreUnsupported(type: PCMSampleType) throws {
        let error = try #require(throws: MediaError.self) {
            _ = try ToneGenerator(sampleType: type, length: .unlimited)
        }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains(type.rawValue))
    }

    /// An hour into a tone the phase is still exact: the oscillator's values there equal the formula
    /// evaluated in exact rational arithmetic (f = p / q Hz, phase = (p·n mod q·rate) / (q·rate) cycles).
    /// The frequencies are exact in binary except 1/3 Hz, whose Double error (2e-17 Hz) is negligible;
    /// a frequency like 1234.55 Hz is off by 5e-14 Hz as a Double, 2e-10 cycles after an hour.
    @Test(arguments: [(440, 1), (24_691, 16), (1, 3), (19_999, 1)])
    func noDriftAfterAnHour(numerator p: Int64, denominator q: Int64) throws {
        let rate: Int64 = 48_000
        let oscillator = SineOscillator(frequency: Double(p) / Double(q), amplitude: 1, sampleRate: Int(rate))
        let start: Int64 = 60 * 60 * rate + 17  // one hour in, off the anchor grid
        var worst = 0.0
        oscillator.render(from: start, count: 1000) { i, value in
            let n = start + Int64(i)
            let cycles = Double((p * n) % (q * rate)) / Double(q * rate)
            worst = max(worst, abs(value - sin(2 * Double.pi * cycles)))
        }
        // measured: sin(2πfn/rate) in Double is off by 2e-9 to 9e-8 here, a phase accumulator by 4e-9 to 3e-8
        #expect(worst < 1e-10)
    }
}
