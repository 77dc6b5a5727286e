import Dispatch
import MediaCore
import MediaTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A live source under the test's control: hands out `samples` only as far as ``allow(through:)``
/// says, waiting (1 ms at a time) meanwhile, and ends after the last one or when ``end()`` is called.
final class ControlledSource: MediaSource, Sendable {
    private let samples: [MediaSample]
    private let state = Locked<(allowed: Int, given: Int, ended: Bool)>((0, 0, false))

    init(_ samples: [MediaSample]) { self.samples = samples }

    /// Lets the source hand out its samples up to index `index` (exclusive).
    func allow(through index: Int) { state.withLock { $0.allowed = max($0.allowed, index) } }

    /// Ends the source after what it has handed out.
    func end() { state.withLock { $0.ended = true } }

    /// Samples handed out so far.
    var given: Int { state.withLock { $0.given } }

    func next() throws -> MediaSample? {
        while true {
            let next = state.withLock { state -> (sample: MediaSample?, done: Bool) in
                if state.given >= samples.count || (state.ended && state.given >= state.allowed) { return (nil, true) }
                guard state.given < state.allowed else { return (nil, state.ended) }
                state.given += 1
                return (samples[state.given - 1], false)
            }
            if let sample = next.sample { return sample }
            if next.done { return nil }
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&pause, nil)
        }
    }
}

/// Marks every 10th frame a keyframe (from frame `phase`), and the next one after ``forceKeyframe()``
/// unless `forcible` is false: an encoder's GOP and its forced IDR, for the graph's request when a sink
/// joins (or a stream copied as it is, whose keyframes come when they come).
final class KeyframeMarker: MediaStage, KeyframeForcing {
    private let forcible: Bool
    private let phase: Int
    private var forced = false
    private var index = 0

    init(forcible: Bool = true, phase: Int = 0) {
        self.forcible = forcible
        self.phase = phase
    }

    func forceKeyframe() { forced = forcible }

    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        var marked = sample
        if (index - phase) % 10 == 0 || forced {
            marked.flags.insert(.keyframe)
        } else {
            marked.flags.remove(.keyframe)
        }
        forced = false
        index += 1
        try emit(marked)
    }

    func finish(into emit: (MediaSample) throws -> Void) throws {}
}

/// Waits (bounded: 10 s) until `condition` holds.
func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        nanosleep(&pause, nil)
    }
    return condition()
}

/// The first byte pair of a test packet (see `packets`): its index.
func packetIndex(_ sample: MediaSample) -> Int {
    sample.withUnsafeBytes { Int($0[0]) | Int($0[1]) << 8 }
}

