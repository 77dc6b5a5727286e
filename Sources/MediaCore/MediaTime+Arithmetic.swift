extension MediaTime {
    /// The exact sum of two times, at the least common multiple of their timescales when that fits in
    /// `Int32`, otherwise at the larger timescale (rounded to nearest).
    ///
    /// Adding an infinity gives that infinity; `+∞ + -∞` and anything with ``invalid`` give ``invalid``.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        switch (lhs.kind, rhs.kind) {
        case (.invalid, _), (_, .invalid): return .invalid
        case (.positiveInfinity, .negativeInfinity), (.negativeInfinity, .positiveInfinity): return .invalid
        case (.positiveInfinity, _), (_, .positiveInfinity): return .positiveInfinity
        case (.negativeInfinity, _), (_, .negativeInfinity): return .negativeInfinity
        case (.numeric, .numeric): break
        }
        let scale = commonTimescale(lhs.timescale, rhs.timescale)
        let a = lhs.converted(to: scale)
        let b = rhs.converted(to: scale)
        guard a.isNumeric, b.isNumeric else { return .invalid }
        let (sum, overflow) = a.value.addingReportingOverflow(b.value)
        return overflow ? .invalid : MediaTime(value: sum, timescale: scale)
    }

    /// The exact difference of two times (see ``+(_:_:)`` for the timescale and special values).
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        lhs + (-rhs)
    }

    /// The negation of a time; the infinities swap.
    public static prefix func - (time: MediaTime) -> MediaTime {
        switch time.kind {
        case .invalid: return .invalid
        case .positiveInfinity: return .negativeInfinity
        case .negativeInfinity: return .positiveInfinity
        case .numeric:
            let (negated, overflow) = Int64(0).subtractingReportingOverflow(time.value)
            return overflow ? .invalid : MediaTime(value: negated, timescale: time.timescale)
        }
    }

    /// A time multiplied by a whole number, at the same timescale.
    public static func * (lhs: MediaTime, rhs: Int64) -> MediaTime {
        switch lhs.kind {
        case .invalid: return .invalid
        case .positiveInfinity, .negativeInfinity:
            if rhs == 0 { return .invalid }
            return (lhs.kind == .positiveInfinity) == (rhs > 0) ? .positiveInfinity : .negativeInfinity
        case .numeric:
            let (product, overflow) = lhs.value.multipliedReportingOverflow(by: rhs)
            return overflow ? .invalid : MediaTime(value: product, timescale: lhs.timescale)
        }
    }

    /// Adds `rhs` to `lhs`.
    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    /// Subtracts `rhs` from `lhs`.
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    private static func commonTimescale(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b { return a }
        let x = Int64(greatestCommonDivisor(UInt64(a.magnitude), UInt64(b.magnitude)))
        let lcm = Int64(a) / x * Int64(b)
        return Int32(exactly: lcm) ?? max(a, b)
    }
}

extension MediaTime: Comparable, Hashable {
    /// Whether two times are the same instant: exact comparison across timescales.
    ///
    /// Two ``MediaTime/invalid`` times are equal to each other and to nothing else.
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        guard lhs.kind == .numeric, rhs.kind == .numeric else { return lhs.kind == rhs.kind }
        return Int128(lhs.value) * Int128(rhs.timescale) == Int128(rhs.value) * Int128(lhs.timescale)
    }

    /// Orders times: `-∞` < finite times < `+∞` < ``MediaTime/invalid`` (so that sorting is total).
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        func rank(_ t: MediaTime) -> Int {
            switch t.kind {
            case .negativeInfinity: return 0
            case .numeric: return 1
            case .positiveInfinity: return 2
            case .invalid: return 3
            }
        }
        guard lhs.kind == .numeric, rhs.kind == .numeric else { return rank(lhs) < rank(rhs) }
        return Int128(lhs.value) * Int128(rhs.timescale) < Int128(rhs.value) * Int128(lhs.timescale)
    }

    /// Hashes the reduced fraction, so that equal instants hash alike.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        guard kind == .numeric else { return }
        let x = greatestCommonDivisor(value.magnitude, UInt64(timescale))
        let g = Int64(x == 0 ? 1 : x)
        hasher.combine(value / g)
        hasher.combine(Int64(timescale) / g)
    }
}
