import Dispatch

extension MediaGraph {
    /// Starts the graph on threads of its own (as ``runThreaded(queueDepth:stop:progress:)``) and returns
    /// at once, like GStreamer's `gst_element_set_state(pipeline, GST_STATE_PLAYING)`: for players and
    /// recorders whose controls live on another thread. No thread of the caller's, and no task of Swift
    /// concurrency's pool, is used while it runs.
    ///
    /// ```swift
    /// let run = graph.start { result in print("ended:", result) }
    /// // later, from any thread
    /// run.stop()        // sources stop, stages drain, every file is finished
    /// run.wait()
    /// ```
    ///
    /// `onEnd` is called once, on one of the graph's threads, when every sink has finished: with the
    /// progress, or the error that ended the run (as ``runSynchronously(stop:progress:)`` would throw it).
    ///
    /// `stop`, when given, is the run's stop signal (as ``MediaGraphRun/stop()`` raises it): a stage or
    /// another component can then end the run without holding the handle.
    public func start(
        queueDepth: Int = 16, stop: StopSignal? = nil, onEnd: (@Sendable (Result<Progress, any Error>) -> Void)? = nil
    ) -> MediaGraphRun {
        let handle = MediaGraphRun(run: ThreadedRun(graph: self, queueDepth: queueDepth, stop: stop ?? StopSignal()))
        handle.begin(onEnd)
        return handle
    }
}

/// A graph started with ``MediaGraph/start(queueDepth:stop:onEnd:)``: its progress, a way to stop it and a
/// way to wait for its end, from any thread.
public final class MediaGraphRun: Sendable {
    let run: ThreadedRun
    private let done = DispatchSemaphore(value: 0)
    /// How the run ended (once it has), and the tasks waiting in ``finished()`` until then.
    private let outcome = Locked<
        (
            result: Result<MediaGraph.Progress, any Error>?,
            waiters: [CheckedContinuation<MediaGraph.Progress, any Error>]
        )
    >((nil, []))

    init(run: ThreadedRun) { self.run = run }

    func begin(_ onEnd: (@Sendable (Result<MediaGraph.Progress, any Error>) -> Void)?) {
        run.start { [done, outcome] result in
            onEnd?(result)
            let waiters = outcome.withLock { state in
                state.result = result
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(with: result) }
            done.signal()
        }
    }

    /// Waits, without blocking a thread, until the run has ended, and returns its progress or throws
    /// its error, as ``MediaGraph/run(queueDepth:stop:progress:)`` would: `start` plus `finished()` is
    /// the async run with a handle for changes while it runs.
    ///
    /// ```swift
    /// let run = graph.start()
    /// Task { try await Task.sleep(for: .seconds(10)); try run.addSink(recording, tracks: [video, audio]) }
    /// let progress = try await run.finished()
    /// ```
    ///
    /// Cancelling the waiting task stops the run (sources stop, stages drain, every sink finishes), and
    /// then throws `CancellationError`. Any number of tasks may wait, at any time.
    public func finished() async throws -> MediaGraph.Progress {
        let progress = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<MediaGraph.Progress, any Error>) in
                let ended = outcome.withLock { state -> Result<MediaGraph.Progress, any Error>? in
                    if state.result == nil { state.waiters.append(continuation) }
                    return state.result
                }
                if let ended { continuation.resume(with: ended) }
            }
        } onCancel: {
            run.requestStop()
        }
        if Task.isCancelled { throw CancellationError() }
        return progress
    }

    /// What the run has done so far.
    public var progress: MediaGraph.Progress { run.progress }

    /// Whether every sink has finished (and `onEnd` has been called or is being called).
    public var hasEnded: Bool { run.hasEnded }

    /// Asks the graph to stop: the sources stop being read, every stage drains, every sink finishes
    /// (see ``StopSignal``). Returns at once.
    public func stop() { run.requestStop() }

    /// Waits until `onEnd` has returned. Any number of threads may wait, at any time.
    public func wait() {
        done.wait()
        done.signal()
    }
}
