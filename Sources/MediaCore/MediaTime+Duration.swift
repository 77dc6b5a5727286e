extension MediaTime {
    /// `seconds` whole seconds (at timescale 1).
    public static func seconds(_ seconds: Int64) -> MediaTime { MediaTime(value: seconds, timescale: 1) }

    /// A Swift `Duration`, exactly when it is a whole number of nanoseconds at most, else rounded to the
    /// nearest nanosecond (timescale 1 000 000 000). For people and for sleeping, not for timestamps.
    public init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Int128(seconds) * 1_000_000_000 + Int128(attoseconds) / 1_000_000_000
        if let value = Int64(exactly: nanoseconds) {
            self = MediaTime(value: value, timescale: 1_000_000_000).reducedIfExact
        } else {
            self = .invalid
        }
    }

    /// This time as a Swift `Duration` (rounded to the nearest nanosecond), or `nil` when it is not
    /// numeric.
    public var duration: Duration? {
        guard isNumeric else { return nil }
        let nanoseconds = MediaTime.divide(Int128(value) * 1_000_000_000, by: Int128(timescale), rounding: .toNearestOrAwayFromZero)
        guard let whole = Int64(exactly: nanoseconds) else { return nil }
        return .nanoseconds(whole)
    }

    /// This time in seconds as a `Double`, for display: `nil` when it is not numeric. Timestamps stay
    /// rational; never compute with this.
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
