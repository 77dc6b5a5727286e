import Dispatch
#if canImport(Glibc)
    import Glibc
#endif

extension MediaGraph {
    /// Runs like ``runSynchronously(stop:progress:)``, but each branch (its source and stages) and each sink that
    /// several branches feed on a thread of its own, with queues of at most `queueDepth` samples from
    /// the branches to those sinks: an audio encoder, a video encoder and a muxer work on three cores at
    /// once. A sink fed by one branch alone runs on that branch's thread, with no hand-off per sample.
    ///
    /// The calling thread waits, calling `progress` about ten times a second. The sinks receive the
    /// same samples as in the synchronous run; across tracks, how tightly they are interleaved depends
    /// on the branches' speeds, within the ``Interleaving`` bound. Errors, stopping and the end work as
    /// in the synchronous run.
    @discardableResult
    public func runThreaded(
        queueDepth: Int = 16, stop: StopSignal? = nil, progress report: ((Progress) throws -> Void)? = nil
    ) throws -> Progress {
        let run = ThreadedRun(graph: self, queueDepth: queueDepth, stop: stop ?? StopSignal())
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Progress, any Error>?>(nil)
        run.start { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        var reportError: (any Error)?
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            guard let report, reportError == nil else { continue }
            do { try report(run.progress) } catch {
                // As in the synchronous run: stop, drain, finish, then throw the callback's error.
                reportError = error
                run.requestStop()
            }
        }
        guard let result = outcome.withLock({ $0 }) else { throw MediaError.stageFinished("MediaGraph") }
        let progress = try result.get()
        if let reportError { throw reportError }
        return progress
    }
}

/// One threaded run of a graph: what its threads share. Every field is `Sendable`; the branches and
/// sinks themselves are taken out of their hand-offs by the thread that runs them, and never shared.
final class ThreadedRun: Sendable {
    private enum SinkItem: Sendable {
        case sample(MediaSample, track: Int)
        case end(track: Int)
    }

    private let branches: [Handoff<BranchRunner>]
    private let sinks: [Handoff<SinkRunner>]
    private let routes: [[Route]]
    private let trackCounts: [Int]
    /// For each sink, the one branch that feeds all its tracks, if there is one: such a sink runs on
    /// that branch's thread (no queue, no thread hand-off per sample); the others get a thread each.
    private let inlineOwner: [Int?]
    private let bound: Interleaving
    private let queues: [BoundedQueue<SinkItem>]
    private let stop: StopSignal
    private let failure = Locked<(any Error)?>(nil)
    private let sourceFailure = Locked<(any Error)?>(nil)
    private let counts: Locked<MediaGraph.Progress>
    private let remaining: Locked<Int>
    /// Each branch's source position (end of its last sample): `.negativeInfinity` before its first
    /// sample, `nil` after its end. A branch more than `lead` ahead of the slowest live one waits for it.
    private let positions: Locked<[MediaTime?]>
    private let lead: MediaTime
    private let onEnd = Locked<(@Sendable (Result<MediaGraph.Progress, any Error>) -> Void)?>(nil)

    private let diagnostics: DiagnosticCollector

    init(graph: MediaGraph, queueDepth: Int, stop: StopSignal) {
        diagnostics = graph.diagnostics
        branches = graph.branches
        sinks = graph.sinks
        routes = graph.routes
        var tracks = Array(repeating: 0, count: graph.sinks.count)
        for route in graph.routes.joined() { tracks[route.sink] = max(tracks[route.sink], route.track + 1) }
        trackCounts = tracks
        var feeders = Array(repeating: Set<Int>(), count: graph.sinks.count)
        for (branch, branchRoutes) in graph.routes.enumerated() {
            for route in branchRoutes { feeders[route.sink].insert(branch) }
        }
        inlineOwner = feeders.map { $0.count == 1 ? $0.first : nil }
        bound = graph.interleaving
        queues = graph.sinks.map { _ in BoundedQueue(capacity: queueDepth) }
        self.stop = stop
        counts = Locked(graph.emptyProgress)
        remaining = Locked(graph.branches.count + inlineOwner.filter { $0 == nil }.count)
        positions = Locked(Array(repeating: .negativeInfinity, count: graph.branches.count))
        let bound = graph.interleaving.maxQueuedDuration
        // Half the interleaving bound, so that pacing alone never makes a sink's queue overflow it.
        lead =
            bound.isNumeric && bound.timescale <= Int32.max / 2
            ? MediaTime(value: bound.value, timescale: bound.timescale * 2) : .seconds(1)
    }

    /// The counts so far.
    var progress: MediaGraph.Progress {
        var progress = counts.withLock { $0 }
        progress.warningCount = diagnostics.count
        if progress.warningCount > 0 { progress.warnings = diagnostics.diagnostics }
        return progress
    }

    /// Whether every thread has ended.
    var hasEnded: Bool { remaining.withLock { $0 == 0 } }

    /// Whether the run was asked to stop.
    var wasStopped: Bool { stop.isRequested }

    /// Asks the run to stop early (drain and finish).
    func requestStop() { stop.request() }

    /// Records `error` as the run's failure (the first one wins): the branches stop without draining,
    /// the sinks write what is queued and finish.
    func fail(_ error: any Error) {
        failure.withLock { if $0 == nil { $0 = error } }
    }

    private var isFailed: Bool { failure.withLock { $0 != nil } }

    /// Starts a thread per branch and per sink fed by several branches (a sink fed by one branch runs
    /// on that branch's thread); `end` is called once, from the last thread to finish.
    func start(_ end: @escaping @Sendable (Result<MediaGraph.Progress, any Error>) -> Void) {
        onEnd.withLock { $0 = end }
        guard !branches.isEmpty else {
            return finish(with: .failure(MediaError(.invalidArgument, "the graph has no branch to run")))
        }
        for index in branches.indices {
            startThread { self.runBranch(index) }
        }
        for index in sinks.indices where inlineOwner[index] == nil {
            startThread { self.runSink(index) }
        }
    }

