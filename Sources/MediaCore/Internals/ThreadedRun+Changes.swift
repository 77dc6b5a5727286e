import Logging

/// Sinks and branches joining and leaving a threaded run (``MediaGraphRun``'s changes).
///
/// Index order: a joined sink or branch takes the next index of ``MediaGraph/Progress``'s lists, so
/// ``MediaGraph/SinkID`` and ``MediaGraph/BranchID`` stay positions in them. Locks are taken in the
/// order `branchSlots` → `table` / `counts`, never the other way.
extension ThreadedRun {
    /// Counts one more thread unless the run has ended; whether it had not.
    private func reserveThread() -> Bool {
        remaining.withLock { count in
            guard count > 0 else { return false }
            count += 1
            return true
        }
    }

    private static var ended: MediaError {
        MediaError(.stageFinished, "the graph's run has ended: nothing can join it", stage: "MediaGraph")
    }

    /// Adds `sink`, fed by `tracks`, on a thread of its own behind a ``JoinGate``; see
    /// ``MediaGraphRun/addSink(_:tracks:startsAtZero:onEnd:)``.
    func addSink(
        _ sink: sending any MultiTrackSink, tracks: [MediaGraph.BranchID], startsAtZero: Bool,
        onEnd: (@Sendable (Result<MediaGraph.Progress.Sink, any Error>) -> Void)?
    ) throws(MediaError) -> MediaGraph.SinkID {
        let branchCount = branchSlots.withLock { $0.count }
        guard !tracks.isEmpty else { throw MediaError(.invalidArgument, "a sink needs at least one track") }
        if let wrong = tracks.first(where: { !(0..<branchCount).contains($0.index) }) {
            throw MediaError(
                .invalidArgument,
                "there is no branch \(wrong.index) to feed the sink (the run has \(count: branchCount, "branch"))")
        }
        diagnostics.attach(to: (sink as? SingleTrackSink)?.base ?? sink, user: logger)
        let gate = JoinGate(trackCount: tracks.count, rebase: startsAtZero, capacity: bound.maxQueuedSamples)
        let runner = SinkRunner(sink: sink, trackCount: tracks.count, gate: gate)
        runner.prepare(bound: bound)
        let name = runner.name
        let handoff = Handoff(runner)
        guard reserveThread() else { throw Self.ended }
        let index = counts.withLock { progress in
            progress.sinks.append(.init(name: name))
            return progress.sinks.count - 1
        }
        let queue = BoundedQueue<SinkItem>(capacity: queueDepth)
        let trackCount = tracks.count
        let entries = tracks.enumerated().map { track, branch in
            (branch: branch.index, entry: RouteTable.Entry(route: Route(sink: index, track: track), queue: queue))
        }
        // Routed first, then started: should the thread fail to start, the sink runs here with its
        // inputs already routed (until it ends) instead of waiting for routes this call has not made.
        // Tracks whose branch has ended already get no end from it: the sink starts with them ended.
        let ended = table.add(entries).map(\.route.track)
        startThread {
            self.runJoinedSink(index, handoff, queue: queue, trackCount: trackCount, ended: ended, onEnd: onEnd)
        }
        for branch in Set(tracks.map(\.index)) { startIfWaiting(branch) }
        return MediaGraph.SinkID(index: index)
    }

    /// Stops feeding sink `index`: each branch ends its tracks between two samples, and the sink then
    /// writes what it holds and finishes on its own thread.
    func removeSink(_ index: Int) {
        for orphan in table.remove(sink: index) { orphan.queue?.put(.end(track: orphan.route.track)) }
    }

    /// Adds a branch that starts when the first sink it feeds is added; see
    /// ``MediaGraphRun/addBranch(_:source:stages:)``.
    func addBranch(
        _ name: String?, source: sending any MediaSource, stages: sending [any MediaStage]
    ) throws(MediaError) -> MediaGraph.BranchID {
        guard !hasEnded else { throw Self.ended }
        diagnostics.attach(to: source, user: logger)
        for stage in stages { diagnostics.attach(to: (stage as? CheckedStage)?.base ?? stage, user: logger) }
        let runner = BranchRunner(name: name, source: source, stages: stages)
        let branchName = runner.name
        let handoff = Handoff(runner)
        let index = branchSlots.withLock { slots in
            let index = table.addBranch()
            slots.append(BranchSlot(runner: handoff, isStarted: false))
            counts.withLock { $0.branches.append(.init(name: branchName)) }
            return index
        }
        return MediaGraph.BranchID(index: index)
    }

