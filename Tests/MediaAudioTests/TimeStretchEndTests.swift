import MediaAudio
import MediaTestSupport
import Testing

/// How TimeStretch ends: whatever state the input leaves it in, `finish` owes input / rate frames.
// The limit catches a hang (a DSP loop that never ends), not slowness: the suites take about 16 s under
// ThreadSanitizer alone, but in the fresh-clone CI's parallel TSan run on two cores they waited past one
// minute behind the heavier suites (2026-11-25), so the limit is five.
@Suite(.timeLimit(.minutes(5))) struct TimeStretchEndTests {
    /// Inputs shorter than the first window: 100 frames at 0.5 give 200, at 2 give 50; none give none.
    @Test(arguments: [(0.5, 200), (2.0, 50), (1.25, 80)])
    func inputShorterThanAWindow(rate: Double, expected: Int) throws {
        var stage = TimeStretch(rate: .rate(rate))
        let out = try PlaybackSignals.run(
            &stage, PlaybackSignals.samples(PlaybackSignals.tones([440], seconds: 100.0 / 48_000), channels: 1))
        #expect(PlaybackSignals.values(out).count == expected)
        #expect(stage.sourceFrame(forOutputFrame: Int64(expected)) == Double(100))  // the end maps to the end
        #expect(stage.sourceFrame(forOutputFrame: Int64(expected) + 1) == nil)
        #expect(out.first?.timing.presentationTime == .zero)
        var empty = TimeStretch(rate: .rate(rate))
        #expect(try PlaybackSignals.run(&empty, []).isEmpty)
    }

    /// The input ends just after the rate went back to 1, before the cross-fade out of stretching
    /// had the input it needs: the output still covers the input exactly up to its end (the time map
    /// says the frame after the last plays input frame 40 300), contiguous and finite. Its length is
    /// the ideal 40 000 / 2 + 300 plus what the change's latency adds: the input still ahead of the
    /// stretcher when the rate changed (at most the 35 ms lookahead) plays at rate 1, and the
    /// cross-fade back (one hop) and the last segment's search offset add at most a hop and the radius.
    @Test func inputEndingWhileLeavingTheStretch() throws {
        let rate = AudioParameter.rate(2)
        let stage = TimeStretch(rate: rate)
        var driven = stage
        let sizes = Array(repeating: 4_000, count: 10) + [300]
        let inputs = PlaybackSignals.samples(
            PlaybackSignals.tones([440], seconds: 40_300.0 / 48_000), channels: 1, sizes: sizes)
        let out = try PlaybackSignals.run(&driven, inputs) { i in if i == 10 { rate.value = 1 } }
        let values = PlaybackSignals.values(out)
        let extra = values.count - (20_000 + 300)
        let bound =
            TimeStretch.lookaheadFrames(sampleRate: 48_000) / 2 + TimeStretch.hopFrames(sampleRate: 48_000)
            + TimeStretch.searchRadiusFrames(sampleRate: 48_000)
        #expect(extra >= 0 && extra <= bound, "\(values.count) frames")
        #expect(stage.sourceFrame(forOutputFrame: Int64(values.count)) == Double(40_300))
        #expect(TimeStretchStreamingTests.contiguous(out))
        #expect(values.allSatisfy { $0.isFinite && abs($0) <= 0.5 })
    }

    /// Input without a presentation time: output time starts at 0.
    @Test func untimedInputStartsAtZero() throws {
        let stage = TimeStretch(rate: .rate(0.5))
        var sample = PlaybackSignals.sample(PlaybackSignals.tones([440], seconds: 0.1)[...], channels: 1, start: 0)
        sample.timing = .invalid
        var out: [MediaSample] = []
        try stage.process(sample) { out.append($0) }
        try stage.finish { out.append($0) }
        #expect(TimeStretchStreamingTests.contiguous(out))
        #expect(PlaybackSignals.values(out).count == 9_600)
    }
}
