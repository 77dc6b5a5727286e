import Foundation
import MediaAudio
import Testing

/// The stage's contract: pass-through, deterministic however the input is split, resets on a new
/// channel count, refuses what it cannot meter.
@Suite(.timeLimit(.minutes(2))) struct LevelMeterStreamTests {
    /// 1.3 s of stereo noise at two levels, as s24 planar and as f32: fed whole, in random-sized
    /// pieces, and frame by frame for the first 2 000 frames, the readings are identical bit for bit at
    /// the same frame positions and after `finish`.
    @Test func sameAudioSplitDifferentlyReadsTheSame() throws {
        let frames = 62_400
        let channels = [
            TestSignal.noise(amplitude: 0.7, frames: frames, seed: 1),
            TestSignal.noise(amplitude: 0.05, frames: frames, seed: 2)
        ]
        var generator = SystemRandomNumberGenerator()
        var randomSplits: [Int] = []
        var position = 0
        while position < frames {
            position += Int.random(in: 1...1_500, using: &generator)
            randomSplits.append(position)
        }
        let splits: [[Int]] = [[], randomSplits, Array(1..<2_000) + [24_000, 24_001, 50_000]]
        for format in [PCMFormat(.s24, interleaved: false), PCMFormat.f32] {
            var results: [[[LevelMeterState]]] = []
            for cuts in splits {
                // Readings at every 4 800th frame (a multiple of the 480-frame block) and after finish.
                let checkpoints = stride(from: 4_800, through: frames, by: 4_800).map { $0 }
                let meter = try LevelMeter()
                let stage = CheckedStage(meter.stage)
                var readings: [[LevelMeterState]] = []
                let pieces = TestSignal.samples(channels, format: format, splits: Set(cuts + checkpoints).sorted())
                var fed = 0
                for piece in pieces {
                    try stage.process(piece) { _ in }
                    fed += piece.frameCount
                    if checkpoints.contains(fed) {
                        meter.updateMeters()
                        readings.append(meter.levelMeterStates)
                    }
                }
                try stage.finish { _ in }
                meter.updateMeters()
                readings.append(meter.levelMeterStates)
                results.append(readings)
            }
            #expect(results[0].count == 14)
            #expect(results[1] == results[0], "\(format): random pieces")
            #expect(results[2] == results[0], "\(format): frame by frame")
            #expect(results[0].last?[0] != results[0].last?[1])
        }
    }

    /// Samples leave the stage unchanged (the same storage), and the ones the meter cannot take are
    /// refused with the documented codes.
    @Test func passesThroughAndRefusesWhatItCannotMeter() throws {
        let meter = try LevelMeter()
        let stage = CheckedStage(meter.stage)
        let input = TestSignal.sample([TestSignal.noise(amplitude: 0.5, frames: 1_000, seed: 3)], format: .s16)
        var emitted: [MediaSample] = []
        try stage.process(input) { emitted.append($0) }
        #expect(emitted.count == 1)
        #expect(emitted.first?.sharesStorage(with: input) == true)
        #expect(stage.name == "LevelMeter")

        let aac = MediaSample(
            format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])),
            data: [1, 2, 3], timing: .audio(startFrame: 0, frameCount: 1_024, sampleRate: 48_000), frameCount: 1_024)
        #expect {
            var fresh = meter.stage; try fresh.process(aac) { _ in }
        } throws: { ($0 as? MediaError)?.code == .formatMismatch }
        var short = input
        short.frameCount = 2_000
        #expect {
            var fresh = meter.stage; try fresh.process(short) { _ in }
        } throws: { ($0 as? MediaError)?.code == .invalidData }
        var huge = input
        huge.frameCount = Int.max / 2
        #expect {
            var fresh = meter.stage; try fresh.process(huge) { _ in }
        } throws: { ($0 as? MediaError)?.code == .invalidData }
        for (channels, code) in [(0, MediaError.Code.invalidData), (2_000, .unsupportedFormat)] {
            let odd = MediaSample(
                format: .audio(.pcm(.s16, sampleRate: 48_000, channelLayout: .unspecified(channels))), data: [],
                timing: .audio(startFrame: 0, frameCount: 0, sampleRate: 48_000), frameCount: 0)
            #expect {
                var fresh = meter.stage; try fresh.process(odd) { _ in }
            } throws: { ($0 as? MediaError)?.code == code }
        }
        #expect(throws: MediaError.self) { try LevelMeter(configuration: .init(averagingWindow: .milliseconds(5))) }
        #expect { try LevelMeter(configuration: .init(peakDecayRate: -1)) } throws: {
            ($0 as? MediaError)?.code == .invalidArgument
        }
    }

    /// A new channel count mid-stream resets the meter: nothing of the loud stereo part is held in
    /// the mono part, and the readers see the new count after `updateMeters()`.
    @Test func newChannelCountResetsTheMeter() throws {
        let meter = try LevelMeter()
        let stage = CheckedStage(meter.stage)
        let loud = Array(repeating: 0.9, count: 24_000)
        try stage.process(TestSignal.sample([loud, loud], format: .f32)) { _ in }
        meter.updateMeters()
        #expect(meter.channelCount == 2)
        try stage.process(TestSignal.sample([Array(repeating: 0.0, count: 480)], format: .s16)) { _ in }
        #expect(meter.channelCount == 2)  // not until updateMeters
        meter.updateMeters()
        #expect(meter.channelCount == 1)
        #expect(meter.peakPower(forChannel: 0) == -160)
        #expect(meter.averagePower(forChannel: 0) == -160)
        #expect(meter.peakPower(forChannel: 1) == -160)
    }

    /// Frames trimmed at the start or end are not metered; `finish` closes the last short block.
    @Test func trimmedFramesAreSkippedAndFinishClosesTheLastBlock() throws {
        var sample = TestSignal.sample(
            [Array(repeating: 1.0, count: 100) + Array(repeating: 0.25, count: 300)], format: PCMFormat(.s32))
        sample.trimAtStart = 100
        let meter = try TestSignal.metered([sample])
        #expect(meter.channelCount == 1)
        #expect(meter.peakPower(forChannel: 0) == -160)  // 300 frames: the 480-frame block is not complete
        let finished = try TestSignal.metered([sample], finish: true)
        #expect(abs(finished.peakPower(forChannel: 0) - -12.04) < 0.01)
        #expect(abs(finished.averagePower(forChannel: 0) - -12.04) < 0.01)
    }
}
