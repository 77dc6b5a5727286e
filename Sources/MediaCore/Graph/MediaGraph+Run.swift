extension MediaGraph {
    /// Runs the graph to the end of every branch, synchronously on the calling thread, calling
    /// `progress` after each source sample, and returns the final counts.
    ///
    /// The name says what it does, so that overload resolution cannot pick it for `try await
    /// graph.run()`: in a `main.swift`, Swift ranks a synchronous `run()` above an `async` one, and the
    /// run would then block the main thread with no task to cancel. Call this from code that may block
    /// (a command-line tool's `main`, a thread of its own); from `async` code call ``run(queueDepth:stop:progress:)``.
    ///
    /// Each step pulls one sample from the branch that is furthest behind in media time and pushes it
    /// through that branch's stages into its sinks, so the branches advance together and the
    /// interleaving queues stay short. A graph runs once; a second run throws
    /// ``MediaError/Code/stageFinished``. When `stop` is requested, the run ends as if every source had
    /// ended (see ``StopSignal``). The progress callback may throw to stop the run: the branches are
    /// then drained and the sinks finished, as for a failing source, and its error is thrown.
    @discardableResult
    public func runSynchronously(stop: StopSignal? = nil, progress report: ((Progress) throws -> Void)? = nil) throws
        -> Progress
    {
        let (branches, sinks) = try takeAll()
        let driver = SyncDriver(branches: branches, sinks: sinks, diagnostics: diagnostics)
        try driver.run(
            stop: { stop?.isRequested ?? false }, afterStep: report.map { report in { try report(driver.progress) } })
        return driver.progress
    }
}

/// The synchronous driver: one thread pulls from every branch in turn. ``Pipeline/run(stop:progress:)`` and
/// ``MediaGraph/runSynchronously(stop:progress:)`` run it.
struct SyncDriver {
    let branches: [BranchRunner]
    let sinks: [SinkRunner]
    let diagnostics: DiagnosticCollector

    var progress: MediaGraph.Progress {
        var progress = MediaGraph.Progress(branches: branches.map(\.counts), sinks: sinks.map(\.counts))
        progress.warningCount = diagnostics.count
        if progress.warningCount > 0 { progress.warnings = diagnostics.diagnostics }
        return progress
    }

    /// Runs until every branch has ended, or `stop` says so (then drains the branches and finishes the
    /// sinks before returning normally: the caller decides what to throw). `afterStep` (the caller's
    /// progress report) is called after each source sample; when it throws, the run stops as for
    /// `stop`, and its error is thrown once every sink has finished.
    func run(stop: () -> Bool, afterStep report: (() throws -> Void)?) throws {
        do {
            var stopError: (any Error)?
            while let branch = furthestBehind() {
                if stop() { break }
                guard try branch.step(deliver: { try deliver($0, from: branch) }) else {
                    try endTracks(of: branch)
                    continue
                }
                if let report {
                    do { try report() } catch { stopError = error; break }
                }
            }
            // Stopped early (cancelled, or the progress callback threw): drain what the stages hold.
            for branch in branches where !branch.isEnded {
                try branch.drain(deliver: { try deliver($0, from: branch) })
                try endTracks(of: branch)
            }
            for sink in sinks { try sink.finish() }
            if let stopError { throw stopError }
            if let sourceError = branches.lazy.compactMap(\.sourceError).first { throw sourceError }
        } catch {
            for branch in branches { branch.abandon() }
            for sink in sinks { sink.finishAfterError() }
            throw error
        }
    }

    /// The live branch whose source is furthest behind (a branch that has produced nothing first);
    /// ties go to the branch added first.
    private func furthestBehind() -> BranchRunner? {
        var best: BranchRunner?
        for branch in branches where !branch.isEnded {
            guard let current = best else { best = branch; continue }
            let position = branch.counts.position
            if !position.isNumeric {
                if current.counts.position.isNumeric { best = branch }
            } else if current.counts.position.isNumeric, position < current.counts.position {
                best = branch
            }
        }
        return best
    }

    private func deliver(_ sample: MediaSample, from branch: BranchRunner) throws {
        for route in branch.routes { try sinks[route.sink].receive(sample, track: route.track) }
    }

    private func endTracks(of branch: BranchRunner) throws {
        for route in branch.routes { try sinks[route.sink].endTrack(route.track) }
    }
}
