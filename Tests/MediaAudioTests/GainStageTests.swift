import Foundation
import MediaAudio
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(5))) struct GainStageTests {
    let stereoSine = PlaybackSignals.tones([440], seconds: 1, channels: 2)

    /// Volume 0.5 is −6.02 dB, as sox measures the output against the input (peak and RMS).
    @Test func halfVolumeIsMinusSixDecibelsBySox() throws {
        let dir = try TemporaryDirectory()
        var stage = GainStage(volume: .volume(0.5))
        let out = PlaybackSignals.values(
            try PlaybackSignals.run(&stage, PlaybackSignals.samples(stereoSine, channels: 2)))
        #expect(out.count == stereoSine.count)
        let input = try PlaybackJudges.soxStats(stereoSine, channels: 2, in: dir)
        let output = try PlaybackJudges.soxStats(out, channels: 2, in: dir)
        for row in ["Pk lev dB", "RMS lev dB"] {
            let before = try #require(input[row]), after = try #require(output[row])
            for column in 0..<3 {
                #expect(
                    abs(after[column] - before[column] - (-6.02)) <= 0.05,
                    "\(row) column \(column): \(before) → \(after)")
            }
        }
    }

    /// Gain 1 hands the input on as it is: the same bytes, the same storage (no copy).
    @Test func unityIsBitExact() throws {
        var stage = GainStage()
        let inputs = PlaybackSignals.samples(stereoSine, channels: 2)
        let outputs = try PlaybackSignals.run(&stage, inputs)
        #expect(outputs == inputs)
        #expect(zip(outputs, inputs).allSatisfy { $0.sharesStorage(with: $1) })
    }

    /// A step from 1 to 0 on full-scale DC ramps over exactly 20 ms (960 frames), starting at the first
    /// frame of the buffer after the change, and no two frames differ by more than the ramp allows.
    @Test func stepChangeIsRampedWithoutClick() throws {
        let volume = AudioParameter.volume(1)
        var stage = GainStage(volume: volume)
        #expect(stage.rampFrames(sampleRate: 48_000) == 960)
        let dc = [Float](repeating: 1, count: 9_600 * 2)
        let out = PlaybackSignals.values(
            try PlaybackSignals.run(&stage, PlaybackSignals.samples(dc, channels: 2, sizes: [480])) { i in
                if i == 5 { volume.value = 0 }
            })
        let left = PlaybackSignals.channel(0, of: out, channels: 2)
        let jumps = zip(left, left.dropFirst()).map { abs($1 - $0) }
        #expect((jumps.max() ?? 1) <= 1.0 / 960 + 1e-6)
        #expect(left[2_399] == 1)  // last frame before the change
        #expect(abs(left[2_400] - (1 - 1.0 / 960)) < 1e-6)  // first frame of the ramp
        #expect(left[2_400 + 959] == 0 && left[2_400 + 958] > 0)  // reached after exactly 960 frames
        #expect(left.suffix(1_000).allSatisfy { $0 == 0 })
        #expect(stage.currentGain == 0)
    }

    /// On a sine, a step 1 → 0.25 adds to the signal's own slope no more than the ramp's.
    @Test func stepOnASineStaysWithinTheRampSlope() throws {
        let volume = AudioParameter.volume(1)
        var stage = GainStage(volume: volume, rampDuration: .milliseconds(10))
        let out = PlaybackSignals.values(
            try PlaybackSignals.run(&stage, PlaybackSignals.samples(stereoSine, channels: 2, sizes: [256])) { i in
                if i == 50 { volume.value = 0.25 }
            })
        let slope = zip(stereoSine, stereoSine.dropFirst(2)).map { abs($1 - $0) }.max() ?? 0
        let worst = zip(out, out.dropFirst(2)).map { abs($1 - $0) }.max() ?? 1
        #expect(worst <= slope + 0.75 * 0.5 / 480 + 1e-6)
        #expect(worst > 0)
    }

    /// Another thread (a UI's) moves the volume at random while the stage runs: every gain stays in
    /// 0…1 and no two frames of full-scale DC differ by more than the ramp allows.
    @Test func changesFromAnotherThreadStayClickFree() throws {
        let volume = AudioParameter.volume(1)
        let stop = AudioParameter(0, range: 0...1), stopped = AudioParameter(0, range: 0...1)
        Thread.detachNewThread {
            var state: UInt64 = 7
            while stop.value == 0 {
                state = state &* 6_364_136_223_846_793_005 &+ 1
                volume.value = Double(state >> 11) / Double(1 << 53)
                usleep(50)
            }
            stopped.value = 1
        }
        defer {
            stop.value = 1
            _ = poll { stopped.value == 1 }  // the mover has ended (bounded)
        }
        try waitUntil("the volume-moving thread to start") { volume.value != 1 }
        var stage = GainStage(volume: volume)
        var out: [Float] = []
        for sample in PlaybackSignals.samples([Float](repeating: 1, count: 48_000 * 2), channels: 2, sizes: [64]) {
            try stage.process(sample) { out += PlaybackSignals.values([$0]) }
            usleep(20)
        }
        let left = PlaybackSignals.channel(0, of: out, channels: 2)
        #expect(left.allSatisfy { $0 >= 0 && $0 <= 1 })
        let jumps: [Float] = zip(left, left.dropFirst()).map { abs($1 - $0) }
        let allowed: Float = 1.0 / 960 + 1e-6
        #expect((jumps.max() ?? 1) <= allowed)
        #expect(Set(left).count > 100)  // the volume did move
    }

    /// Planar input gets the same gains as interleaved.
    @Test func planarMatchesInterleaved() throws {
        let volume = AudioParameter.volume(0.8)
        var a = GainStage(volume: volume), b = GainStage(volume: volume)
        let change: (Int) -> Void = { i in if i == 3 { volume.value = 0.3 } }
        let interleaved = try PlaybackSignals.run(
            &a, PlaybackSignals.samples(stereoSine, channels: 2, sizes: [700]), beforeEach: change)
        volume.value = 0.8
        let planar = try PlaybackSignals.run(
            &b, PlaybackSignals.samples(stereoSine, channels: 2, sizes: [700], planar: true), beforeEach: change)
        #expect(PlaybackSignals.values(planar) == PlaybackSignals.values(interleaved))
        #expect(planar.first?.planeCount == 2)
    }

    /// Out-of-range volumes are clamped into 0…1, NaN is ignored, and the value can be set from another
    /// task (the control is Sendable).
    @Test func volumeIsClampedAndSettableFromAnotherTask() async {
        let volume = AudioParameter.volume(2)
        #expect(volume.value == 1)
        volume.value = -3
        #expect(volume.value == 0)
        volume.value = .nan
        #expect(volume.value == 0)
        await Task.detached { volume.value = 0.7 }.value
        #expect(volume.value == 0.7)
    }

    /// Anything but float32 PCM is refused with formatMismatch.
    @Test func refusesOtherFormats() throws {
        var stage = GainStage()
        let s16 = MediaSample(
            format: .audio(.pcm(.s16, sampleRate: 48_000, channels: 2)), data: [0, 0, 0, 0],
            timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 48_000), frameCount: 1)
        #expect { try stage.process(s16) { _ in } } throws: { ($0 as? MediaError)?.code == .formatMismatch }
        var short = PlaybackSignals.sample([0.5, 0.5][...], channels: 2, start: 0)
        short.frameCount = 4
        #expect { try stage.process(short) { _ in } } throws: { ($0 as? MediaError)?.code == .invalidData }
    }
}
