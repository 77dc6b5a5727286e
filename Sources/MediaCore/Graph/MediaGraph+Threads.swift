import Dispatch

extension MediaGraph {
    /// Runs like ``run(stop:progress:)``, but each branch (its source and stages) and each sink on a
    /// thread of its own, with queues of at most `queueDepth` samples from the branches to the sinks:
    /// an audio encoder, a video encoder and a muxer work on three cores at once.
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
    private let bound: Interleaving
    private let queues: [BoundedQueue<SinkItem>]
    private let stop: StopSignal
    private let failure = Locked<(any Error)?>(nil)
    private let sourceFailure = Locked<(any Error)?>(nil)
    private let counts: Locked<MediaGraph.Progress>
    private let remaining: Locked<Int>
    private let onEnd = Locked<(@Sendable (Result<MediaGraph.Progress, any Error>) -> Void)?>(nil)

    init(graph: MediaGraph, queueDepth: Int, stop: StopSignal) {
        branches = graph.branches
        sinks = graph.sinks
        routes = graph.routes
        var tracks = Array(repeating: 0, count: graph.sinks.count)
        for route in graph.routes.joined() { tracks[route.sink] = max(tracks[route.sink], route.track + 1) }
        trackCounts = tracks
        bound = graph.interleaving
        queues = graph.sinks.map { _ in BoundedQueue(capacity: queueDepth) }
        self.stop = stop
        counts = Locked(graph.emptyProgress)
        remaining = Locked(graph.branches.count + graph.sinks.count)
    }

    /// The counts so far.
    var progress: MediaGraph.Progress { counts.withLock { $0 } }

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

    /// Starts a thread per branch and per sink; `end` is called once, from the last thread to finish.
    func start(_ end: @escaping @Sendable (Result<MediaGraph.Progress, any Error>) -> Void) {
        onEnd.withLock { $0 = end }
        guard !branches.isEmpty else {
            return finish(with: .failure(MediaError(.invalidArgument, "the graph has no branch to run")))
        }
        for index in branches.indices {
            startThread { self.runBranch(index) }
        }
        for index in sinks.indices {
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
        defer { for route in routes { queues[route.sink].put(.end(track: route.track)) } }
        guard let runner = branches[index].take() else {
            return fail(MediaError.stageFinished("MediaGraph"))
        }
        runner.routes = routes
        let deliver: (MediaSample) throws -> Void = { sample in
            for route in routes { self.queues[route.sink].put(.sample(sample, track: route.track)) }
        }
        do {
            while true {
                if isFailed { runner.abandon(); break }
                if stop.isRequested { try runner.drain(deliver: deliver); break }
                let more = try runner.step(deliver: deliver)
                let snapshot = runner.counts
                counts.withLock { $0.branches[index] = snapshot }
                if !more { break }
            }
            if let error = runner.sourceError {
                sourceFailure.withLock { if $0 == nil { $0 = error } }
            }
        } catch {
            fail(error)
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
