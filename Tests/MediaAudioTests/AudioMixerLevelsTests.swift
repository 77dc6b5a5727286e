import Foundation
import MediaAudio
import MediaTestSupport
import Testing

/// What the mixer says about levels: per-input meters after gain and mute, the mix's meter, and the
/// limiter that keeps the mix under its ceiling and lets go afterwards.
@Suite(.timeLimit(.minutes(1))) struct AudioMixerLevelsTests {
    static let rate = AudioMixerTests.rate

    /// A stereo sine of `amplitude` at `hertz` for `frames` frames, interleaved.
    static func sine(_ hertz: Double, amplitude: Float, frames: Int) -> [Float] {
        (0..<frames).flatMap { frame -> [Float] in
            let value = amplitude * Float(sin(2 * Double.pi * hertz * Double(frame) / Double(rate)))
            return [value, value]
        }
    }

    @Test func eachInputIsMeteredAfterItsGainAndTheMixAfterTheLimiter() throws {
        let voiceMeter = try LevelMeter()
        let mutedMeter = try LevelMeter()
        let mixMeter = try LevelMeter()
        let voice = AudioMixer.Input(
            source: ArraySource(
                AudioMixerTests.samples(Self.sine(1000, amplitude: 0.5, frames: Self.rate), framesPerSample: 960)),
            gain: 0.5, meter: voiceMeter)
        let muted = AudioMixer.Input(
            source: ArraySource(
                AudioMixerTests.samples(Self.sine(300, amplitude: 0.9, frames: Self.rate), framesPerSample: 960)),
            meter: mutedMeter)
        muted.controls.isMuted = true
        let mixer = try AudioMixer(
            sampleRate: Self.rate, channels: 2, meter: mixMeter, inputs: [voice, muted])
        _ = try AudioMixerTests.drain(mixer)
        for meter in [voiceMeter, mutedMeter, mixMeter] { meter.updateMeters() }
        // 0.5 × 0.5: a peak of −12.04 dBFS, an RMS of −15.05 dBFS on each channel.
        #expect(voiceMeter.channelCount == 2)
        #expect(abs(voiceMeter.peakPower(forChannel: 0) - -12.04) < 0.1, "\(voiceMeter.levelMeterStates)")
        #expect(abs(voiceMeter.averagePower(forChannel: 1) - -15.05) < 0.1, "\(voiceMeter.levelMeterStates)")
        #expect(mutedMeter.peakPower(forChannel: 0) == -160, "\(mutedMeter.levelMeterStates)")
        #expect(abs(mixMeter.peakPower(forChannel: 1) - -12.04) < 0.1, "\(mixMeter.levelMeterStates)")
        #expect(voice.controls.meter === voiceMeter)
    }

    @Test func theLimiterKeepsTheMixUnderItsCeilingAndLetsGoAfterwards() throws {
        // 0.5 s of two loud tones summing to a peak near 1.6, then 1 s of one quiet tone.
        let loud = Self.sine(440, amplitude: 0.8, frames: Self.rate / 2)
        let quiet = Self.sine(440, amplitude: 0.2, frames: Self.rate)
        func inputs() -> [AudioMixer.Input] {
            [
                AudioMixer.Input(source: ArraySource(AudioMixerTests.samples(loud + quiet, framesPerSample: 1000))),
                AudioMixer.Input(source: ArraySource(AudioMixerTests.samples(loud, framesPerSample: 1000)))
            ]
        }
        let plain = try AudioMixer(sampleRate: Self.rate, channels: 2, inputs: inputs())
        let unlimited = try AudioMixerTests.drain(plain)
        #expect(plain.clippedValues > 0 && plain.limitedFrames == 0)

        let limiter = AudioMixer.Limiter.ceiling(decibels: -1, release: .milliseconds(50))
        let mixer = try AudioMixer(sampleRate: Self.rate, channels: 2, limiter: limiter, inputs: inputs())
        let limited = try AudioMixerTests.drain(mixer)
        #expect(limited.count == unlimited.count)
        let peak = limited.map(abs).max() ?? 0
        #expect(peak <= Float(limiter.ceiling) + 1e-6, "peak \(peak)")
        #expect(peak > Float(limiter.ceiling) - 0.01, "the limiter lowered more than it had to: \(peak)")
        #expect(mixer.clippedValues == 0)
        #expect(mixer.limitedFrames >= Self.rate / 4, "\(mixer.limitedFrames) frames lowered")
        // 0.5 s (10 release time constants) after the loud part, the quiet tone is back at its own level.
        let after = Self.rate / 2 + Self.rate / 2
        let difference = zip(limited[(after * 2)...], unlimited[(after * 2)...]).map { abs($0 - $1) }.max() ?? 1
        #expect(difference < 1e-4, "still lowered by \(difference)")
        #expect(throws: MediaError.self) {
            try AudioMixer(sampleRate: Self.rate, channels: 2, limiter: AudioMixer.Limiter(ceiling: 1.5))
        }
    }
}
