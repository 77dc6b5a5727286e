/// A ``MediaStage`` with its life cycle enforced: the guard every driver (``Pipeline``, ``MediaGraph``)
/// puts around each stage, and the one to use when driving a stage by hand.
///
/// ```swift
/// let encoder = CheckedStage(try AACEncoder(bitRate: 96_000))
/// for sample in pcmSamples { try encoder.process(sample) { packet in send(packet) } }
/// try encoder.finish { packet in send(packet) }   // drains the last frames
/// try encoder.finish { _ in }                     // throws .stageFinished naming AACEncoder
/// ```
///
/// - Order: ``process(_:into:)`` per sample, then ``finish(into:)`` once. A call after `finish`, or
///   after the stage threw, throws ``MediaError/Code/stageFinished`` naming the stage, and the stage is
///   not called: a stage never sees a call out of order, so it keeps only its media logic.
/// - Errors: an error the stage throws gets ``MediaError/stage`` (the stage's name, computed once here)
///   and ``MediaError/sampleIndex`` (the index of the sample given to this stage; for `finish`, the
///   number of samples it was given), unless it has them already, and the stage counts as failed.
/// - Downstream: an error thrown by `emit` (the stages after this one, a sink, the caller's closure)
///   comes out as it is: not stamped with this stage's name, and this stage stays open.
///
/// Wrapping a `CheckedStage` in a driver does not wrap it again.
public final class CheckedStage: MediaStage {
    /// The stage's name: ``MediaStage/name`` of the wrapped stage, read once.
    public let name: String
    /// The wrapped stage. Read it between calls, not from inside `emit`, where the stage is being
    /// modified.
    public private(set) var base: any MediaStage
    // Unchecked exclusivity: `life` is modified around each call into the wrapped value (`call` runs
    // it), and nothing else writes it meanwhile: a driver never calls this guard again from inside its
    // own emit (graphs are acyclic), and a read of `state`/`sampleCount` from a caller's emit closure
    // sees the value from before the call (the count and state change after it returns). Calling the
    // same guard re-entrantly from its own emit is a programming error this does not trap. The dynamic
    // check cost more than the rest of a stage hop (it walks every access held by the stages before).
    @exclusivity(unchecked) private var life: LifeCycle

    /// `stage` with its life cycle enforced.
    public init(_ stage: any MediaStage) {
        base = stage
        name = stage.name
        life = LifeCycle(name: name)
    }

    /// `stage` itself when it is a `CheckedStage` already, otherwise `stage` wrapped in one.
    static func wrapping(_ stage: any MediaStage) -> CheckedStage {
        stage as? CheckedStage ?? CheckedStage(stage)
    }

    /// Where the stage is in its life cycle.
    public var state: StageState { life.state }

    /// The samples the stage has taken: ``process(_:into:)`` calls that returned.
    public var sampleCount: Int64 { life.count }

    /// Gives `sample` to the stage.
    ///
    /// - Throws: ``MediaError/Code/stageFinished`` after ``finish(into:)`` or after a throw; the stage's
    ///   errors, stamped; `emit`'s errors, as they are.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        try process(
            sample,
            forwardingTo: { output in
                do { try emit(output) } catch { throw DownstreamError(error: error) }
            })
    }

    /// Ends the stream: the stage emits what it holds back. Once.
    ///
    /// - Throws: ``MediaError/Code/stageFinished`` when called again or after a throw; the stage's
    ///   errors, stamped; `emit`'s errors, as they are.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        try finish(forwardingTo: { output in
            do { try emit(output) } catch { throw DownstreamError(error: error) }
        })
    }

    /// ``process(_:into:)`` for a driver whose `emit` wraps every error it throws in a
    /// ``DownstreamError`` itself: one closure per hop instead of two (a closure call is a third of a
    /// stage hop's cost). Inlined into the drivers: every call frame per hop counts, as a deep chain of
    /// stages outgrows the processor's return-address predictor.
    @inline(__always)
    func process(_ sample: MediaSample, forwardingTo emit: (MediaSample) throws -> Void) throws {
        guard life.isOpen else { throw life.refusal }
        try life.call(counting: true) { try base.process(sample, into: emit) }
    }

    /// ``finish(into:)`` for a driver whose `emit` wraps every error it throws in a ``DownstreamError``.
    func finish(forwardingTo emit: (MediaSample) throws -> Void) throws {
        try life.enterFinish(afterFailure: false)
        try life.call(counting: false) { try base.finish(into: emit) }
    }
}

@available(*, unavailable) extension CheckedStage: Sendable {}
