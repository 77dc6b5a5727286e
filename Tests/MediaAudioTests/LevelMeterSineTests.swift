import Foundation
import MediaAudio
import Testing

/// The figures the issue gives: a full-scale sine reads 0.0 dB peak and −3.01 dB average, a −20 dBFS
/// sine −20.0 and −23.0 (±0.05 dB), with the default configuration, in every sample type and layout.
@Suite(.timeLimit(.minutes(2))) struct LevelMeterSineTests {
    static let layouts: [PCMFormat] = PCMSampleType.allCases.flatMap {
        [PCMFormat($0), PCMFormat($0, interleaved: false)]
    }

    /// One second of stereo sine at 1 kHz / 48 kHz (samples hit the crest exactly) and at 997 Hz /
    /// 44.1 kHz (they never do; the nearest is within 0.03 dB of it).
    @Test(arguments: layouts, [(48_000, 1_000.0), (44_100, 997.0)])
    func sineFiguresInEveryLayout(format: PCMFormat, tone: (rate: Int, frequency: Double)) throws {
        for (amplitude, peak, average) in [(1.0, 0.0, -3.0103), (0.1, -20.0, -23.0103)] {
            let wave = TestSignal.sine(
                amplitude: amplitude, frequency: tone.frequency, sampleRate: tone.rate, frames: tone.rate)
            let sample = TestSignal.sample([wave, wave], format: format, sampleRate: tone.rate)
            let meter = try TestSignal.metered([sample])
            // u8 holds a −20 dBFS sine as ±12.8 steps of 1/128: its largest stored value is 13 steps
            // (−19.87 dBFS), so the stored audio's own peak is only known to half a step (0.34 dB).
            let peakTolerance = format.sampleType == .u8 && amplitude < 1 ? 0.35 : 0.05
            #expect(meter.channelCount == 2)
            for channel in 0..<2 {
                let readPeak = Double(meter.peakPower(forChannel: channel))
                let readAverage = Double(meter.averagePower(forChannel: channel))
                #expect(
                    abs(readPeak - peak) <= peakTolerance,
                    "\(format) \(tone) amplitude \(amplitude) channel \(channel): peak \(readPeak)")
                #expect(
                    abs(readAverage - average) <= 0.05,
                    "\(format) \(tone) amplitude \(amplitude) channel \(channel): average \(readAverage)")
                let linear = meter.levelMeterState(forChannel: channel)
                #expect(abs(Double(linear.averagePower) - amplitude / 2.0.squareRoot()) <= amplitude * 0.006)
            }
        }
    }

    /// Two channels at different levels read independently: −6.02/−9.03 dB left, −40/−43.01 dB right.
    @Test(arguments: [PCMFormat.s16, PCMFormat(.f32, interleaved: false)])
    func stereoChannelsAtDifferentLevels(format: PCMFormat) throws {
        let left = TestSignal.sine(amplitude: 0.5, frequency: 1_000, sampleRate: 48_000, frames: 48_000)
        let right = TestSignal.sine(amplitude: 0.01, frequency: 440, sampleRate: 48_000, frames: 48_000)
        let meter = try TestSignal.metered([TestSignal.sample([left, right], format: format)])
        #expect(abs(meter.peakPower(forChannel: 0) - -6.02) <= 0.05)
        #expect(abs(meter.averagePower(forChannel: 0) - -9.03) <= 0.05)
        #expect(abs(meter.peakPower(forChannel: 1) - -40.0) <= 0.05)
        #expect(abs(meter.averagePower(forChannel: 1) - -43.01) <= 0.05)
        #expect(meter.peakPower(forChannel: 2) == -160)
        #expect(meter.averagePower(forChannel: -1) == -160)
    }
}
