import MediaCore
import Testing

@Suite(.timeLimit(.minutes(2))) struct MediaGraphTests {
    /// Whether the samples' decode times never go backwards.
    func isInterleaved(_ samples: [MediaSample]) -> Bool {
        zip(samples, samples.dropFirst()).allSatisfy {
            !($1.timing.effectiveDecodeTime < $0.timing.effectiveDecodeTime)
        }
    }

    @Test func twoBranchesInterleaveByDecodeTimeIntoOneSink() throws {
        var graph = MediaGraph()
        let audio = graph.addBranch("audio", source: ArraySource(audioPackets(seconds: 3)))
        let video = graph.addBranch("video", source: ArraySource(videoFrames(seconds: 3)))
        let sink = SampleCollector()
        graph.addSink(sink, tracks: [video, audio])
        let progress = try graph.runSynchronously()
        #expect(sink.formats == [videoFormat, audioFormat])
        #expect(sink.samples(track: 0).count == 90)
        #expect(sink.samples(track: 1).count == 3 * 48_000 / 1024)
        #expect(isInterleaved(sink.samples))
        #expect(sink.finishCount == 1)
        #expect(progress.sinks[0].samplesWritten == Int64(90 + 3 * 48_000 / 1024))
        #expect(progress.branches.map(\.name) == ["audio", "video"])
        // Pulled by media time, the two branches never let the queue grow past a few samples.
        #expect(progress.sinks[0].maxQueuedSamples <= 4)
    }

    @Test func fanOutFeedsEverySink() throws {
        var graph = MediaGraph()
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 1)))
        let first = SampleCollector()
        let second = SampleCollector()
        graph.addSink(first, input: audio)
        graph.addSink(second, tracks: [audio])
        try graph.runSynchronously()
        #expect(first.samples.count == 46)
        #expect(first.samples == second.samples)
        #expect(first.finishCount == 1 && second.finishCount == 1)
    }

    /// The test: a video branch that gives nothing for 5 s of media while audio keeps coming.
    @Test func aStalledBranchDoesNotGrowTheQueuePastTheBound() throws {
        var graph = MediaGraph()  // the default bound: 1024 samples or 2 s of media
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 10)))
        let stall = ClosureStage("Stall") { sample, _ in
            let t = sample.timing.presentationTime
            return (t >= MediaTime(value: 1, timescale: 1) && t < MediaTime(value: 6, timescale: 1)) ? [] : [sample]
        }
        let video = graph.addBranch(source: ArraySource(videoFrames(seconds: 10)), stages: [stall])
        let sink = SampleCollector()
        graph.addSink(sink, tracks: [audio, video])
        let progress = try graph.runSynchronously()
        // 2 s of 1024-frame packets at 48 kHz is 93.75 packets; the head waits until the span passes 2 s.
        let bound = 2 * 48_000 / 1024 + 2
        #expect(progress.sinks[0].maxQueuedSamples <= bound)
        #expect(progress.sinks[0].maxQueuedSamples >= 90)  // it did wait for the video, up to the bound
        #expect(sink.samples(track: 0).count == 10 * 48_000 / 1024)
        #expect(sink.samples(track: 1).count == 300 - 150)  // the 5 s the stage dropped are missing
    }

    @Test func aBranchThatNeverStartsStopsTheRunWithATypedError() throws {
        var graph = MediaGraph(interleaving: Interleaving(maxQueuedSamples: 50))  // 50 packets ≈ 1.07 s
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 5)))
        let video = graph.addBranch(source: ArraySource(videoFrames(seconds: 5)), stages: [ClosureStage { _, _ in [] }])
        let sink = SampleCollector()
        graph.addSink(sink, tracks: [audio, video])
        let error = try #require(throws: MediaError.self) { try graph.runSynchronously() }
        #expect(error.code == .stalled)
        #expect(error.message.contains("track 1"))
        #expect(sink.finishCount == 1)
    }

    @Test func aStageErrorNamesTheStageAndSampleAndFinishesTheSinks() throws {
        var graph = MediaGraph()
        let failing = ClosureStage("Exploder") { sample, index in
            if index == 7 { throw MediaError(.invalidData, "boom") }
            return [sample]
        }
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 1)), stages: [failing])
        let sink = SampleCollector()
        graph.addSink(sink, input: audio)
        let error = try #require(throws: MediaError.self) { try graph.runSynchronously() }
        #expect(error.stage == "Exploder")
        #expect(error.sampleIndex == 7)
        #expect(failing.counts.processCalls == 8)
        #expect(failing.counts.finishCalls == 0)  // nothing after a throw
        #expect(sink.samples.count == 7)
        #expect(sink.finishCount == 1)
    }

    @Test func aFailingSourceDrainsItsStagesAndTheOtherBranchRunsToTheEnd() throws {
        var graph = MediaGraph()
        let held = packets(count: 1, duration: 1, timescale: 30, format: videoFormat, startIndex: 500)
        let holder = ClosureStage("Holder", tail: { held }) { sample, _ in [sample] }
        let video = graph.addBranch(source: FailingArraySource(samples: videoFrames(seconds: 1)), stages: [holder])
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 3)))
        let sink = SampleCollector()
        graph.addSink(sink, tracks: [video, audio])
        let error = try #require(throws: MediaError.self) { try graph.runSynchronously() }
        #expect(error.code == .truncated)
        #expect(error.sampleIndex == 30)
        #expect(error.byteOffset == 4_000)
        #expect(holder.counts.finishCalls == 1)
        #expect(sink.samples(track: 0).count == 31)  // 30 frames and the one the stage held back
        #expect(sink.samples(track: 1).count == 3 * 48_000 / 1024)
        #expect(sink.finishCount == 1)
    }

    @Test func aGraphRunsOnce() throws {
        var graph = MediaGraph()
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 1)))
        graph.addSink(SampleCollector(), input: audio)
        try graph.runSynchronously()
        let error = try #require(throws: MediaError.self) { try graph.runSynchronously() }
        #expect(error.code == .stageFinished)
    }
}
