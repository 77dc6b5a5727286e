import Synchronization

/// Asks a running ``MediaGraph`` to end early, from any thread (a signal handler's queue, a UI, a
/// timer): like sending GStreamer's end-of-stream event.
///
/// When asked, the graph stops reading its sources, drains every stage (an encoder's delayed frames
/// still reach the file), finishes every sink (so each file is complete and playable) and then returns
/// normally, as if every source had ended. The async ``MediaGraph/run(queueDepth:stop:progress:)`` uses one when its
/// task is cancelled, and then throws `CancellationError`.
public final class StopSignal: Sendable {
    private let requested = Atomic<Bool>(false)

    /// A signal not yet given.
    public init() {}

    /// Asks the graph to stop. Calling it again does nothing more.
    public func request() { requested.store(true, ordering: .releasing) }

    /// Whether a stop was asked for.
    public var isRequested: Bool { requested.load(ordering: .acquiring) }
}
