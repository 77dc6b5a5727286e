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
    /// requests the same signal, then throws.
    @discardableResult
    public func run(
        queueDepth: Int = 16, stop: StopSignal? = nil, progress report: (@Sendable (Progress) -> Void)? = nil
    ) async throws -> Progress {
        let run = ThreadedRun(graph: self, queueDepth: queueDepth, stop: stop ?? StopSignal())
        let progress = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Progress, any Error>) in
                run.start { result in continuation.resume(with: result) }
                if let report { ProgressTicker.start(run: run, report: report) }
            }
        } onCancel: {
            run.requestStop()
        }
        if Task.isCancelled { throw CancellationError() }
        return progress
    }
}

/// Calls a progress callback every 100 ms from a thread of its own while a threaded run lasts.
enum ProgressTicker {
    static func start(run: ThreadedRun, report: @escaping @Sendable (MediaGraph.Progress) -> Void) {
        try? StageThread.detach {
            while !run.hasEnded {
                report(run.progress)
                var pause = timespec(tv_sec: 0, tv_nsec: 100_000_000)
                nanosleep(&pause, nil)
            }
        }
    }
}