@Suite(.timeLimit(.minutes(2))) struct GraphChangeTests {
    /// A running graph of video (30 fps, a keyframe every 10 frames) and audio (1024-frame packets at
    /// 48 kHz), both under the test's control, into `main`.
    struct Live {
        let video = ControlledSource(videoFrames(seconds: 4))
        let audio = ControlledSource(audioPackets(seconds: 4))
        let videoID: MediaGraph.BranchID
        let audioID: MediaGraph.BranchID
        let mainID: MediaGraph.SinkID
        let main = SampleCollector()
        let run: MediaGraphRun

        init() {
            var graph = MediaGraph()
            videoID = graph.addBranch("video", source: video, stages: [KeyframeMarker()])
            audioID = graph.addBranch("audio", source: audio)
            mainID = graph.addSink(main, tracks: [videoID, audioID])
            run = graph.start(queueDepth: 4)
        }

        /// Lets both sources run to `seconds` and waits until their samples have left the branches.
        func advance(to seconds: Double) -> Bool {
            let frames = Int(seconds * 30)
            let packets = Int(seconds * 48_000 / 1024)
            video.allow(through: frames)
            audio.allow(through: packets)
            return waitUntil {
                let progress = run.progress
                return progress.branches[0].samplesOut >= Int64(frames)
                    && progress.branches[1].samplesOut >= Int64(packets)
            }
        }

        /// Ends both sources and waits for the run's end.
        func end() {
            video.end()
            audio.end()
            run.wait()
        }
    }

    @Test func aSinkAddedWhileRunningStartsAtAForcedKeyframeAtZeroAndTheMainSinkLosesNothing() throws {
        let live = Live()
        #expect(live.advance(to: 0.85))  // frame 25: the next GOP keyframe would be frame 30
        let recording = SampleCollector()
        let ended = DispatchSemaphore(value: 0)
        let id = try live.run.addSink(recording, tracks: [live.videoID, live.audioID]) { result in
            if case .success(let counts) = result, counts.samplesWritten > 0 { ended.signal() }
        }
        #expect(id.index == 1)
        #expect(live.advance(to: 2))
        live.run.removeSink(id)  // takes effect at each branch's next sample, as GStreamer's blocking probe
        #expect(live.advance(to: 3))
        #expect(ended.wait(timeout: .now() + 10) == .success)
        live.end()

        // The main sink: every sample, in order, untouched.
        #expect(live.main.samples(track: 0).map(packetIndex) == Array(0..<90))
        #expect(live.main.samples(track: 1).count == 140)
        #expect(live.main.finishCount == 1)

        // The recording: begins with the keyframe forced when it joined (not the GOP's at frame 30), at
        // time zero, and audio from the first whole packet at or after it.
        let video = recording.samples(track: 0)
        let audio = recording.samples(track: 1)
        let first = try #require(video.first)
        #expect(first.flags.contains(.keyframe))
        let firstIndex = packetIndex(first)
        #expect((25...27).contains(firstIndex), "first frame \(firstIndex)")
        #expect(first.timing.presentationTime == .zero)
        #expect(video.map(packetIndex) == Array(firstIndex..<(firstIndex + video.count)))
        let firstAudio = try #require(audio.first)
        let joinedAt = MediaTime(value: Int64(firstIndex), timescale: 30)
        let audioStart = MediaTime(value: Int64(packetIndex(firstAudio)) * 1024, timescale: 48_000)
        #expect(audioStart >= joinedAt && audioStart - joinedAt < MediaTime(value: 1024, timescale: 48_000))
        #expect(firstAudio.timing.presentationTime == (audioStart - joinedAt).converted(to: 48_000, rounding: .down))
        #expect(recording.finishCount == 1)
        // It ended where it was removed (2 s: frame 60 was the next one pulled), with both tracks.
        #expect(packetIndex(video.last!) == 59)
        #expect(packetIndex(audio.last!) == 92)
        let progress = live.run.progress
        #expect(progress.sinks.count == 2)
        #expect(progress.sinks[1].samplesWritten == Int64(video.count + audio.count))
    }

    /// Two video tracks whose keyframes cannot be forced and come 5 frames apart: the sink starts at the
    /// later of their next keyframes, and the other track skips to its first keyframe after that.
    @Test func withoutForcedKeyframesEveryVideoTrackStartsAtItsNextKeyframeAfterTheLatest() throws {
        let first = ControlledSource(videoFrames(seconds: 2))
        let second = ControlledSource(videoFrames(seconds: 2))
        var graph = MediaGraph()
        let a = graph.addBranch("a", source: first, stages: [KeyframeMarker(forcible: false)])
        let b = graph.addBranch("b", source: second, stages: [KeyframeMarker(forcible: false, phase: 5)])
        graph.addSink(SampleCollector(), tracks: [a, b])
        let run = graph.start(queueDepth: 4)
        first.allow(through: 12)
        second.allow(through: 12)
        #expect(waitUntil { run.progress.branches.allSatisfy { $0.samplesOut == 12 } })
        let joined = SampleCollector()
        try run.addSink(joined, tracks: [a, b])
        first.allow(through: 60)
        second.allow(through: 60)
        first.end()
        second.end()
        run.wait()
        // a's next keyframe is frame 20, b's frame 15: the start is 20, so b begins at its keyframe 25.
        #expect(joined.samples(track: 0).first.map(packetIndex) == 20)
        #expect(joined.samples(track: 1).first.map(packetIndex) == 25)
        #expect(joined.samples(track: 1).first?.flags.contains(.keyframe) == true)
        #expect(joined.samples(track: 0).first?.timing.presentationTime == .zero)
        #expect(joined.samples(track: 1).first?.timing.presentationTime == MediaTime(value: 5, timescale: 30))
        #expect(joined.samples(track: 0).count == 40 && joined.samples(track: 1).count == 35)
    }

    @Test func runTimesAreKeptWhenAskedAndASingleTrackSinkStartsAtItsFirstSample() throws {
        let live = Live()
        #expect(live.advance(to: 1))
        let videoOnly = SampleCollector()
        let audioOnly = SampleCollector()
        try live.run.addSink(videoOnly, tracks: [live.videoID], startsAtZero: false)
        try live.run.addSink(audioOnly as any MediaSink, input: live.audioID, startsAtZero: false)
        #expect(live.advance(to: 4))
        live.end()
        let first = try #require(videoOnly.samples.first)
        #expect(first.flags.contains(.keyframe))
        #expect(first.timing.presentationTime == MediaTime(value: Int64(packetIndex(first)), timescale: 30))
        #expect(packetIndex(first) >= 30 && packetIndex(first) <= 32)
        #expect(videoOnly.samples.map(packetIndex).last == 119)  // to the end of the source
        let audio = try #require(audioOnly.samples.first)
        #expect(packetIndex(audio) >= 46 && packetIndex(audio) <= 48)  // 1 s = packet 46.9
        #expect(audioOnly.samples.count == 187 - packetIndex(audio))
        #expect(videoOnly.finishCount == 1 && audioOnly.finishCount == 1)
    }

    @Test func removingTheGraphsOwnSinkFinishesItAndTheRunGoesOn() throws {
        let live = Live()
        #expect(live.advance(to: 1))
        let later = SampleCollector()
        try live.run.addSink(later, tracks: [live.videoID, live.audioID])
        live.run.removeSink(live.mainID)
        #expect(live.advance(to: 2))
        #expect(waitUntil { live.main.finishCount == 1 })
        #expect(live.advance(to: 4))
        live.end()
        #expect(live.main.finishCount == 1)
        #expect(live.main.samples(track: 0).count == 30)
        #expect(later.samples(track: 0).map(packetIndex).last == 119)
        #expect(later.finishCount == 1)
        live.run.removeSink(live.mainID)  // twice, and after the end: nothing happens
    }

    @Test func aFailingJoinedSinkLeavesAloneAndTheRunCountsAWarning() throws {
        let live = Live()
        #expect(live.advance(to: 0.5))
        let failures = Locked<[String]>([])
        let failing = FailingCollector(failAt: 5)
        try live.run.addSink(failing, tracks: [live.videoID, live.audioID]) { result in
            if case .failure(let error) = result { failures.withLock { $0.append("\(error)") } }
        }
        #expect(live.advance(to: 3))
        live.end()
        #expect(failures.withLock { $0.count } == 1)
        #expect(failing.finishCount == 1)
        #expect(live.main.samples(track: 0).count == 90)
        let progress = live.run.progress
        #expect(progress.warnings.contains { $0[DiagnosticKey.code] == "sinkFailed" })
    }

    @Test func aBranchAddedWhileRunningStartsWithItsSinkAndRemovingItEndsTheSink() throws {
        let live = Live()
        #expect(live.advance(to: 0.5))
        let endless = EndlessSource()
        let branch = try live.run.addBranch("second audio", source: endless)
        #expect(branch.index == 2)
        #expect(live.run.progress.branches[2].samplesRead == 0)  // not read before a sink joins
        let collector = SampleCollector()
        let ended = DispatchSemaphore(value: 0)
        try live.run.addSink(collector, tracks: [branch]) { _ in ended.signal() }
        #expect(waitUntil { collector.samples.count >= 50 })
        live.run.removeBranch(branch)
        #expect(ended.wait(timeout: .now() + 10) == .success)
        #expect(collector.finishCount == 1)
        // Its own samples from its first, at time zero (its first sample is its start).
        #expect(collector.samples.map(packetIndex).prefix(3) == [0, 1, 2])
        #expect(collector.samples.first?.timing.presentationTime == .zero)
        #expect(live.advance(to: 4))
        live.end()
        #expect(live.main.samples(track: 0).count == 120)
    }

    /// A sink fed by one branch runs on that branch's thread: removing it finishes it there, once.
    @Test func removingASinkThatRunsOnItsBranchsThreadFinishesItOnce() throws {
        let source = ControlledSource(audioPackets(seconds: 2))
        var graph = MediaGraph()
        let branch = graph.addBranch(source: source)
        let inline = SampleCollector()
        let id = graph.addSink(inline, input: branch)
        let run = graph.start()
        source.allow(through: 20)
        #expect(waitUntil { run.progress.branches[0].samplesOut == 20 })
        run.removeSink(id)
        source.allow(through: 40)
        #expect(waitUntil { inline.finishCount == 1 })
        source.end()
        run.wait()
        #expect(inline.finishCount == 1)
        #expect(inline.samples.count == 20)
        #expect(run.progress.sinks[0].samplesWritten == 20)
    }

    /// A sink that joins with a track whose branch has ended already: that track is ended from the
    /// start, and the sink records the other.
    @Test func aTrackWhoseBranchHasEndedIsEndedFromTheStart() throws {
        let live = ControlledSource(audioPackets(seconds: 2))
        var graph = MediaGraph()
        let short = graph.addBranch("short", source: ArraySource(videoFrames(seconds: 1).prefix(3).map { $0 }))
        let long = graph.addBranch("long", source: live)
        graph.addSink(SampleCollector(), tracks: [short, long])
        let run = graph.start()
        live.allow(through: 20)
        #expect(waitUntil { run.progress.branches[0].samplesOut == 3 && run.progress.branches[1].samplesOut == 20 })
        let joined = SampleCollector()
        try run.addSink(joined, tracks: [short, long])
        live.allow(through: 40)
        live.end()
        run.wait()
        #expect(joined.finishCount == 1)
        #expect(joined.samples(track: 0).isEmpty)
        #expect(joined.samples(track: 1).map(packetIndex) == Array(20..<40))
    }

    /// A sink removed before its first keyframe holds nothing: it is finished, and a warning says so.
    @Test func aSinkThatLeavesBeforeItsStartIsFinishedWithAWarning() throws {
        let live = Live()
        #expect(live.advance(to: 0.5))
        let empty = SampleCollector()
        let written = Locked<Int64?>(nil)
        let id = try live.run.addSink(empty, tracks: [live.videoID, live.audioID]) { result in
            if case .success(let counts) = result { written.withLock { $0 = counts.samplesWritten } }
        }
        live.run.removeSink(id)
        #expect(live.advance(to: 1))
        live.end()
        #expect(written.withLock { $0 } == 0)
        #expect(empty.finishCount == 1 && empty.samples.isEmpty)
        #expect(live.run.progress.warnings.contains { $0[DiagnosticKey.code] == "nothingWritten" })
        #expect(live.main.samples(track: 0).count == 30)
    }

    @Test func joiningAfterTheEndOrWithAWrongBranchIsATypedError() throws {
        let live = Live()
        var other = MediaGraph()
        for _ in 0..<8 { other.addBranch(source: ArraySource([])) }
        let missing = other.addBranch(source: ArraySource([]))
        #expect(throws: MediaError.self) { try live.run.addSink(SampleCollector(), tracks: [missing]) }
        #expect(throws: MediaError.self) { try live.run.addSink(SampleCollector(), tracks: []) }
        live.end()
        do {
            try live.run.addSink(SampleCollector(), tracks: [live.videoID])
            Issue.record("joined a run that had ended")
        } catch {
            #expect(error.code == .stageFinished)
        }
        #expect(throws: MediaError.self) { try live.run.addBranch(source: EndlessSource()) }
    }

    /// Sinks join and leave from another thread as fast as it can while the branches run: each one
    /// finishes exactly once, the run ends, and the main sink has every sample.
    @Test func sinksJoiningAndLeavingFromAnotherThreadAllFinishOnce() throws {
        let live = Live()
        live.video.allow(through: 120)
        live.audio.allow(through: 187)
        let collectors = (0..<40).map { _ in SampleCollector() }
        let run = live.run
        let ids = Locked<[MediaGraph.SinkID]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for (n, collector) in collectors.enumerated() where n % 2 == worker {
                if let id = try? run.addSink(
                    collector, tracks: n % 3 == 0 ? [live.audioID] : [live.videoID, live.audioID])
                {
                    ids.withLock { $0.append(id) }
                    if n % 4 < 2 { run.removeSink(id) }
                }
            }
        }
        live.end()
        #expect(collectors.allSatisfy { $0.finishCount == 1 })
        #expect(live.main.samples(track: 0).count == 120)
        #expect(live.main.samples(track: 1).count == 187)
        #expect(live.run.hasEnded)
    }
}

