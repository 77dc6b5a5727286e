import Dispatch
import Logging
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
///
/// Sinks and branches may join and leave while it runs (ThreadedRun+Changes.swift): where each branch
/// delivers is a ``RouteTable`` that each branch's thread reads between two samples.
final class ThreadedRun: Sendable {
    /// A branch: its runner until its thread takes it, and its own stop signal (for removing it).
    struct BranchSlot: Sendable {
        let runner: Handoff<BranchRunner>
        let stop = StopSignal()
        /// Whether its thread has been started (a branch added while running starts with its first sink).
        var isStarted: Bool
    }

    let branchSlots: Locked<[BranchSlot]>
    /// The branches the graph had when the run started: those keep together in media time.
    let pacedBranchCount: Int
    private let sinks: [Handoff<SinkRunner>]
    let table: RouteTable
    private let trackCounts: [Int]
    /// For each of the graph's sinks, the one branch that feeds all its tracks, if there is one: such a
    /// sink runs on that branch's thread (no queue, no thread hand-off per sample); the others get a thread each.
    private let inlineOwner: [Int?]
    let bound: Interleaving
    let queueDepth: Int
    private let queues: [BoundedQueue<SinkItem>]
    private let stop: StopSignal
    private let failure = Locked<(any Error)?>(nil)
    private let sourceFailure = Locked<(any Error)?>(nil)
    let counts: Locked<MediaGraph.Progress>
    /// Threads that have not ended; `0` once the run has ended, after which nothing may join it.
    let remaining: Locked<Int>
    /// Each paced branch's source position (end of its last sample): `.negativeInfinity` before its first
    /// sample, `nil` after its end. A branch more than `lead` ahead of the slowest live one waits for it.
    private let positions: Locked<[MediaTime?]>
    private let lead: MediaTime
    private let onEnd = Locked<(@Sendable (Result<MediaGraph.Progress, any Error>) -> Void)?>(nil)

    let diagnostics: DiagnosticCollector
    let logger: Logger?

    init(graph: MediaGraph, queueDepth: Int, stop: StopSignal) {
        diagnostics = graph.diagnostics
        logger = graph.logger
        branchSlots = Locked(graph.branches.map { BranchSlot(runner: $0, isStarted: true) })
        pacedBranchCount = graph.branches.count
        sinks = graph.sinks
        var tracks = Array(repeating: 0, count: graph.sinks.count)
        for route in graph.routes.joined() { tracks[route.sink] = max(tracks[route.sink], route.track + 1) }
        trackCounts = tracks
        var feeders = Array(repeating: Set<Int>(), count: graph.sinks.count)
        for (branch, branchRoutes) in graph.routes.enumerated() {
            for route in branchRoutes { feeders[route.sink].insert(branch) }
        }
        let inlineOwner = feeders.map { $0.count == 1 ? $0.first : nil }
        self.inlineOwner = inlineOwner
        bound = graph.interleaving
        self.queueDepth = queueDepth
        let queues = graph.sinks.map { _ in BoundedQueue<SinkItem>(capacity: queueDepth) }
        self.queues = queues
        table = RouteTable(
            routes: graph.routes, queues: queues.indices.map { inlineOwner[$0] == nil ? queues[$0] : nil })
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

    var isFailed: Bool { failure.withLock { $0 != nil } }

    /// Whether the whole run was asked to stop or failed.
    var isEnding: Bool { stop.isRequested || isFailed }

    /// Starts a thread per branch and per sink fed by several branches (a sink fed by one branch runs
    /// on that branch's thread); `end` is called once, from the last thread to finish.
    func start(_ end: @escaping @Sendable (Result<MediaGraph.Progress, any Error>) -> Void) {
        onEnd.withLock { $0 = end }
        guard pacedBranchCount > 0 else {
            remaining.withLock { $0 = 0 }
            return finish(with: .failure(MediaError(.invalidArgument, "the graph has no branch to run")))
        }
        for index in 0..<pacedBranchCount {
            startThread { self.runBranch(index) }
        }
        for index in sinks.indices where inlineOwner[index] == nil {
            startThread { self.runSink(index) }
        }
    }

    func startThread(_ body: @escaping @Sendable () -> Void) {
        do {
            try StageThread.detach(body)
        } catch {
            // Without its thread, run the part here: slower, but every sink still finishes.
            fail(error)
            body()
        }
    }

    func threadEnded() {
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

    func runBranch(_ index: Int) {
        defer { threadEnded() }
        let paced = index < pacedBranchCount
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
        let slot = branchSlots.withLock { $0[index] }
        var (entries, known) = table.entries(of: index)
        defer {
            // Every input this branch fed gets its end: those still in the table, and those removed
            // since the branch last looked.
            let final = table.end(index)
            for entry in entries where !final.contains(where: { $0.route == entry.route }) {
                endInput(entry, inline: inline)
            }
            for entry in final where entry.queue != nil { endInput(entry, inline: inline) }
            finishInline(inline, routes: final.map(\.route))
        }
        guard let runner = slot.runner.take() else {
            return fail(MediaError.stageFinished("MediaGraph"))
        }
        let deliver: (MediaSample) throws -> Void = { sample in
            for entry in entries {
                if let queue = entry.queue {
                    queue.put(.sample(sample, track: entry.route.track))
                } else if let sink = inline[entry.route.sink] {
                    try sink.receive(sample, track: entry.route.track)
                }
            }
        }
        defer { if paced { positions.withLock { $0[index] = nil } } }
        do {
            while true {
                if paced { waitWhileAhead(index, at: runner.counts.position) }
                if isFailed { runner.abandon(); break }
                if stop.isRequested || slot.stop.isRequested { try runner.drain(deliver: deliver); break }
                let sample = runner.pull()
                // Sinks joined or left while the source was read: apply that before this sample goes out.
                if table.version != known {
                    let now = table.entries(of: index)
                    for entry in entries where !now.entries.contains(where: { $0.route == entry.route }) {
                        endInput(entry, inline: inline)
                    }
                    let joined = now.entries.contains { new in !entries.contains { $0.route == new.route } }
                    (entries, known) = now
                    if joined { runner.forceKeyframe() }
                }
                let more = sample != nil
                if let sample { try runner.push(sample, deliver: deliver) } else { try runner.drain(deliver: deliver) }
                let snapshot = runner.counts
                counts.withLock { progress in
                    progress.branches[index] = snapshot
                    for sink in inlineSinks { if let runner = inline[sink] { progress.sinks[sink] = runner.counts } }
                }
                let position = snapshot.position
                if paced, position.isNumeric { positions.withLock { $0[index] = position } }
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

    /// Ends one input this branch fed: through its queue, or on this thread for a sink that runs here
    /// (which finishes once all its tracks have ended).
    private func endInput(_ entry: RouteTable.Entry, inline: [SinkRunner?]) {
        if let queue = entry.queue {
            queue.put(.end(track: entry.route.track))
        } else if let sink = inline[entry.route.sink], !isFailed {
            do { try sink.endTrack(entry.route.track) } catch { fail(error) }
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
    /// has not produced its first sample yet holds the others at their first. Branches added while
    /// running are not paced: they join at their own time.
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
