extension MediaTime {
    /// `seconds` whole seconds (at timescale 1).
    public static func seconds(_ seconds: Int64) -> MediaTime { MediaTime(value: seconds, timescale: 1) }

    /// A Swift `Duration`, at timescale 1 000 000 000 (reduced when it divides, so `.seconds(5)` is 5/1):
    /// exact when the duration is a whole number of nanoseconds, otherwise rounded to the nearest
    /// nanosecond, halves away from zero. ``invalid`` beyond ±2^63 ns (about 292 years).
    ///
    /// ```swift
    /// MediaTime(.seconds(5))             // 5/1
    /// MediaTime(.milliseconds(1500))     // 3/2
    /// ```
    ///
    /// For people and for sleeping; a timestamp wants ``init(_:timescale:rounding:)`` at the media's own
    /// timescale.
    public init(_ duration: Duration) {
        self = MediaTime(duration, timescale: 1_000_000_000).reducedIfExact
    }

    /// A Swift `Duration` at `timescale`, rounded as `rule` says when it is not a whole number of ticks
    /// (to nearest, halves away from zero, by default): `MediaTime(.milliseconds(10), timescale: 48_000)`
    /// is 480/48000. The rounding is exact (from the duration's attoseconds, no floating point).
    /// ``invalid`` for a timescale of zero or less, or a tick count beyond `Int64`.
    public init(
        _ duration: Duration, timescale: Int32,
        rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero
    ) {
        guard timescale > 0 else {
            self = .invalid
            return
        }
        // Whole seconds convert exactly; only the fraction (attoseconds, same sign) is rounded. Both
        // products fit in Int128: |seconds × timescale| < 2^94, |attoseconds × timescale| < 2^91.
        let (seconds, attoseconds) = duration.components
        let perSecond: Int128 = 1_000_000_000_000_000_000
        let whole = Int128(seconds) * Int128(timescale)
        let fraction = Int128(attoseconds) * Int128(timescale)
        var part = MediaTime.divide(fraction, by: perSecond, rounding: rule == .toNearestOrEven ? .towardZero : rule)
        if rule == .toNearestOrEven {
            // A tie goes to the even total, which depends on the whole part too.
            let twice = (fraction - part * perSecond).magnitude * 2
            if twice > perSecond.magnitude || (twice == perSecond.magnitude && (whole + part) % 2 != 0) {
                part += fraction < 0 ? -1 : 1
            }
        }
        let ticks = whole + part
        guard let value = Int64(exactly: ticks) else {
            self = .invalid
            return
        }
        self = MediaTime(value: value, timescale: timescale)
    }

    /// `seconds` (a `Double`) at `timescale`: `seconds × timescale` rounded as `rule` says (to nearest,
    /// halves away from zero, by default), like `CMTimeMakeWithSeconds`. `MediaTime(seconds: 1.5,
    /// timescale: 1000)` is 1500/1000.
    ///
    /// NaN gives ``invalid``, ±infinity the infinities, and a tick count beyond `Int64` or a timescale
    /// of zero or less ``invalid``. The product is computed in `Double`, so a value that is not exact in
    /// binary (0.1) rounds to the nearest tick, not below it.
    public init(
        seconds: Double, timescale: Int32, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero
    ) {
        if seconds.isNaN || timescale <= 0 {
            self = .invalid
        } else if seconds.isInfinite {
            self = seconds > 0 ? .positiveInfinity : .negativeInfinity
        } else if let value = Int64(exactly: (seconds * Double(timescale)).rounded(rule)) {
            self = MediaTime(value: value, timescale: timescale)
        } else {
            self = .invalid
        }
    }

    /// This time as a Swift `Duration`, rounded to the nearest nanosecond (halves away from zero), or
    /// `nil` when it is not numeric or beyond ±2^63 ns.
    ///
    /// ```swift
    /// try await Task.sleep(for: MediaTime(value: 1024, timescale: 48_000).duration ?? .zero)
    /// ```
    public var duration: Duration? {
        guard isNumeric else { return nil }
        let nanoseconds = MediaTime.divide(
            Int128(value) * 1_000_000_000, by: Int128(timescale), rounding: .toNearestOrAwayFromZero)
        guard let whole = Int64(exactly: nanoseconds) else { return nil }
        return .nanoseconds(whole)
    }

    /// This time in seconds as a `Double` (`value / timescale`, rounded to the nearest `Double`), for
    /// display: `nil` when it is not numeric. Timestamps stay rational; never compute with this.
    public var seconds: Double? {
        guard isNumeric else { return nil }
        return Double(value) / Double(timescale)
    }

    /// The same instant at a smaller timescale when one divides both terms (1 000 000 000/1 000 000 000
    /// becomes 1/1), so that times made from durations print and convert simply.
    var reducedIfExact: MediaTime {
        guard isNumeric, value != 0 else { return isNumeric ? .zero : self }
        let divisor = greatestCommonDivisor(value.magnitude, UInt64(timescale))
        guard divisor > 1 else { return self }
        return MediaTime(value: value / Int64(divisor), timescale: timescale / Int32(divisor))
    }
}

extension Duration {
    /// A ``/MediaCore/MediaTime`` as a `Duration`, rounded to the nearest nanosecond (halves away from
    /// zero); `nil` when the time is not numeric (invalid, infinite) or beyond ±2^63 ns. The same as
    /// ``/MediaCore/MediaTime/duration``.
    ///
    /// ```swift
    /// let frame = Duration(MediaTime(value: 1001, timescale: 30_000))   // 33 366 667 ns
    /// ```
    public init?(_ time: MediaTime) {
        guard let duration = time.duration else { return nil }
        self = duration
    }
}