/// A collector whose `n`-th write throws.
final class FailingCollector: MultiTrackSink, Sendable {
    private let failAt: Int
    private let state = Locked<(writes: Int, finished: Int)>((0, 0))
    init(failAt: Int) { self.failAt = failAt }
    var finishCount: Int { state.withLock { $0.finished } }
    func begin(tracks: [MediaFormat?]) throws {}
    func write(_ sample: MediaSample, track: Int) throws {
        let writes = state.withLock { state -> Int in
            state.writes += 1
            return state.writes
        }
        if writes == failAt { throw MediaError(.invalidArgument, "disk full (test)") }
    }
    func finish() throws { state.withLock { $0.finished += 1 } }
}

/// `start` plus `finished()`: the async run with a handle for changes.
@Suite(.timeLimit(.minutes(1))) struct MediaGraphRunFinishedTests {
    @Test func finishedReturnsTheProgressToEveryWaiterAndCancellingAWaiterStopsTheRun() async throws {
        let live = GraphChangeTests.Live()
        #expect(live.advance(to: 0.5))
        let early = Task { try await live.run.finished() }
        let cancelled = Task { try await live.run.finished() }
        cancelled.cancel()
        // The sources wait for the test: let them go on a frame at a time, so the branches see the stop
        // (once the cancelled task has run) at a next sample.
        for frame in 16...120 where !live.run.hasEnded {
            live.video.allow(through: frame)
            live.audio.allow(through: frame * 187 / 120)
            try await Task.sleep(for: .milliseconds(5))
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        // The cancelled waiter stopped the run: every sink finished with what was read.
        let progress = try await early.value
        #expect(progress.sinks[0].samplesWritten == Int64(live.main.samples.count))
        #expect(live.main.finishCount == 1)
        #expect(live.main.samples(track: 0).count < 120)
        let late = try await live.run.finished()  // after the end: at once
        #expect(late == progress)
    }
}
