/// How much a multi-track sink's input may buffer while it waits for a slow track: the bound of a
/// ``MediaGraph``'s interleaving.
///
/// A ``MultiTrackSink`` receives samples in decode-time order across its tracks. To know that the
/// earliest queued sample is the next one, the graph must hear from every track; a track that is
/// slower (an encoder's look-ahead), stalls (a camera that delivers nothing) or ends early would make
/// the others wait for ever. The policy:
///
/// 1. A queued sample is written as soon as no track can still produce an earlier one: every other
///    track either has an earlier sample queued, has already delivered a sample at or after it, or has
///    ended.
/// 2. Otherwise it waits, while the sink's queue holds at most ``maxQueuedSamples`` samples **and**
///    spans at most ``maxQueuedDuration`` of media (from the earliest queued decode time to the latest).
///    Past either limit the earliest sample is written anyway: the output is then interleaved less
///    tightly (which every container accepts), never unbounded in memory.
/// 3. Before the first write, the sink needs every track's format (``MultiTrackSink/begin(tracks:)``),
///    so it waits for every track's first sample however much media that spans (an encoder's
///    look-ahead can hold back two seconds and more), up to ``maxQueuedSamples``. If a track has
///    produced nothing when the queue holds that many, the run stops with a
///    ``MediaError/Code/stalled`` error naming the silent tracks.
///
/// So the queue in front of one sink never holds more than `maxQueuedSamples` samples and, once every
/// track has started, never more than `maxQueuedDuration` of media plus one sample per track.
public struct Interleaving: Sendable, Hashable {
    /// The most samples a sink's queue holds while it waits for a slow track. Default 1024.
    public var maxQueuedSamples: Int
    /// The longest span of media (decode times) a sink's queue holds while it waits. Default 2 s.
    public var maxQueuedDuration: MediaTime

    /// A bound of `maxQueuedSamples` samples and `maxQueuedDuration` of media.
    public init(maxQueuedSamples: Int = 1024, maxQueuedDuration: MediaTime = MediaTime(value: 2, timescale: 1)) {
        self.maxQueuedSamples = max(1, maxQueuedSamples)
        self.maxQueuedDuration = maxQueuedDuration
    }

    /// A bound of `maxQueuedSamples` samples and `maxQueuedDuration` of media given as a Swift `Duration`
    /// (`.seconds(4)`), converted by ``MediaTime/init(_:)``.
    @_disfavoredOverload
    public init(maxQueuedSamples: Int = 1024, maxQueuedDuration: Duration) {
        self.init(maxQueuedSamples: maxQueuedSamples, maxQueuedDuration: MediaTime(maxQueuedDuration))
    }
}
