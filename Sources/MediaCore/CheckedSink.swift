/// A ``MediaSink`` with its life cycle enforced: the guard ``Pipeline`` and ``MediaGraph`` put around
/// each sink, and the one to use when driving a sink by hand.
///
/// ```swift
/// let muxer = CheckedSink(ADTSMuxer(output: try FileOutput(path: "out.aac")))
/// for packet in packets { try muxer.write(packet) }
/// try muxer.finish()
/// ```
///
/// - Order: ``write(_:)`` per sample, then ``finish()`` once. A write after `finish`, or after a throw,
///   throws ``MediaError/Code/stageFinished`` naming the sink, and the sink is not called. ``finish()``
///   still runs once after a failed write, so that what was written stays a valid file; a second
///   `finish` throws ``MediaError/Code/stageFinished``.
/// - Errors: an error the sink throws gets ``MediaError/stage`` (the sink's name, computed once here)
///   and ``MediaError/sampleIndex`` (the index of the sample written; for `finish`, the number
///   written), unless it has them already.
public final class CheckedSink: MediaSink {
    /// The sink's name: ``MediaSink/name`` of the wrapped sink, read once.
    public let name: String
    /// The wrapped sink, with everything written to it.
    public private(set) var base: any MediaSink
    // Unchecked exclusivity: `life` is modified around each call into the wrapped value (`call` runs
    // it), and nothing else writes it meanwhile: a driver never calls this guard again from inside its
    // own emit (graphs are acyclic), and a read of `state`/`sampleCount` from a caller's emit closure
    // sees the value from before the call (the count and state change after it returns). Calling the
    // same guard re-entrantly from its own emit is a programming error this does not trap. The dynamic
    // check cost more than the rest of a stage hop (it walks every access held by the stages before).
    @exclusivity(unchecked) private var life: LifeCycle

    /// `sink` with its life cycle enforced.
    public init(_ sink: any MediaSink) {
        base = sink
        name = sink.name
        life = LifeCycle(name: name)
    }

    /// `sink` itself when it is a `CheckedSink` already, otherwise `sink` wrapped in one.
    static func wrapping(_ sink: any MediaSink) -> CheckedSink {
        sink as? CheckedSink ?? CheckedSink(sink)
    }

    /// Where the sink is in its life cycle.
    public var state: StageState { life.state }

    /// The samples the sink has taken: ``write(_:)`` calls that returned.
    public var sampleCount: Int64 { life.count }

    /// Gives `sample` to the sink.
    ///
    /// - Throws: ``MediaError/Code/stageFinished`` after ``finish()`` or after a throw; the sink's
    ///   errors, stamped.
    public func write(_ sample: MediaSample) throws {
        guard life.isOpen else { throw life.refusal }
        try life.call(counting: true) { try base.write(sample) }
    }

    /// Writes what is pending and closes the output: once, also after a failed write.
    ///
    /// - Throws: ``MediaError/Code/stageFinished`` when called again; the sink's errors, stamped.
    public func finish() throws {
        try life.enterFinish(afterFailure: true)
        try life.call(counting: false) { try base.finish() }
    }
}

@available(*, unavailable) extension CheckedSink: Sendable {}
