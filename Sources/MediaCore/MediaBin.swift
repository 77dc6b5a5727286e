/// Stages in a row that are themselves one stage: GStreamer's bin. A decoder, a converter and a
/// resampler become one "to PCM at 48 kHz" stage that any driver, another bin or a hand-written loop
/// can use like any other.
///
/// ```swift
/// let toDevice = MediaBin("ToDevice", stages: [AACDecoder(), try AudioConverter(format: .s16, sampleRate: 48_000)])
/// var pipeline = Pipeline(source: try ADTSReader(path: "in.aac"), stages: [toDevice], sink: playback)
/// try pipeline.run()
/// ```
///
/// - Order: ``process(_:into:)`` pushes a sample through the children in order, each sample a child
///   emits going straight to the next child and what the last one emits to `emit`; ``finish(into:)``
///   finishes the children in order, each draining what it holds into the ones after it. The children
///   are driven through the same loop and the same life-cycle guard (``CheckedStage``) as a pipeline's
///   stages: none is called after it threw or finished.
/// - Errors: a child's error names the child (``MediaError/stage``) and the index of the sample the
///   child was given. An error thrown by `emit` comes out as it is, and leaves the children open. A
///   driver (or a ``CheckedStage``) around the bin counts either as the bin's failure: nothing is given
///   to it afterwards.
///
/// A bin is a class because it owns its children's states; hand it to one thread at a time.
public final class MediaBin: MediaStage {
    /// The bin's name, for errors and progress: given at creation, `MediaBin` by default.
    public let name: String
    private let chain: StageChain

    /// A bin of `stages`, in order, named `name`.
    public init(_ name: String = "MediaBin", stages: [any MediaStage]) {
        self.name = name
        chain = StageChain(stages)
    }

    /// The children's names, in order.
    public var stageNames: [String] { chain.stages.map(\.name) }

    /// Pushes `sample` through the children; what the last one emits goes to `emit`.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        try chain.push(sample, deliver: emit)
    }

    /// Finishes the children in order, each draining into the ones after it; then `emit` has everything.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        try chain.drain(deliver: emit)
    }
}

extension MediaBin: KeyframeForcing {
    /// Asks every child that can (``KeyframeForcing``) for a keyframe.
    public func forceKeyframe() { chain.forceKeyframe() }
}

extension MediaBin: AbandonObserving {
    /// Tells the children the run let go of them.
    func runAbandoned() { chain.abandon() }
}

@available(*, unavailable) extension MediaBin: Sendable {}
