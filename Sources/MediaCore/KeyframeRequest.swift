import Synchronization

/// A mailbox asking a running video encoder for a keyframe as soon as it can: VideoToolbox's
/// `kVTEncodeFrameOptionKey_ForceKeyFrame`, GStreamer's force-key-unit event. A `ReconnectingSink`
/// (MediaStreaming) given one asks for a keyframe when it has reconnected, so the stream resumes within a frame or two
/// instead of waiting up to a whole GOP.
///
/// ```swift
/// let keyframes = KeyframeRequest()
/// let encoder = try H264Encoder(settings: settings, keyframeRequest: keyframes)
/// let output = ReconnectingSink(name: url, keyframeRequest: keyframes) { try ContainerMuxer(url: url) }
/// ```
///
/// - Writers: anyone, from any thread (``request()``). Requests made between two frames count once.
/// - Reader: the encoder, on its own stage thread, once per frame (``take()``: one atomic exchange, no
///   lock, no allocation); it codes the next frame it is given as an IDR picture.
public final class KeyframeRequest: Sendable {
    private let pending = Atomic<Bool>(false)
    private let served = Atomic<Int>(0)

    /// No keyframe requested yet.
    public init() {}

    /// Asks for the next frame the encoder is given to be a keyframe.
    public func request() {
        pending.store(true, ordering: .releasing)
    }

    /// Whether a keyframe was requested since the last call (the encoder's side); clears the request.
    public func take() -> Bool {
        guard pending.exchange(false, ordering: .acquiringAndReleasing) else { return false }
        served.add(1, ordering: .relaxed)
        return true
    }

    /// How many requests an encoder has taken so far.
    public var taken: Int { served.load(ordering: .relaxed) }
}

/// A stage that can code its next picture as a keyframe when asked between two samples, on the thread
/// that runs it: MediaFFmpeg's `H264Encoder`, and a ``MediaBin`` holding one. A running graph asks
/// the stages of a branch when a sink joins it (``MediaGraphRun/addSink(_:tracks:startsAtZero:onEnd:)``),
/// so that a recording started mid-stream begins within a frame or two instead of waiting up to a GOP.
public protocol KeyframeForcing: AnyObject {
    /// Makes the next picture this stage codes a keyframe (an IDR picture). Called between two calls
    /// of `process`, on the thread that calls them.
    func forceKeyframe()
}
