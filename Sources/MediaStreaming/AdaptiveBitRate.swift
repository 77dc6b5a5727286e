public import MediaCore

/// Adaptive bit rate for a ``LiveStreamSink``: a ``BitRatePolicy`` that watches the sink's queue and
/// a ``/MediaCore/BitRateControl`` that the video encoder reads, what OBS calls "dynamic bitrate". Pass one to
/// ``LiveStreamSink/init(_:clock:maxQueueDuration:adaptiveBitRate:)-(_,_,MediaTime,_)``; pass `nil` (the default) to
/// switch it off.
///
/// ```swift
/// let control = try BitRateControl(bitRate: 2_500_000)
/// let encoder = try H264Encoder(settings: settings, bitRateControl: control)   // settings: 2.5 Mb/s
/// let live = try LiveStreamSink(muxer, clock: clock, adaptiveBitRate: AdaptiveBitRate(control: control))
/// ```
///
/// - The sink asks the policy about every ``interval`` (250 ms of host time, ``/MediaCore/MediaClock/hostTime``)
///   on the thread that writes samples to it, just after a sample was queued or dropped: that thread
///   keeps running when the network stalls (the sender thread may sit in a blocking `send` for
///   seconds, exactly when the rate must come down). Each time costs one stats snapshot (a copy
///   under the queue's lock, then a sort of at most 4096 latencies outside it); between times, one
///   read of the monotonic clock.
/// - When the policy answers a target different from the control's, the sink writes it to the control
///   (clamped to ``/MediaCore/BitRateControl/validRange``); the encoder applies it before its next frame.
/// - The control is shared: the app may read it (the rate now) or write it too; the policy sees the
///   control's target as ``BitRateObservation/bitRate`` at each decision.
public struct AdaptiveBitRate: Sendable {
    /// The control the encoder reads.
    public let control: BitRateControl
    /// The policy that decides the target.
    public var policy: any BitRatePolicy
    /// How often the sink asks the policy, in host time (250 ms; at least 10 ms).
    public var interval: MediaTime = MediaTime(value: 1, timescale: 4)
    /// The host clock the decisions are timed by: ``/MediaCore/MediaClock/hostTime``. The package's tests set one
    /// they move by hand, so that "at most once per interval" does not depend on how fast a loaded
    /// machine runs the test.
    package var hostClock: @Sendable () -> MediaTime = { MediaClock.hostTime }

    /// `control` driven by `policy`.
    public init(control: BitRateControl, policy: any BitRatePolicy) {
        self.control = control
        self.policy = policy
    }

    /// `control` driven by the default ``QueueDepthBitRatePolicy``, with the control's
    /// ``/MediaCore/BitRateControl/initialBitRate`` as the ceiling and an eighth of it (at least 1 kb/s) as the
    /// floor.
    public init(control: BitRateControl) {
        self.init(control: control, policy: QueueDepthBitRatePolicy(clampedCeiling: control.initialBitRate))
    }
}
