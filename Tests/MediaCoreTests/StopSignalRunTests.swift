import MediaCore
import MediaTestSupport
import Synchronization
import Testing

/// One-byte samples 0, 1, 2, … for ever.
private struct Endless: MediaSource {
    var index = 0
    mutating func next() throws -> MediaSample? {
        defer { index += 1 }
        return MediaSample(
            format: .audio(.pcm(PCMFormat(.u8), sampleRate: 8000, channels: 1)),
            data: [UInt8(truncatingIfNeeded: index)],
            timing: .audio(startFrame: Int64(index), frameCount: 1, sampleRate: 8000), frameCount: 1)
    }
}

/// Holds one sample back until finish, as an encoder holds its delay.
private struct HoldOne: MediaStage {
    var held: MediaSample?
    mutating func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        if let held { try emit(held) }
        held = sample
    }
    mutating func finish(into emit: (MediaSample) throws -> Void) throws {
        if let held { try emit(held) }
        held = nil
    }
}

/// Counts samples and finishes; `Sendable`, so a graph's threads can write it and the test read it.
private final class Tally: MediaSink, Sendable {
    let written = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    func write(_ sample: MediaSample) throws { written.add(1, ordering: .relaxed) }
    func finish() throws { finished.add(1, ordering: .relaxed) }
}

/// Every run mode has a stop signal: asked to stop, a run over an endless source stops reading,
/// drains its stages, finishes its sink once, and returns the progress so far instead of throwing.
@Suite(.timeLimit(.minutes(1))) struct StopSignalRunTests {
    @Test(arguments: [false, true])
    func aPipelineStopsDrainsAndReturnsItsProgress(concurrently: Bool) throws {
        let tally = Tally()
        let stop = StopSignal()
        var pipeline = Pipeline(source: Endless(), stages: [HoldOne(), HoldOne()], sink: tally)
        let report: (Pipeline.Progress) -> Void = { if $0.samplesRead == 100 { stop.request() } }
        let progress =
            concurrently
            ? try pipeline.runConcurrently(queueDepth: 4, stop: stop, progress: report)
            : try pipeline.run(stop: stop, progress: report)
        #expect(progress.samplesRead == 100)
        // Both held-back samples were drained into the sink before it finished.
        #expect(tally.written.load(ordering: .relaxed) == 100)
        #expect(progress.samplesWritten == 100)
        #expect(tally.finished.load(ordering: .relaxed) == 1)
    }

    @Test func theAsyncGraphRunReturnsItsProgressWhenStopped() async throws {
        let tally = Tally()
        let stop = StopSignal()
        var graph = MediaGraph()
        let branch = graph.addBranch(source: Endless(), stages: [HoldOne()])
        graph.addSink(tally, input: branch)
        let run = Task { try await graph.run(stop: stop) }
        let flowing = await pollAsync(every: .milliseconds(5)) { tally.written.load(ordering: .relaxed) >= 1000 }
        stop.request()
        let progress = try await run.value
        #expect(flowing)
        #expect(progress.branches[0].samplesRead >= 1000)
        #expect(progress.sinks[0].samplesWritten == progress.branches[0].samplesRead)
        #expect(tally.finished.load(ordering: .relaxed) == 1)
    }
}
