import MediaCore
import Testing

/// A source that never ends: 1024-frame packets at 48 kHz, for as long as it is asked.
struct EndlessSource: MediaSource {
    var index = 0
    mutating func next() throws -> MediaSample? {
        defer { index += 1 }
        return packets(count: 1, duration: 1024, timescale: 48_000, format: audioFormat, startIndex: index)[0]
    }
}

@Suite struct MediaGraphThreadedTests {
    /// The same graph as the synchronous test, run on threads: the same samples per track, in
    /// decode-time order within each track, and a complete interleaved output.
    @Test func threadedRunWritesWhatTheSynchronousRunWrites() throws {
        func build(_ sink: SampleCollector) -> MediaGraph {
            var graph = MediaGraph()
            let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 5)), stages: [ClosureStage { s, _ in [s] }])
            let video = graph.addBranch(source: ArraySource(videoFrames(seconds: 5)))
            graph.addSink(sink, tracks: [audio, video])
            return graph
        }
        let synchronous = SampleCollector()
        try build(synchronous).run()
        let threaded = SampleCollector()
        let progress = try build(threaded).runThreaded(queueDepth: 4)
        #expect(threaded.samples(track: 0) == synchronous.samples(track: 0))
        #expect(threaded.samples(track: 1) == synchronous.samples(track: 1))
        #expect(threaded.finishCount == 1)
        #expect(progress.sinks[0].samplesWritten == Int64(synchronous.samples.count))
        #expect(progress.sinks[0].maxQueuedSamples <= 1024)
    }

    @Test func threadedStageErrorIsStampedAndTheSinkFinished() throws {
        var graph = MediaGraph()
        let failing = ClosureStage("Exploder") { sample, index in
            if index == 20 { throw MediaError(.invalidData, "boom") }
            return [sample]
        }
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 2)), stages: [failing])
        let video = graph.addBranch(source: ArraySource(videoFrames(seconds: 2)))
        let sink = SampleCollector()
        graph.addSink(sink, tracks: [audio, video])
        let error = try #require(throws: MediaError.self) { try graph.runThreaded() }
        #expect(error.stage == "Exploder")
        #expect(error.sampleIndex == 20)
        #expect(failing.counts.finishCalls == 0)
        #expect(sink.finishCount == 1)
        #expect(sink.samples(track: 0).count <= 20)
    }

    @Test func stopSignalDrainsAndFinishes() throws {
        var graph = MediaGraph()
        let held = packets(count: 1, duration: 1024, timescale: 48_000, format: audioFormat, startIndex: 99_999)
        let holder = ClosureStage("Holder", tail: { held }) { s, _ in [s] }
        let audio = graph.addBranch(source: EndlessSource(), stages: [holder])
        let sink = SampleCollector()
        graph.addSink(sink, input: audio)
        let stop = StopSignal()
        var reports = 0
        try graph.runThreaded(stop: stop) { progress in
            reports += 1
            if progress.branches[0].samplesRead > 500 { stop.request() }
        }
        #expect(holder.counts.finishCalls == 1)
        #expect(sink.finishCount == 1)
        #expect(sink.samples.last == held[0])  // what the stage held back was drained into the sink
        #expect(sink.samples.count > 500)
        #expect(reports >= 1)
    }

    /// The contract: cancelling the task stops the sources, drains the stages, finishes every
    /// sink, and then throws CancellationError.
    @Test func cancellingTheTaskFinishesEverySinkThenThrowsCancellationError() async throws {
        var graph = MediaGraph()
        let held = packets(count: 1, duration: 1024, timescale: 48_000, format: audioFormat, startIndex: 99_999)
        let holder = ClosureStage("Holder", tail: { held }) { s, _ in [s] }
        let audio = graph.addBranch(source: EndlessSource(), stages: [holder])
        let video = graph.addBranch(source: ArraySource(videoFrames(seconds: 1_000)))
        let sink = SampleCollector()
        let second = SampleCollector()
        graph.addSink(sink, tracks: [audio, video])
        graph.addSink(second, input: audio)
        let task = Task { try await graph.run() }
        while second.samples.count < 200 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(holder.counts.finishCalls == 1)
        #expect(sink.finishCount == 1)
        #expect(second.finishCount == 1)
        #expect(second.samples.last == held[0])
        #expect(sink.samples(track: 0).last == held[0])
    }

    @Test func asyncRunCompletesAndReturnsCounts() async throws {
        var graph = MediaGraph()
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 2)))
        let sink = SampleCollector()
        graph.addSink(sink, input: audio)
        let progress = try await graph.run()
        #expect(progress.sinks[0].samplesWritten == Int64(2 * 48_000 / 1024))
        #expect(sink.samples == audioPackets(seconds: 2))
    }
}
