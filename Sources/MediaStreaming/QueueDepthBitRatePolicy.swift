public import MediaCore

/// The default ``BitRatePolicy``: lowers the bit rate quickly when a ``LiveStreamSink``'s queue fills
/// or drops video, and raises it slowly once the queue has stayed nearly empty.
///
/// ```swift
/// var policy = try QueueDepthBitRatePolicy(ceiling: 2_500_000)   // floor 312 500 b/s
/// policy.raiseAfter = .seconds(10)                                // more patient
/// ```
///
/// Each decision (at most one change per ``minimumInterval``, 1 s):
/// - **Lower** by ``lowerFactor`` (×0.75, not below ``floor``) when a video frame was dropped since the
///   last change, or when the queue is over ``lowerAbove`` (50 %) of its limit and has not shrunk since
///   the last lowering (a queue that drains after a lowering is left to drain, so one congestion does
///   not walk the rate down to the floor while the old, larger frames are still queued).
/// - **Raise** by ``raiseFactor`` (×1.10, not above ``ceiling``) after the queue has stayed under
///   ``raiseBelow`` (10 %) of its limit with no drop for ``raiseAfter`` (5 s); the hold starts again
///   after every change.
///
/// Why these numbers: 50 % of a 2-s queue is a second of media waiting, well before the drops that
/// start at 100 %, and a quarter off per second halves the rate in about 2.5 s, inside one VBV buffer
/// or two; the encoder's 1-s VBV and the queued frames make a faster loop chase its own echo. Raising
/// is probing a link that may not have room, so it is ten times gentler: OBS's dynamic bitrate
/// (`obs-outputs/rtmp-stream.c`) lowers at once to the measured send rate when 200 ms are buffered and
/// raises by 10 % of the original every 4 s (`DBR_INC_TIMER`); HaishinKit's
/// `IOStreamVideoAdaptiveBitRateStrategy` lowers to the measured output rate and raises by 64 kb/s per
/// report; SRT/Larix guidance is to keep the sender's buffer below the latency window and give the
/// encoder a floor rather than let it starve. The floor (1/8 of the ceiling by default: 2.5 Mb/s →
/// 312 kb/s, still a watchable 360p) keeps one bad second from leaving a stream of blocks.
///
/// Refuses (``/MediaCore/MediaError/Code/invalidArgument``) a ceiling outside ``/MediaCore/BitRateControl/validRange`` or a
/// floor above the ceiling. Its tunables are plain properties; decisions clamp whatever they hold to
/// sane values (factors around 1, the floor at most the ceiling).
public struct QueueDepthBitRatePolicy: BitRatePolicy, Hashable {
    /// The highest target the policy raises to (the stream's configured bit rate), in bits per second.
    public var ceiling: Int
    /// The lowest target the policy lowers to, in bits per second.
    public var floor: Int
    /// Lower when the queue holds more than this fraction of its limit (0.5).
    public var lowerAbove = 0.5
    /// Count towards a raise while the queue holds less than this fraction of its limit (0.1).
    public var raiseBelow = 0.1
    /// A lowering multiplies the target by this (0.75).
    public var lowerFactor = 0.75
    /// A raise multiplies the target by this (1.10).
    public var raiseFactor = 1.10
    /// How long the queue must stay calm before a raise (5 s).
    public var raiseAfter = MediaTime.seconds(5)
    /// At most one change per this long (1 s).
    public var minimumInterval = MediaTime.seconds(1)

    private var lastChange: MediaTime?
    private var depthAtLowering: Double?
    private var calmSince: MediaTime?
    private var droppedAtChange = 0

    /// A policy between `floor` (default: an eighth of `ceiling`, at least 1 kb/s) and `ceiling`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a ceiling outside
    ///   ``/MediaCore/BitRateControl/validRange`` or a floor outside `1_000...ceiling`.
    public init(ceiling: Int, floor: Int? = nil) throws(MediaError) {
        let range = BitRateControl.validRange
        guard range.contains(ceiling) else {
            throw MediaError(.invalidArgument, "the bit rate policy's ceiling \(ceiling) b/s is outside \(range)")
        }
        let floor = floor ?? max(range.lowerBound, ceiling / 8)
        guard (range.lowerBound...ceiling).contains(floor) else {
            throw MediaError(
                .invalidArgument, "the bit rate policy's floor \(floor) b/s is outside \(range.lowerBound)...\(ceiling)"
            )
        }
        self.ceiling = ceiling
        self.floor = floor
    }

    /// A policy with `ceiling` clamped into ``/MediaCore/BitRateControl/validRange`` and the default floor: for
    /// callers that hold a rate already checked (a control's).
    init(clampedCeiling ceiling: Int) {
        let range = BitRateControl.validRange
        self.ceiling = min(max(ceiling, range.lowerBound), range.upperBound)
        floor = max(range.lowerBound, self.ceiling / 8)
    }

    /// The new target after `observation`, or `nil` to keep the current one (see the type's rules).
    public mutating func bitRate(after observation: BitRateObservation) -> Int? {
        let now = observation.time
        let depth = observation.queueFraction
        let dropped = observation.stats.droppedFrames > droppedAtChange
        // The calm clock runs on every observation, rate-limited or not.
        if depth < raiseBelow && !dropped {
            if calmSince == nil { calmSince = now }
        } else {
            calmSince = nil
        }
        if let lastChange, now - lastChange < minimumInterval { return nil }

        let current = observation.bitRate
        let top = max(BitRateControl.validRange.lowerBound, min(ceiling, BitRateControl.validRange.upperBound))
        let bottom = min(max(BitRateControl.validRange.lowerBound, floor), top)
        let growing = depthAtLowering.map { depth >= $0 } ?? true
        if dropped || (depth > lowerAbove && growing) {
            let lowered = max(bottom, Int(Double(current) * min(max(lowerFactor, 0.1), 0.99)))
            guard lowered < current else { return nil }
            record(change: now, dropped: observation.stats.droppedFrames)
            depthAtLowering = depth
            return lowered
        }
        if let calmSince, now - calmSince >= raiseAfter, current < top {
            let raised = min(top, max(current + 1, Int(Double(current) * min(max(raiseFactor, 1.01), 2))))
            record(change: now, dropped: observation.stats.droppedFrames)
            depthAtLowering = nil
            return raised
        }
        return nil
    }

    private mutating func record(change time: MediaTime, dropped: Int) {
        lastChange = time
        droppedAtChange = dropped
        calmSince = nil
    }
}
