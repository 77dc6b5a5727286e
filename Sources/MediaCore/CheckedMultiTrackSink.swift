/// A ``MultiTrackSink`` with its life cycle enforced: the guard ``MediaGraph`` puts around each sink,
/// and the one to use when driving a multi-track sink (a `ContainerMuxer`) by hand.
///
/// ```swift
/// let muxer = CheckedMultiTrackSink(try ContainerMuxer(path: "out.mp4"))
/// try muxer.begin(tracks: [.video(h264Format), .audio(aacFormat)])
/// for (sample, track) in samplesInDecodeOrder { try muxer.write(sample, track: track) }
/// try muxer.finish()
/// ```
///
/// - Order: ``begin(tracks:)`` (or ``begin(firstSamples:)``) once, then ``write(_:track:)`` per sample,
///   then ``finish()`` once. A second `begin`, or a write before `begin`, throws
///   ``MediaError/Code/invalidArgument``; a call after `finish`, or after a throw, throws
///   ``MediaError/Code/stageFinished`` naming the sink, and the sink is not called. ``finish()`` still
///   runs once after a failed call (also without `begin`), so that what was written stays a valid file.
/// - Errors: an error the sink throws gets ``MediaError/stage`` (the sink's name, computed once here)
///   and ``MediaError/sampleIndex`` (the index of the sample written, counted over all tracks; for
///   `begin` 0, for `finish` the number written), unless it has them already.
public final class CheckedMultiTrackSink: MultiTrackSink {
    /// The sink's name: ``MultiTrackSink/name`` of the wrapped sink, read once.
    public let name: String
    /// The wrapped sink, with everything written to it.
    public private(set) var base: any MultiTrackSink
    // Unchecked exclusivity: `life` is modified around each call into the wrapped value (`call` runs
    // it), and nothing else writes it meanwhile: a driver never calls this guard again from inside its
    // own emit (graphs are acyclic), and a read of `state`/`sampleCount` from a caller's emit closure
    // sees the value from before the call (the count and state change after it returns). Calling the
    // same guard re-entrantly from its own emit is a programming error this does not trap. The dynamic
    // check cost more than the rest of a stage hop (it walks every access held by the stages before).
    @exclusivity(unchecked) private var life: LifeCycle
    private var hasBegun = false

    /// `sink` with its life cycle enforced.
    public init(_ sink: any MultiTrackSink) {
        base = sink
        name = sink.name
        life = LifeCycle(name: name)
    }

    /// `sink` itself when it is a `CheckedMultiTrackSink` already, otherwise `sink` wrapped in one.
    static func wrapping(_ sink: any MultiTrackSink) -> CheckedMultiTrackSink {
        sink as? CheckedMultiTrackSink ?? CheckedMultiTrackSink(sink)
    }

    /// Where the sink is in its life cycle.
    public var state: StageState { life.state }

    /// The samples the sink has taken: ``write(_:track:)`` calls that returned.
    public var sampleCount: Int64 { life.count }

    /// Gives the sink its tracks' formats (`nil` for a track that ended empty). Once, before any write.
    ///
    /// - Throws: ``MediaError/Code/invalidArgument`` when called again; ``MediaError/Code/stageFinished``
    ///   after ``finish()`` or after a throw; the sink's errors, stamped.
    public func begin(tracks: [MediaFormat?]) throws {
        try enterBegin()
        try life.call(counting: false) { try base.begin(tracks: tracks) }
    }

    /// Gives the sink each track's first sample (`nil` for a track that ended empty), as a
    /// ``MediaGraph`` does. Once, before any write.
    ///
    /// - Throws: as ``begin(tracks:)``.
    public func begin(firstSamples: [MediaSample?]) throws {
        try enterBegin()
        try life.call(counting: false) { try base.begin(firstSamples: firstSamples) }
    }

    /// Gives the sink `sample` of track `track`.
    ///
    /// - Throws: ``MediaError/Code/invalidArgument`` before `begin`; ``MediaError/Code/stageFinished``
    ///   after ``finish()`` or after a throw; the sink's errors, stamped.
    public func write(_ sample: MediaSample, track: Int) throws {
        guard life.isOpen else { throw life.refusal }
        guard hasBegun else {
            throw life.stamped(MediaError(.invalidArgument, "\(name).write(_:track:) was called before begin(tracks:)"))
        }
        try life.call(counting: true) { try base.write(sample, track: track) }
    }

    /// Writes what is pending and closes the output: once, also after a failed call or without `begin`.
    ///
    /// - Throws: ``MediaError/Code/stageFinished`` when called again; the sink's errors, stamped.
    public func finish() throws {
        try life.enterFinish(afterFailure: true)
        try life.call(counting: false) { try base.finish() }
    }

    private func enterBegin() throws {
        guard life.isOpen else { throw life.refusal }
        guard !hasBegun else {
            throw life.stamped(MediaError(.invalidArgument, "\(name).begin(tracks:) was called twice"))
        }
        hasBegun = true
    }
}

@available(*, unavailable) extension CheckedMultiTrackSink: Sendable {}