    /// Ends branch `index`: its source is not read further, its stages drain, and its tracks end in
    /// every sink it feeds. A branch not started yet never starts.
    func removeBranch(_ index: Int) {
        let neverStarted = branchSlots.withLock { slots -> Bool in
            guard slots.indices.contains(index) else { return false }
            slots[index].stop.request()
            defer { slots[index].isStarted = true }
            return !slots[index].isStarted
        }
        // No thread will end its inputs: end them here (and let none join it later).
        if neverStarted { for entry in table.end(index) { entry.queue?.put(.end(track: entry.route.track)) } }
    }

    /// Starts branch `index`'s thread if it was added while running and has not started.
    private func startIfWaiting(_ index: Int) {
        let start = branchSlots.withLock { slots -> Bool in
            guard !slots[index].isStarted, reserveThread() else { return false }
            slots[index].isStarted = true
            return true
        }
        if start { startThread { self.runBranch(index) } }
    }

    /// The thread of a sink added while running: as ``runSink``, but its own failure ends only itself
    /// (its inputs are removed, so the branches go on), and `onEnd` hears how it ended.
    private func runJoinedSink(
        _ index: Int, _ handoff: Handoff<SinkRunner>, queue: BoundedQueue<SinkItem>, trackCount: Int, ended: [Int],
        onEnd: (@Sendable (Result<MediaGraph.Progress.Sink, any Error>) -> Void)?
    ) {
        defer { threadEnded() }
        guard let runner = handoff.take() else { return }
        var open = trackCount - ended.count
        var failure: (any Error)?
        let failed = { (error: any Error) in
            failure = error
            runner.finishAfterError()
            // Its inputs leave the table; those no branch saw yet will never send an end, so count them here.
            open -= self.table.remove(sink: index).count
        }
        for track in ended where failure == nil {
            do { try runner.endTrack(track) } catch { failed(error) }
        }
        while open > 0 {
            switch queue.take() {
            case .sample(let sample, let track):
                guard failure == nil, !isFailed else { continue }
                do { try runner.receive(sample, track: track) } catch { failed(error) }
            case .end(let track):
                open -= 1
                guard failure == nil, !isFailed else { continue }
                do { try runner.endTrack(track) } catch { failed(error) }
            }
            let snapshot = runner.counts
            counts.withLock { $0.sinks[index] = snapshot }
        }
        if failure == nil {
            if isFailed {
                runner.finishAfterError()
            } else {
                do { try runner.finish() } catch { failed(error) }
            }
        }
        let snapshot = runner.counts
        counts.withLock { $0.sinks[index] = snapshot }
        if runner.skippedBeforeStart > 0 {
            MediaDiagnostic(
                .info,
                "\(runner.name) joined the running graph: \(count: runner.skippedBeforeStart, "sample") before its start (its first keyframe) were not written.",
                metadata: [
                    DiagnosticKey.stage: runner.name, DiagnosticKey.code: "skippedBeforeStart",
                    DiagnosticKey.count: "\(runner.skippedBeforeStart)"
                ]
            ).log(to: logger)
        }
        if failure == nil, snapshot.samplesWritten == 0 {
            // Removed (or its branches ended) before its first keyframe: say so, or the empty file is a mystery.
            let warning = MediaDiagnostic(
                .warning,
                "\(runner.name) left the running graph before its start (a keyframe on every video track): nothing was written to it",
                metadata: [DiagnosticKey.stage: runner.name, DiagnosticKey.code: "nothingWritten"])
            diagnostics.record(warning)
            warning.log(to: logger)
        }
        if let failure {
            // The run goes on without it: the failure is a warning of the run, and `onEnd`'s result.
            let warning = MediaDiagnostic(
                .warning, "\(runner.name) failed and left the running graph: \(failure)",
                metadata: [DiagnosticKey.stage: runner.name, DiagnosticKey.code: "sinkFailed"])
            diagnostics.record(warning)
            warning.log(to: logger)
        }
        onEnd?(failure.map { .failure($0) } ?? .success(snapshot))
    }
}