    private func startThread(_ body: @escaping @Sendable () -> Void) {
        do {
            try StageThread.detach(body)
        } catch {
            // Without its thread, run the part here: slower, but every sink still finishes.
            fail(error)
            body()
        }
    }

    private func threadEnded() {
        let last = remaining.withLock { count -> Bool in
            count -= 1
            return count == 0
        }
        guard last else { return }
        if let error = failure.withLock({ $0 }) {
            finish(with: .failure(error))
        } else if let error = sourceFailure.withLock({ $0 }) {
            finish(with: .failure(error))
        } else {
            finish(with: .success(progress))
        }
    }

    private func finish(with result: Result<MediaGraph.Progress, any Error>) {
        let end = onEnd.withLock { callback in
            defer { callback = nil }
            return callback
        }
        end?(result)
    }

    private func runBranch(_ index: Int) {
        defer { threadEnded() }
        let routes = self.routes[index]
        // The sinks fed by this branch alone run here, on its thread; the others are fed by queue.
        var inline = [SinkRunner?](repeating: nil, count: sinks.count)
        for sink in sinks.indices where inlineOwner[sink] == index {
            guard let runner = sinks[sink].take() else {
                fail(MediaError.stageFinished("MediaGraph"))
                continue
            }
            runner.prepare(bound: bound)
            inline[sink] = runner
        }
        let inlineSinks = inline.indices.filter { inline[$0] != nil }
        defer { finishInline(inline, routes: routes) }
        defer {
            for route in routes where inlineOwner[route.sink] == nil {
                queues[route.sink].put(.end(track: route.track))
            }
        }
        guard let runner = branches[index].take() else {
            return fail(MediaError.stageFinished("MediaGraph"))
        }
        runner.routes = routes
        let deliver: (MediaSample) throws -> Void = { sample in
            for route in routes {
                if let sink = inline[route.sink] {
                    try sink.receive(sample, track: route.track)
                } else {
                    self.queues[route.sink].put(.sample(sample, track: route.track))
                }
            }
        }
        defer { positions.withLock { $0[index] = nil } }
        do {
            while true {
                waitWhileAhead(index, at: runner.counts.position)
                if isFailed { runner.abandon(); break }
                if stop.isRequested { try runner.drain(deliver: deliver); break }
                let more = try runner.step(deliver: deliver)
                let snapshot = runner.counts
                counts.withLock { progress in
                    progress.branches[index] = snapshot
                    for sink in inlineSinks { if let runner = inline[sink] { progress.sinks[sink] = runner.counts } }
                }
                let position = snapshot.position
                if position.isNumeric { positions.withLock { $0[index] = position } }
                if !more { break }
            }
            if let error = runner.sourceError {
                sourceFailure.withLock { if $0 == nil { $0 = error } }
            }
        } catch {
            fail(error)
            runner.abandon()
        }
    }

    /// Ends the tracks of the sinks that ran on a branch's thread and finishes them (after a failure
    /// anywhere: writes what is queued and finishes, so the file stays valid), then records their counts.
    private func finishInline(_ inline: [SinkRunner?], routes: [Route]) {
        for (index, sink) in inline.enumerated() {
            guard let sink else { continue }
            if isFailed {
                sink.finishAfterError()
            } else {
                do {
                    for route in routes where route.sink == index { try sink.endTrack(route.track) }
                    try sink.finish()
                } catch {
                    fail(error)
                    sink.finishAfterError()
                }
            }
            let snapshot = sink.counts
            counts.withLock { $0.sinks[index] = snapshot }
        }
    }

    /// Keeps the branches together in media time, as the synchronous driver does by always pulling
    /// from the one furthest behind: a branch whose source is more than `lead` ahead of the slowest
    /// live branch waits (1 ms at a time) for it to catch up, end, fail or be stopped. A branch that
    /// has not produced its first sample yet holds the others at their first.
    private func waitWhileAhead(_ index: Int, at position: MediaTime) {
        guard position.isNumeric else { return }
        while !isFailed && !stop.isRequested {
            let slowest = positions.withLock { all -> MediaTime? in
                var slowest: MediaTime?
                for (other, position) in all.enumerated() where other != index {
                    if let position, slowest.map({ position < $0 }) ?? true { slowest = position }
                }
                return slowest
            }
            guard let slowest, slowest == .negativeInfinity || lead < position - slowest else { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&pause, nil)
        }
    }

    private func runSink(_ index: Int) {
        defer { threadEnded() }
        let runner = sinks[index].take()
        if runner == nil { fail(MediaError.stageFinished("MediaGraph")) }
        runner?.prepare(bound: bound)
        var open = trackCounts[index]
        while open > 0 {
            switch queues[index].take() {
            case .sample(let sample, let track):
                guard let runner, !isFailed else { continue }
                do { try runner.receive(sample, track: track) } catch { fail(error) }
            case .end(let track):
                open -= 1
                guard let runner, !isFailed else { continue }
                do { try runner.endTrack(track) } catch { fail(error) }
            }
            if let runner {
                let snapshot = runner.counts
                counts.withLock { $0.sinks[index] = snapshot }
            }
        }
        guard let runner else { return }
        if isFailed {
            runner.finishAfterError()
        } else {
            do { try runner.finish() } catch { fail(error) }
        }
        let snapshot = runner.counts
        counts.withLock { $0.sinks[index] = snapshot }
    }
}
