extension Pipeline {
    /// Runs like ``run(progress:)``, but each stage and the sink on a thread of its own, with queues of
    /// at most `queueDepth` samples between them: an encoder works on one core while the reader,
    /// converter and muxer work on another. Memory stays bounded by the queue depths.
    ///
    /// The source runs on the calling thread, which also calls `progress`. The output is the same as
    /// ``run(progress:)``'s, sample for sample. On the first error anywhere, the other stages stop
    /// processing, the sink is finished so that what was written stays a valid file, and the error is
    /// rethrown with the failing stage's name and sample index. When the source fails, the stages first drain what they
    /// hold into the sink, as in ``run(progress:)``.
    @discardableResult
    public mutating func runConcurrently(queueDepth: Int = 8, progress report: ((Progress) throws -> Void)? = nil)
        throws -> Progress
    {
        try engine.runConcurrently(queueDepth: queueDepth, progress: report)
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

/// Counts the sink's thread keeps; the source's thread reads them for each progress report.
private final class SinkCounts: Sendable {
    private let counts = Locked<(samples: Int64, bytes: Int64)>((0, 0))

    /// Counts one written sample of `bytes` bytes.
    func add(bytes: Int) {
        counts.withLock {
            $0.samples += 1; $0.bytes += Int64(bytes)
        }
    }

    /// Samples and bytes written so far.
    var current: (samples: Int64, bytes: Int64) { counts.withLock { $0 } }
}

extension Engine {
    func runConcurrently(queueDepth: Int, progress report: ((Pipeline.Progress) throws -> Void)?) throws
        -> Pipeline.Progress
    {
        guard !hasRun else { throw MediaError.stageFinished("Pipeline") }
        hasRun = true
        let queues = (0...stages.count).map { _ in BoundedQueue<PipelineItem>(capacity: queueDepth) }
        let state = RunState()
        let counts = SinkCounts()
        var threads: [StageThread] = []
        defer { threads.forEach { $0.join() } }

        do {
            for (index, stage) in stages.enumerated() {
                threads.append(
                    try StageThread { runStage(stage, from: queues[index], to: queues[index + 1], state: state) })
            }
            let sinkInput = queues[stages.count]
            threads.append(try StageThread { [sink] in runSink(sink, from: sinkInput, counts: counts, state: state) })
        } catch {
            // Unwind the threads already started: each passes the end of the stream on and returns.
            state.record(error)
            queues[0].put(.end)
            throw error
        }

        // A failing source (a file cut short) is not recorded as the run's failure until the stages
        // have drained what they hold into the sink, as in the synchronous run.
        var sourceError: (any Error)?
        do {
            while !state.isFailed {
                let next: MediaSample?
                do {
                    next = try source.next()
                } catch {
                    sourceError = error
                    break
                }
                guard let sample = next else { break }
                progress = progress.counting(sample)
                queues[0].put(.sample(sample))
                (progress.samplesWritten, progress.bytesWritten) = counts.current
                collectWarnings()
                try report?(progress)
            }
        } catch {
            state.record(error)
        }
        queues[0].put(.end)
        threads.forEach { $0.join() }
        if let error = sourceError ?? state.error { throw error }
        (progress.samplesWritten, progress.bytesWritten) = counts.current
        collectWarnings()
        return progress
    }
}

/// One stage's thread: process until the end of the stream, then finish and pass the end on. After an
/// error anywhere it keeps taking (and dropping) samples, so that the threads before it never block.
/// The ``CheckedStage`` keeps the stage's order and stamps its errors.
private func runStage(
    _ stage: CheckedStage, from input: BoundedQueue<PipelineItem>, to output: BoundedQueue<PipelineItem>,
    state: RunState
) {
    // Never throws, so it needs no DownstreamError.
    let emit: (MediaSample) throws -> Void = { output.put(.sample($0)) }
    while true {
        switch input.take() {
        case .sample(let sample):
            guard !state.isFailed else { continue }
            do { try stage.process(sample, forwardingTo: emit) } catch { state.record(error) }
        case .end:
            if !state.isFailed {
                do { try stage.finish(forwardingTo: emit) } catch { state.record(error) }
            }
            output.put(.end)
            return
        }
    }
}

/// The sink's thread: write until the end of the stream, then finish, even after an error elsewhere,
/// so that what was written stays valid.
private func runSink(_ sink: CheckedSink, from input: BoundedQueue<PipelineItem>, counts: SinkCounts, state: RunState) {
    while true {
        switch input.take() {
        case .sample(let sample):
            guard !state.isFailed else { continue }
            do {
                try sink.write(sample)
                counts.add(bytes: sample.byteCount)
            } catch {
                state.record(error)
            }
        case .end:
            if state.isFailed {
                try? sink.finish()
            } else {
                do { try sink.finish() } catch { state.record(error) }
            }
            return
        }
    }
}
