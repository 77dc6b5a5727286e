/// A sink that reconnects (``ReconnectingSink``) and may therefore accept samples it cannot send:
/// ``LiveStreamSink`` reports its counts as ``LiveStreamSink/Stats/reconnects`` and
/// ``LiveStreamSink/Stats/droppedWhileReconnecting``.
public protocol ReconnectCounting: SentByteCounting {
    /// Successful reconnections so far.
    var reconnects: Int { get }
    /// Samples accepted by `write` but not sent, so far.
    var discardedSamples: Int { get }
}
