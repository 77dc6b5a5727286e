/// Produces samples: a file reader, a generator, a capture device.
///
/// Call ``next()`` until it returns `nil` (end of stream). After `nil` or a thrown error, further
/// calls return `nil` or throw; they never trap. One policy holds for every source whatever it does
/// itself: the drivers read it through a ``CheckedSource``, which stamps its error with its name and
/// sample index and does not call it again after its end or an error (`nil` from then on).
public protocol MediaSource {
    /// The next sample, or `nil` at the end of the stream.
    mutating func next() throws -> MediaSample?
    /// A short name for errors and progress, e.g. `WAVReader`. Defaults to the type's name.
    var name: String { get }
}

/// Turns samples into samples: converters, encoders, decoders. A small synchronous state machine.
///
/// A stage accepts any input size and emits zero or more outputs per input; emitting nothing means
/// "needs more input", not an error. ``finish(into:)`` drains everything held back (encoder delay,
/// resampler tail). A sample whose format the stage cannot take throws
/// ``MediaError/Code/formatMismatch`` naming both formats.
///
/// **The driver owns the life cycle.** ``Pipeline`` and ``MediaGraph`` call ``process(_:into:)`` per
/// sample, then ``finish(into:)`` once, and nothing after a throw; they stamp every error with the
/// stage's ``name`` and the index of the sample it was given. A stage therefore keeps only its media
/// logic: it need not guard against calls out of order, nor name itself in its errors. To drive a
/// stage by hand, wrap it in a ``CheckedStage``, which gives the same guarantees (a call after
/// `finish` or after a throw throws ``MediaError/Code/stageFinished``) and the same stamping.
public protocol MediaStage {
    /// Consumes one sample and emits zero or more.
    mutating func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws
    /// End of stream: emits what is held back. Called exactly once (the driver, or a ``CheckedStage``,
    /// guarantees it).
    mutating func finish(into emit: (MediaSample) throws -> Void) throws
    /// A short name for errors and progress, e.g. `AACEncoder`. Defaults to the type's name.
    var name: String { get }
}

/// Consumes samples: muxers, file writers, playback.
///
/// ``finish()`` writes what is pending (trailer, patched sizes) and closes; what was written before an
/// error stays a valid file once `finish` has run.
///
/// **The driver owns the life cycle.** ``Pipeline`` and ``MediaGraph`` call ``write(_:)`` per sample,
/// no write after one threw, and ``finish()`` once, also after a failed write; they stamp every error
/// with the sink's ``name`` and the index of the sample written. A sink keeps only its media logic. To
/// drive a sink by hand, wrap it in a ``CheckedSink``, which gives the same guarantees (a write after
/// `finish` or after a throw, or a second `finish`, throws ``MediaError/Code/stageFinished``).
public protocol MediaSink {
    /// Consumes one sample.
    mutating func write(_ sample: MediaSample) throws
    /// Writes what is pending and closes the output. Called once (the driver, or a ``CheckedSink``,
    /// guarantees it), also after a failed write.
    mutating func finish() throws
    /// A short name for errors and progress, e.g. `ADTSMuxer`. Defaults to the type's name.
    var name: String { get }
}

extension MediaSource {
    /// The type's name.
    public var name: String { String(describing: type(of: self)) }
}

extension MediaStage {
    /// The type's name.
    public var name: String { String(describing: type(of: self)) }
}

extension MediaSink {
    /// The type's name.
    public var name: String { String(describing: type(of: self)) }
}
