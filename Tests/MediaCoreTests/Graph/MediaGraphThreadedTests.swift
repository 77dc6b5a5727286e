import MediaCore
import MediaTestSupport
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// A source that never ends: 1024-frame packets at 48 kHz, for as long as it is asked.
struct EndlessSource: MediaSource {
    var index = 0
    mutating func next() throws -> MediaSample? {
        defer { index += 1 }
        return packets(count: 1, duration: 1024, timescale: 48_000, format: audioFormat, startIndex: index)[0]
    }
}

@Suite(.timeLimit(.minutes(2))) struct MediaGraphThreadedTests {
    /// The same graph as the synchronous test, run on threads: the same samples per track, in
    /// decode-time order within each track, and a complete interleaved output.
    /// Five seconds of audio (through a pass-through stage) and video into `sink`.
    static func build(_ sink: SampleCollector) -> MediaGraph {
        var graph = MediaGraph()
        let audio = graph.addBranch(
            source: ArraySource(audioPackets(seconds: 5)), stages: [ClosureStage { s, _ in [s] }])
        let video = graph.addBranch(source: ArraySource(videoFrames(seconds: 5)))
        graph.addSink(sink, tracks: [audio, video])
        return graph
    }

    @Test func threadedRunWritesWhatTheSynchronousRunWrites() throws {
        let synchronous = SampleCollector()
        try Self.build(synchronous).runSynchronously()
        let threaded = SampleCollector()
        let progress = try Self.build(threaded).runThreaded(queueDepth: 4)
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
    /// sink, and then throws CancellationError, after a last progress report with the final counts.
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
        let reports = Locked<[MediaGraph.Progress]>([])
        let task = Task { try await graph.run { progress in reports.withLock { $0.append(progress) } } }
        let flowing = await pollAsync(every: .milliseconds(5)) { second.samples.count >= 200 }
        task.cancel()
        #expect(flowing, "the graph did not deliver 200 samples before it was cancelled")
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(holder.counts.finishCalls == 1)
        #expect(sink.finishCount == 1)
        #expect(second.finishCount == 1)
        #expect(second.samples.last == held[0])
        #expect(sink.samples(track: 0).last == held[0])
        // The partial progress: the last report, made after every sink finished, counts what they hold.
        let last = try #require(reports.withLock { $0.last })
        #expect(last.sinks[1].samplesWritten == Int64(second.samples.count))
        #expect(last.sinks[0].samplesWritten == Int64(sink.samples.count))
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

    /// A sink fed by one branch runs on that branch's thread: its failure still stops the run, is
    /// stamped with its name and sample index, and the other sinks and it are finished once.
    @Test func aFailingSinkOnABranchThreadStopsTheRun() throws {
        var graph = MediaGraph()
        let audio = graph.addBranch(source: EndlessSource())
        let failing = FailingSink(failAt: 50)
        let other = SampleCollector()
        graph.addSink(failing, input: audio)
        graph.addSink(other, input: audio)
        let error = try #require(throws: MediaError.self) { try graph.runThreaded() }
        #expect(error.code == .io)
        #expect(error.stage == "FailingSink")
        #expect(error.sampleIndex == 50)
        #expect(failing.finishCalls == 1)
        #expect(other.finishCount == 1)
        #expect(other.samples.count >= 50)
    }

    /// An encoder's look-ahead: the video branch's first output comes after 3 s of media (more than the
    /// 2 s media-time limit). The sink waits for it (only the sample limit applies before every track
    /// has started), in both drivers.
    @Test(arguments: [false, true])
    func aLateFirstSampleIsWaitedFor(threaded: Bool) throws {
        var graph = MediaGraph()
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 6)))
        let held = LockedSamples()
        let lookahead = ClosureStage("Lookahead", tail: { held.takeAll() }) { sample, index in
            held.append(sample)
            return index < 90 ? [] : held.takeAll()
        }
        let video = graph.addBranch(source: ArraySource(videoFrames(seconds: 6)), stages: [lookahead])
        let sink = SampleCollector()
        graph.addSink(sink, tracks: [audio, video])
        let progress = threaded ? try graph.runThreaded() : try graph.runSynchronously()
        #expect(sink.samples(track: 0).count == 6 * 48_000 / 1024)
        #expect(sink.samples(track: 1).count == 180)
        #expect(progress.sinks[0].maxQueuedSamples <= 1024)
        #expect(sink.formats == [audioFormat, videoFormat])
    }

    /// In the threaded driver a fast branch does not run ahead of a slow one by more than half the
    /// interleaving bound: the audio branch waits for the slow video branch, so the sink's queue stays
    /// near one second of audio instead of growing to the bound.
    @Test func threadedBranchesAdvanceTogetherInMediaTime() throws {
        var graph = MediaGraph()
        let audio = graph.addBranch(source: ArraySource(audioPackets(seconds: 4)))
        let slow = ClosureStage("Slow") { sample, _ in
            var pause = timespec(tv_sec: 0, tv_nsec: 2_000_000)
            nanosleep(&pause, nil)
            return [sample]
        }
        let video = graph.addBranch(source: ArraySource(videoFrames(seconds: 4)), stages: [slow])
        let sink = SampleCollector()
        graph.addSink(sink, tracks: [audio, video])
        let progress = try graph.runThreaded()
        // One second of audio is 47 packets; the queue may also hold what is in flight.
        #expect(progress.sinks[0].maxQueuedSamples <= 47 + 16 + 4)
        #expect(sink.samples.count == 4 * 48_000 / 1024 + 120)
    }

    /// Video without durations (as RTMP and FLV carry it) still tells the pacing where its branch is:
    /// by its presentation times. (Before, its position stayed unknown, so the audio branch waited at
    /// its first sample until the video ended: a live stream's audio was never written while it ran.)
    @Test func aBranchWithoutDurationsStillPacesTheOthers() throws {
        let audioRead = LockedBox(0)
        let audioReadWhenVideoWasAtThreeSeconds = LockedBox(-1)
        var frames = videoFrames(seconds: 4)
        for index in frames.indices { frames[index].timing.duration = .invalid }
        struct Counting: MediaSource {
            var base: ArraySource
            let read: LockedBox<Int>
            mutating func next() throws -> MediaSample? {
                read.withLock { $0 += 1 }
                return try base.next()
            }
        }
        struct Watching: MediaSource {
            var base: ArraySource
            let audioRead: LockedBox<Int>
            let seen: LockedBox<Int>
            mutating func next() throws -> MediaSample? {
                let sample = try base.next()
                if let sample, sample.timing.presentationTime.seconds.map({ abs($0 - 3) < 0.001 }) == true {
                    seen.value = audioRead.value
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                nanosleep(&pause, nil)
                return sample
            }
        }
        var graph = MediaGraph()
        let audio = graph.addBranch(source: Counting(base: ArraySource(audioPackets(seconds: 4)), read: audioRead))
        let video = graph.addBranch(
            source: Watching(base: ArraySource(frames), audioRead: audioRead, seen: audioReadWhenVideoWasAtThreeSeconds)
        )
        let sink = SampleCollector()
        graph.addSink(sink, tracks: [audio, video])
        try graph.runThreaded()
        // At 3 s of video the audio has been read to within the pacing's lead (1 s) of it: 2 s and more.
        #expect(
            audioReadWhenVideoWasAtThreeSeconds.value >= 2 * 48_000 / 1024,
            "\(audioReadWhenVideoWasAtThreeSeconds.value)")
        #expect(sink.samples.count == 4 * 48_000 / 1024 + 120)
    }
}

/// A sink that fails on its `failAt`-th sample and counts its calls.
final class FailingSink: MediaSink, Sendable {
    private let calls = LockedCounts()
    let failAt: Int64
    init(failAt: Int64) { self.failAt = failAt }
    var name: String { "FailingSink" }
    var finishCalls: Int64 { calls.read(1) }
    func write(_ sample: MediaSample) throws {
        if calls.bump(0) - 1 == failAt { throw MediaError(.io, "disk full") }
    }
    func finish() throws { _ = calls.bump(1) }
}

/// Samples a test stage holds back, shared with its `finish`.
final class LockedSamples: Sendable {
    private let samples = LockedBox<[MediaSample]>([])
    func append(_ sample: MediaSample) { samples.withLock { $0.append(sample) } }
    func takeAll() -> [MediaSample] {
        samples.withLock { all in
            defer { all = [] }; return all
        }
    }
}
