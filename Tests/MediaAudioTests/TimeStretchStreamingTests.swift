import MediaAudio
import MediaTestSupport
import Testing

/// TimeStretch as a player drives it: buffers of any size, rate changes between buffers, time mapping.
@Suite(.timeLimit(.minutes(5))) struct TimeStretchStreamingTests {
    static func contiguous(_ samples: [MediaSample], from start: MediaTime = .zero) -> Bool {
        var next = start
        for sample in samples {
            guard sample.timing.presentationTime == next,
                sample.timing.duration == MediaTime(value: Int64(sample.frameCount), timescale: 48_000)
            else { return false }
            next = next + sample.timing.duration
        }
        return true
    }

    /// The same input cut into different buffer sizes (1024; 37, 4096, 511; all at once) gives the
    /// same output, value for value, with contiguous timing.
    @Test(arguments: [1.25, 0.5])
    func outputDoesNotDependOnBufferSizes(rate: Double) throws {
        let signal = PlaybackSignals.speechLike(seconds: 1)
        var results: [[Float]] = []
        for sizes in [[1024], [37, 4_096, 511], [48_000]] {
            var stage = TimeStretch(rate: .rate(rate))
            let out = try PlaybackSignals.run(&stage, PlaybackSignals.samples(signal, channels: 1, sizes: sizes))
            #expect(Self.contiguous(out))
            results.append(PlaybackSignals.values(out))
        }
        #expect(results[1] == results[0] && results[2] == results[0])
        #expect(results[0].count == Int((Double(signal.count) / rate).rounded()))
    }

    /// 1 → 2 → 0.5 → 1 → 1.25 mid-stream on a sine: timing stays contiguous, the length is the sum of
    /// each stretch / its rate (± one window per change), no step between samples exceeds the input's
    /// largest by more than 10 % (no click at the changes), and the parts at rate 1 are the input, bit
    /// for bit, where the time map says.
    @Test func rateChangesKeepOutputContiguous() throws {
        let sine = PlaybackSignals.tones([440], seconds: 2.5)
        let rate = AudioParameter.rate(1)
        let stretcher = TimeStretch(rate: rate)
        var stage = stretcher
        let schedule: [Int: Double] = [20: 2, 40: 0.5, 60: 1, 90: 1.25]  // buffer index → rate
        let inputs = PlaybackSignals.samples(sine, channels: 1, sizes: [1_000])
        let out = try PlaybackSignals.run(&stage, inputs) { i in if let r = schedule[i] { rate.value = r } }
        #expect(Self.contiguous(out))
        let values = PlaybackSignals.values(out)
        let stretches: [(frames: Double, rate: Double)] = [
            (20_000, 1), (20_000, 2), (20_000, 0.5), (30_000, 1), (30_000, 1.25)
        ]
        let expected = stretches.reduce(0.0) { $0 + $1.frames / $1.rate }
        #expect(abs(Double(values.count) - expected) <= 4 * 1_200, "\(values.count) frames, expected \(expected)")
        #expect(values.allSatisfy { $0.isFinite })
        let step = { (x: [Float]) in zip(x, x.dropFirst()).map { abs($1 - $0) }.max() ?? 0 }
        #expect(step(values) <= step(sine) * 1.1)
        #expect(Array(values.prefix(20_000)) == Array(sine.prefix(20_000)))
        // Back at rate 1 (input 60 000 ..< 90 000), after the cross-fade: the input itself, bit for bit.
        let back = try #require(stretcher.sourceFrame(forOutputFrame: 80_000))
        #expect(back > 62_000 && back < 88_000 && back == back.rounded())
        let offset = Int(back) - 80_000
        #expect((80_000..<80_000 + 5_000).allSatisfy { values[$0] == sine[$0 + offset] })
        let f = PlaybackJudges.peakFrequency(values, low: 100, high: 4_000)
        #expect(abs(f - 440) / 440 < 0.01)
    }

    /// At rate 2 output frame n plays input frame 2n, and output time t plays input time 2t, counted
    /// from the first input's time (here 10 s: a player that seeked).
    @Test func outputTimeMapsToInputTime() throws {
        let stage = TimeStretch(rate: .rate(2))
        let signal = PlaybackSignals.tones([440], seconds: 1)
        var out: [MediaSample] = []
        for var sample in PlaybackSignals.samples(signal, channels: 1) {
            sample.timing.presentationTime = sample.timing.presentationTime + MediaTime(value: 10, timescale: 1)
            try stage.process(sample) { out.append($0) }
        }
        try stage.finish { out.append($0) }
        #expect(Self.contiguous(out, from: MediaTime(value: 10, timescale: 1)))
        #expect(stage.outputFramesEmitted == 24_000 && stage.inputFramesReceived == 48_000)
        #expect(stage.sourceFrame(forOutputFrame: 12_000) == 24_000)
        #expect(
            stage.sourceTime(forOutputTime: MediaTime(value: 21, timescale: 2)) == MediaTime(value: 11, timescale: 1))
    }

    /// After a stretch and a return to rate 1, the mapping rejoins the input (within the search radius)
    /// and then advances one input frame per output frame.
    @Test func mappingFollowsRateChanges() throws {
        let rate = AudioParameter.rate(1)
        let stage = TimeStretch(rate: rate)
        var driven = stage
        let inputs = PlaybackSignals.samples(PlaybackSignals.tones([440], seconds: 1), channels: 1, sizes: [4_800])
        _ = try PlaybackSignals.run(&driven, inputs) { i in rate.value = (2...4).contains(i) ? 0.5 : 1 }
        let halfSpeed: Double = 9_600 + 4_800 / 2
        #expect(stage.sourceFrame(forOutputFrame: 9_600) == Double(9_600))  // before the change
        #expect(stage.sourceFrame(forOutputFrame: 9_600 + 4_800) == halfSpeed)  // half speed
        let last = stage.outputFramesEmitted
        let end = try #require(stage.sourceFrame(forOutputFrame: last))
        #expect(abs(end - 48_000) <= Double(TimeStretch.searchRadiusFrames(sampleRate: 48_000)))
        #expect(stage.sourceFrame(forOutputFrame: last - 100) == end - 100)
    }

    /// In steady state the output sample's buffer is reused when the consumer let go of the last one
    /// (the first outputs may grow it: output comes in whole hops, 1200 or 1800 frames here).
    @Test func outputBuffersAreRecycled() throws {
        let stage = TimeStretch(rate: .rate(1.5))
        // Whether each output's buffer is the previous output's, by identity: a weak reference to the
        // previous buffer is set only if it was never freed (an address could be malloc's reuse).
        weak var previous: AnyObject?
        var reused: [Bool] = []
        for sample in PlaybackSignals.samples(PlaybackSignals.tones([440], seconds: 1), channels: 1, sizes: [2_048]) {
            try stage.process(sample) { out in
                let buffer = ArrayBuffer.object(of: out.data)
                reused.append(buffer != nil && previous === buffer)
                previous = buffer
            }
        }
        #expect(reused.count > 10)
        #expect(reused.suffix(15).allSatisfy { $0 }, "\(reused)")  // after the first few, which grow the buffer
    }
}
