extension Pipeline {
    /// Runs like ``run(stop:progress:)``, but each stage and the sink on a thread of its own, with queues of
    /// at most `queueDepth` samples between them: an encoder works on one core while the reader,
    /// converter and muxer work on another. Memory stays bounded by the queue depths.
    ///
    /// The source runs on the calling thread, which also calls `progress` after each source sample. The
    /// output is the same as ``run(stop:progress:)``'s, sample for sample: each thread drives its stage
    /// through the same loop (``MediaBin``'s, the graph's) and the sink through the same runner as a
    /// ``MediaGraph``. On the first error anywhere, the other stages stop processing, the sink is
    /// finished so that what was written stays a valid file, and the error is rethrown with the failing
    /// stage's name and sample index. When the source fails, the stages first drain what they hold into
    /// the sink, as in ``run(stop:progress:)``. `stop` ends the run early as there.
    @discardableResult
    public mutating func runConcurrently(
        queueDepth: Int = 8, stop: StopSignal? = nil, progress report: ((Progress) throws -> Void)? = nil
    ) throws -> Progress {
        try run.runConcurrently(queueDepth: queueDepth, stop: stop, progress: report)
    }
}

/// What the threads of a concurrent run share: the first error, which also tells the others to stop.
private final class RunState: Sendable {
    private let firstError = Locked<(any Error)?>(nil)

    /// Keeps `error` if it is the first.
    func record(_ error: any Error) {
        firstError.withLock { if $0 == nil { $0 = error } }
    }

    /// The first error, if any.
    var error: (any Error)? { firstError.withLock { $0 } }
    /// Whether some thread failed.
    var isFailed: Bool { firstError.withLock { $0 != nil } }
}

extension PipelineRun {
    func runConcurrently(
        queueDepth: Int, stop: StopSignal?, progress report: ((Pipeline.Progress) throws -> Void)?
    ) throws
        -> Pipeline.Progress
    {
        try begin()
        // The source stays on this thread; each stage gets a chain, and a thread, of its own.
        let head = branch
        let chains = branch.stages.map { StageChain([$0]) }
        let queues = (0...chains.count).map { _ in BoundedQueue<PipelineItem>(capacity: queueDepth) }
        let state = RunState()
        let written = Locked(sink.counts)
        var threads: [StageThread] = []
        defer { threads.forEach { $0.join() } }

        do {
            for (index, chain) in chains.enumerated() {
                threads.append(
                    try StageThread { runChain(chain, from: queues[index], to: queues[index + 1], state: state) })
            }
            let sinkInput = queues[chains.count]
            threads.append(
                try StageThread { [sink] in runSink(sink, from: sinkInput, counts: written, state: state) })
        } catch {
            // Unwind the threads already started: each passes the end of the stream on and returns.
            state.record(error)
            queues[0].put(.end)
            throw error
        }

        // A failing source (a file cut short) ends the stream as its end would, so the stages drain
        // into the sink before its error is thrown, as in the synchronous run.
        do {
            while !state.isFailed, !(stop?.isRequested ?? false), let sample = head.pull() {
                queues[0].put(.sample(sample))
                try report?(current(branch: head.counts, sink: written.withLock { $0 }))
            }
        } catch {
            state.record(error)
        }
        queues[0].put(.end)
        threads.forEach { $0.join() }
        if let error = head.sourceError ?? state.error { throw error }
        return current(branch: head.counts, sink: written.withLock { $0 })
    }
}

/// One stage's thread: pushes each sample through its chain until the end of the stream, then drains
/// it and passes the end on. After an error anywhere it keeps taking (and dropping) samples, so that the
/// threads before it never block.
private func runChain(
    _ chain: StageChain, from input: BoundedQueue<PipelineItem>, to output: BoundedQueue<PipelineItem>,
    state: RunState
) {
    // Never throws, so what the chain's last stage emits needs no DownstreamError.
    let emit: (MediaSample) throws -> Void = { output.put(.sample($0)) }
    while true {
        switch input.take() {
        case .sample(let sample):
            guard !state.isFailed else { continue }
            do { try chain.push(sample, deliver: emit) } catch { state.record(error) }
        case .end:
            if !state.isFailed {
                do { try chain.drain(deliver: emit) } catch { state.record(error) }
            }
            if state.isFailed { chain.abandon() }  // does nothing after a drain
            output.put(.end)
            return
        }
    }
}

/// The sink's thread: writes until the end of the stream, then finishes, even after an error
/// elsewhere, so that what was written stays valid. Its counts go to `counts` after each sample.
private func runSink(
    _ sink: SinkRunner, from input: BoundedQueue<PipelineItem>, counts: Locked<MediaGraph.Progress.Sink>,
    state: RunState
) {
    while true {
        switch input.take() {
        case .sample(let sample):
            guard !state.isFailed else { continue }
            do { try sink.receive(sample, track: 0) } catch { state.record(error) }
        case .end:
            if !state.isFailed {
                do { try sink.endTrack(0) } catch { state.record(error) }
            }
            sink.finishAfterError()  // does nothing when the sink has finished
        }
        let snapshot = sink.counts
        counts.withLock { $0 = snapshot }
        if sink.isDone { return }
    }
}
