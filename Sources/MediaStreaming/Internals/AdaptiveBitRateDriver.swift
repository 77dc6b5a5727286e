import MediaCore

/// The part of a ``LiveStreamSink`` that runs an ``AdaptiveBitRate``: the clock of the decisions and
/// the last target written. Used only on the writer's thread.
struct AdaptiveBitRateDriver {
    var settings: AdaptiveBitRate
    let queueLimit: MediaTime
    private var nextDecision: MediaTime?

    init(_ settings: AdaptiveBitRate, queueLimit: MediaTime) {
        self.settings = settings
        self.queueLimit = queueLimit
    }

    /// Asks the policy when the interval has passed (reading the stats through `stats` only then), and
    /// writes a changed target to the control. Returns the target written, if any.
    @discardableResult
    mutating func tick(stats: () -> LiveStreamSink.Stats) -> Int? {
        let now = settings.hostClock()
        if let nextDecision, now < nextDecision { return nil }
        let minimum = MediaTime(value: 1, timescale: 100)
        let interval = settings.interval.isNumeric && settings.interval > minimum ? settings.interval : minimum
        nextDecision = now + interval
        let control = settings.control
        let current = control.bitRate
        let observation = BitRateObservation(stats: stats(), queueLimit: queueLimit, bitRate: current, time: now)
        guard let wanted = settings.policy.bitRate(after: observation) else { return nil }
        let range = BitRateControl.validRange
        let target = min(max(wanted, range.lowerBound), range.upperBound)
        guard target != current else { return nil }
        // In range by the clamp above: the control cannot refuse it.
        try? control.setBitRate(target)
        return target
    }
}
