#if canImport(Glibc)
    import Glibc
#endif

extension MediaGraph {
    /// Runs the graph from an `async` context, each branch and sink on a thread of its own (as
    /// ``runThreaded(queueDepth:stop:progress:)``), without blocking the caller's executor.
    ///
    /// ```swift
    /// let task = Task { try await graph.run() }
    /// // later
    /// task.cancel()   // sources stop, stages drain, every file is finished, then CancellationError
    /// ```
    ///
    /// **Cancelling the task** stops the sources, drains every stage (an encoder's delayed frames
    /// still reach the file), finishes every sink (a valid, playable file), and then throws
    /// `CancellationError`. Other errors are thrown as from ``runSynchronously(stop:progress:)``.
    /// `progress` is called from the graph's threads about ten times a second at most.
    ///
    /// `stop`, when given, ends the run early from any thread as in the synchronous run: sources stop,
    /// stages drain, sinks finish, and the run **returns** the progress so far. Cancelling the task
    /// requests the same signal, then throws. Either way `progress` is called one last time, with the
    /// final counts, once every sink has finished and before the run returns or throws: a cancelled
    /// run's partial progress is that last report.
    @discardableResult
    public func run(
        queueDepth: Int = 16, stop: StopSignal? = nil, progress report: (@Sendable (Progress) -> Void)? = nil
    ) async throws -> Progress {
        let run = ThreadedRun(graph: self, queueDepth: queueDepth, stop: stop ?? StopSignal())
        _ = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Progress, any Error>) in
                let ticker = report.map { ProgressTicker(run: run, report: $0) }
                run.start { result in
                    ticker?.reportFinal()
                    continuation.resume(with: result)
                }
                ticker?.start()
            }
        } onCancel: {
            run.requestStop()
        }
        if Task.isCancelled { throw CancellationError() }
        // The final counts read again, under the run's locks, on the awaiting thread (they no longer change):
        // a continuation resumed before its task suspends hands the value over through the concurrency
        // runtime's own atomics, which ThreadSanitizer does not see (swiftlang/swift#57803), so it reported
        // the caller's reads of the warnings a stage thread had logged as a race.
        return run.progress
    }
}

/// Calls a progress callback every 100 ms from a thread of its own while a threaded run lasts, and
/// once more with the final counts when it ends (``reportFinal()``, from the run's last thread); no
/// report comes after the final one.
final class ProgressTicker: Sendable {
    private let run: ThreadedRun
    private let report: @Sendable (MediaGraph.Progress) -> Void
    /// Whether the final report was made. The reports are made under this lock, so none follows it.
    private let ended = Locked(false)

    init(run: ThreadedRun, report: @escaping @Sendable (MediaGraph.Progress) -> Void) {
        self.run = run
        self.report = report
    }

    /// Starts the thread that reports every 100 ms until the final report.
    func start() {
        try? StageThread.detach {
            while self.tick() {
                var pause = timespec(tv_sec: 0, tv_nsec: 100_000_000)
                nanosleep(&pause, nil)
            }
        }
    }

    /// One report, unless the final one was made; whether to go on.
    private func tick() -> Bool {
        ended.withLock { ended in
            guard !ended else { return false }
            report(run.progress)
            return true
        }
    }

    /// The final report, once.
    func reportFinal() {
        ended.withLock { ended in
            guard !ended else { return }
            ended = true
            report(run.progress)
        }
    }
}
