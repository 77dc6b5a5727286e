/// A ``MediaSource`` with its life cycle enforced: the guard every driver (``Pipeline``, ``MediaGraph``,
/// ``MediaSource/samples``) reads a source through, and the one to use when reading a source by hand.
///
/// ```swift
/// let reader = CheckedSource(try WAVReader(path: "cut.wav"))
/// while let sample = try reader.next() { … }   // throws, stamped "WAVReader, sample 212"
/// try reader.next()                            // nil: the reader is not called again
/// ```
///
/// - After the end: once the source returned `nil`, ``next()`` returns `nil` without calling it.
/// - After an error: the error is stamped with the source's name (``MediaError/stage``) and the index
///   of the sample asked for (``MediaError/sampleIndex``), unless it has them already; then the source
///   counts as failed and ``next()`` returns `nil` without calling it, as an `AsyncIteratorProtocol`
///   iterator does after a throw. So every source behaves the same after an error, whatever it does
///   itself: one policy, here.
///
/// Wrapping a `CheckedSource` in a driver does not wrap it again.
public final class CheckedSource: MediaSource {
    /// The wrapped source. Read it between calls to ``next()``.
    public private(set) var base: any MediaSource
    // Unchecked exclusivity, as in CheckedStage: nothing writes `life` while a call into the source runs.
    @exclusivity(unchecked) private var life: LifeCycle

    /// `source` with its life cycle enforced.
    public init(_ source: any MediaSource) {
        base = source
        life = LifeCycle(name: source.name)
    }

    /// `source` itself when it is a `CheckedSource` already, otherwise `source` wrapped in one.
    static func wrapping(_ source: any MediaSource) -> CheckedSource {
        source as? CheckedSource ?? CheckedSource(source)
    }

    /// The source's name: ``MediaSource/name`` of the wrapped source, read once.
    public var name: String { life.name }

    /// Where the source is: ``StageState/open`` while it gives samples, ``StageState/finished`` after
    /// its end, ``StageState/failed`` after it threw.
    public var state: StageState { life.state }

    /// The samples the source has given.
    public var sampleCount: Int64 { life.count }

    /// The source's next sample; `nil` at its end, and ever after its end or an error.
    ///
    /// - Throws: the source's error, stamped with its name and the index of the sample asked for.
    public func next() throws -> MediaSample? {
        guard life.isOpen else { return nil }
        do {
            guard let sample = try base.next() else {
                try? life.enterFinish(afterFailure: false)
                return nil
            }
            life.count += 1
            return sample
        } catch {
            throw life.failure(error)
        }
    }
}

extension CheckedSource: WrappingComponent {
    /// The wrapped source, so that a run's logger reaches it.
    public var wrappedComponent: Any { base }
}
