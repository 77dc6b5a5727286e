/// The life cycle every driver guarantees a stage or sink, and the stamping of its errors, in one
/// place: calls in order (`process`/`write` per sample, `finish` once), nothing after a throw (but a
/// sink's `finish`, so that what was written stays a valid file), and every error the stage itself
/// throws stamped with its name and the index of the sample it was given. ``CheckedStage``,
/// ``CheckedSink`` and ``CheckedMultiTrackSink`` are its faces for the three protocols.
///
/// ```swift
/// guard life.isOpen else { throw life.refusal }
/// try life.call(counting: true) { try stage.process(sample, into: emit) }  // emit wraps its errors
///                                                                         // in DownstreamError
/// ```
///
/// The name is computed once, at init: the per-sample path does no string work (`String(describing:)`
/// per sample cost 0.6 µs per stage hop).
struct LifeCycle {
    /// The stage's name, stamped on its errors.
    let name: String
    /// Where the stage is.
    private(set) var state = StageState.open
    /// Samples given to the stage that it took: the index of the one it is given next.
    var count: Int64 = 0

    init(name: String) {
        self.name = name
    }

    /// Whether the stage takes calls. Read this, not a copy of the whole value, on the per-sample
    /// path: a copy retains the name.
    var isOpen: Bool { state == .open }

    /// The error for a call the stage cannot take now: ``MediaError/Code/stageFinished``, stamped.
    var refusal: MediaError {
        MediaError.stageFinished(name).inStage(name, sampleIndex: count)
    }

    /// Marks the stage finished before its `finish` runs; throws ``MediaError/Code/stageFinished`` if it
    /// already was, or if it failed and `afterFailure` (a sink's finish) is `false`.
    mutating func enterFinish(afterFailure: Bool) throws(MediaError) {
        guard state == .open || (afterFailure && state == .failed) else { throw refusal }
        state = .finished
    }

    /// Runs `body`, one call into the stage that the checks before it let through: counts a sample
    /// taken when `counting` and `body` returns; on a throw, rethrows what ``failure(_:)`` makes of it.
    @inline(__always)
    mutating func call(counting: Bool, _ body: () throws -> Void) throws {
        do {
            try body()
            if counting { count += 1 }
        } catch {
            throw failure(error)
        }
    }

    /// What to rethrow for `error`, thrown out of a call to the stage: an error from downstream (a
    /// ``DownstreamError``, which the emit closure made of it) unwrapped, as it is, leaving the stage
    /// open; the stage's own error stamped with its name and sample index, the stage marked failed.
    mutating func failure(_ error: any Error) -> any Error {
        if let downstream = error as? DownstreamError { return downstream.error }
        if state == .open { state = .failed }
        return stamped(error)
    }

    /// `error` with this stage's name and sample index, unless it names a stage or sample already.
    func stamped(_ error: any Error) -> any Error {
        guard let media = error as? MediaError else { return error }
        return media.inStage(name, sampleIndex: count)
    }
}

/// An error thrown by what a stage emits into (the stages after it, a sink, a caller's closure),
/// travelling up through the stage's own `process` or `finish`: the stage's guard rethrows the error
/// inside as it is, neither stamping it nor counting the stage as failed.
struct DownstreamError: Error {
    let error: any Error
}
