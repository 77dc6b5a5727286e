import MediaAudio
import MediaTestSupport
import Testing

// The limit catches a hang (a DSP loop that never ends), not slowness: the suites take about 16 s under
// ThreadSanitizer alone, but in the fresh-clone CI's parallel TSan run on two cores they waited past one
// minute behind the heavier suites (2026-11-25), so the limit is five.
@Suite(.timeLimit(.minutes(5))) struct PanStageTests {
    /// Left 440 Hz, right 660 Hz: a stereo signal whose sides differ.
    let stereo: [Float] = {
        let left = PlaybackSignals.tones([440], seconds: 1),
            right = PlaybackSignals.tones([660], seconds: 1, amplitude: 0.4)
        return zip(left, right).flatMap { [$0, $1] }
    }()

    /// Pan −1: sox measures the right channel below −60 dBFS; the left is unchanged, bit for bit.
    @Test func fullLeftSilencesTheRightBySox() throws {
        let dir = try TemporaryDirectory()
        var stage = PanStage(pan: .pan(-1))
        let out = PlaybackSignals.values(try PlaybackSignals.run(&stage, PlaybackSignals.samples(stereo, channels: 2)))
        let stats = try PlaybackJudges.soxStats(out, channels: 2, in: dir)
        let rms = try #require(stats["RMS lev dB"]), peak = try #require(stats["Pk lev dB"])
        #expect(rms[2] < -60 && peak[2] < -60)
        #expect(abs(peak[1] - (-6.02)) < 0.05)
        #expect(PlaybackSignals.channel(0, of: out, channels: 2) == PlaybackSignals.channel(0, of: stereo, channels: 2))
    }

    /// Pan 0 hands the input on as it is.
    @Test func centreIsBitExact() throws {
        var stage = PanStage()
        let inputs = PlaybackSignals.samples(stereo, channels: 2)
        let outputs = try PlaybackSignals.run(&stage, inputs)
        #expect(outputs == inputs)
        #expect(zip(outputs, inputs).allSatisfy { $0.sharesStorage(with: $1) })
    }

    /// Pan +1 mirrors pan −1: the left is silent, the right unchanged.
    @Test func fullRightMirrorsFullLeft() throws {
        var stage = PanStage(pan: .pan(1))
        let out = PlaybackSignals.values(try PlaybackSignals.run(&stage, PlaybackSignals.samples(stereo, channels: 2)))
        #expect(PlaybackSignals.channel(0, of: out, channels: 2).allSatisfy { $0 == 0 })
        #expect(PlaybackSignals.channel(1, of: out, channels: 2) == PlaybackSignals.channel(1, of: stereo, channels: 2))
    }

    /// The law between the ends: the far side at 1 − |pan|, the near side unchanged.
    @Test func balanceLaw() {
        #expect(PanStage.gains(pan: -0.25) == (1, 0.75))
        #expect(PanStage.gains(pan: 0.5) == (0.5, 1))
        #expect(PanStage.gains(pan: 0) == (1, 1))
        #expect(PanStage.gains(pan: -7) == (1, 0))
    }

    /// A jump of the pan from 0 to −1 fades the right out over 20 ms, frame by frame.
    @Test func changeIsRamped() throws {
        let pan = AudioParameter.pan(0)
        var stage = PanStage(pan: pan)
        let dc = [Float](repeating: 0.9, count: 4_800 * 2)
        let out = PlaybackSignals.values(
            try PlaybackSignals.run(&stage, PlaybackSignals.samples(dc, channels: 2, sizes: [512])) { i in
                if i == 2 { pan.value = -1 }
            })
        let right = PlaybackSignals.channel(1, of: out, channels: 2)
        let steps: [Float] = zip(right, right.dropFirst()).map { (a: Float, b: Float) -> Float in abs(b - a) }
        let largestStep: Float = steps.max() ?? 1
        #expect(largestStep <= 0.9 / 960 + 1e-6)
        #expect(right[1_023] == 0.9 && right[1_024 + 959] == 0)
        #expect(PlaybackSignals.channel(0, of: out, channels: 2).allSatisfy { $0 == 0.9 })
        #expect(stage.currentPan == -1)
    }

    /// Mono and 6-channel input pass unchanged, whatever the pan (documented: no image to balance).
    @Test func otherChannelCountsPassUnchanged() throws {
        for channels in [1, 6] {
            var stage = PanStage(pan: .pan(-1))
            let inputs = PlaybackSignals.samples(
                PlaybackSignals.tones([440], seconds: 0.1, channels: channels), channels: channels)
            #expect(try PlaybackSignals.run(&stage, inputs) == inputs)
        }
    }

    /// Planar stereo is balanced like interleaved.
    @Test func planarMatchesInterleaved() throws {
        var a = PanStage(pan: .pan(0.6)), b = PanStage(pan: .pan(0.6))
        let interleaved = try PlaybackSignals.run(&a, PlaybackSignals.samples(stereo, channels: 2))
        let planar = try PlaybackSignals.run(&b, PlaybackSignals.samples(stereo, channels: 2, planar: true))
        #expect(PlaybackSignals.values(planar) == PlaybackSignals.values(interleaved))
    }

    /// Anything but float32 PCM is refused with formatMismatch.
    @Test func refusesOtherFormats() throws {
        var stage = PanStage()
        let s16 = MediaSample(
            format: .audio(.pcm(.s16, sampleRate: 48_000, channels: 2)), data: [0, 0, 0, 0],
            timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 48_000), frameCount: 1)
        #expect { try stage.process(s16) { _ in } } throws: { ($0 as? MediaError)?.code == .formatMismatch }
    }
}
