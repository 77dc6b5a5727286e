public import MediaCore

/// Decides a live video encoder's target bit rate from what a ``LiveStreamSink``'s queue shows: the
/// hook behind ``AdaptiveBitRate``, what OBS's "dynamic bitrate" and HaishinKit's
/// `IOStreamBitRateStrategyConvertible` are.
///
/// ```swift
/// struct HalveOnDrops: BitRatePolicy {
///     var dropped = 0
///     mutating func bitRate(after observation: BitRateObservation) -> Int? {
///         defer { dropped = observation.stats.droppedFrames }
///         return observation.stats.droppedFrames > dropped ? observation.bitRate / 2 : nil
///     }
/// }
/// ```
///
/// The sink calls ``bitRate(after:)`` about every ``AdaptiveBitRate/interval`` while samples are being
/// written, on the thread that writes them, with the stats at that moment; the policy keeps whatever
/// state it needs between calls (it is a value the sink owns). It answers a new target in bits per
/// second, or `nil` to keep the current one. The sink writes the answer to the ``/MediaCore/BitRateControl``
/// (clamped to ``/MediaCore/BitRateControl/validRange``) when it differs from the control's target; the encoder
/// applies it before its next frame. ``QueueDepthBitRatePolicy`` is the default.
public protocol BitRatePolicy: Sendable {
    /// The new target after `observation`, in bits per second, or `nil` to keep the current one.
    mutating func bitRate(after observation: BitRateObservation) -> Int?
}

/// What a ``BitRatePolicy`` decides from: a ``LiveStreamSink``'s stats, its queue limit, the target
/// now and the time of the observation.
public struct BitRateObservation: Sendable, Hashable {
    /// The sink's stats at the time of the observation.
    public var stats: LiveStreamSink.Stats
    /// The sink's queue limit (``LiveStreamSink/maxQueueDuration``).
    public var queueLimit: MediaTime
    /// The control's target now, in bits per second.
    public var bitRate: Int
    /// When the observation was made: host time on the monotonic clock (``/MediaCore/MediaClock/hostTime``).
    public var time: MediaTime

    /// An observation of `stats` against `queueLimit` at `time`, with the target at `bitRate`.
    public init(stats: LiveStreamSink.Stats, queueLimit: MediaTime, bitRate: Int, time: MediaTime) {
        self.stats = stats
        self.queueLimit = queueLimit
        self.bitRate = bitRate
        self.time = time
    }

    /// How full the queue is: ``LiveStreamSink/Stats/queueSeconds`` over the limit (0 when empty, 1 at
    /// the limit, where video starts being dropped).
    public var queueFraction: Double {
        guard let limit = queueLimit.seconds, limit > 0 else { return 0 }
        return stats.queueSeconds / limit
    }
}
