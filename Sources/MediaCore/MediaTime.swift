/// A point or span of time as an exact rational number, `value / timescale` seconds.
///
/// `MediaTime` is MediaPipeline's `CMTime`: a 64-bit count of ticks at a 32-bit timescale (ticks per
/// second), plus the special values ``invalid``, ``positiveInfinity`` and ``negativeInfinity``.
/// Arithmetic is exact; a conversion to another timescale says how it rounds:
///
/// ```swift
/// let t = MediaTime(value: 1024, timescale: 44_100)           // one AAC frame at 44.1 kHz
/// let ms = t.converted(to: 1000, rounding: .toNearestOrAwayFromZero)   // 23/1000
/// let sum = t + MediaTime(value: 1, timescale: 48_000)        // exact, at the common timescale
/// ```
///
/// Two times compare equal when they are the same instant, whatever their timescales (`1/2 == 2/4`).
/// An operation whose result does not fit (a tick count beyond `Int64`) gives ``invalid``, never a trap.
public struct MediaTime: Sendable {
    /// What kind of value a time holds.
    public enum Kind: Sendable, Hashable {
        /// A finite value, `value / timescale` seconds.
        case numeric
        /// No time at all: unknown, or the result of an operation that could not be represented.
        case invalid
        /// Later than every finite time.
        case positiveInfinity
        /// Earlier than every finite time.
        case negativeInfinity
    }

    /// The number of ticks. Meaningful only when ``kind`` is ``Kind/numeric``.
    public let value: Int64
    /// Ticks per second, always positive for a numeric time.
    public let timescale: Int32
    /// Whether this is a finite time, an invalid one or an infinity.
    public let kind: Kind

    /// A finite time of `value` ticks at `timescale` ticks per second.
    ///
    /// A timescale of zero or less gives ``invalid``.
    public init(value: Int64, timescale: Int32) {
        if timescale > 0 {
            self.value = value
            self.timescale = timescale
            self.kind = .numeric
        } else {
            self = .invalid
        }
    }

    private init(kind: Kind) {
        self.value = 0
        self.timescale = 0
        self.kind = kind
    }

    /// Zero seconds (at timescale 1).
    public static let zero = MediaTime(value: 0, timescale: 1)
    /// An unknown or unrepresentable time.
    public static let invalid = MediaTime(kind: .invalid)
    /// A time later than every finite time.
    public static let positiveInfinity = MediaTime(kind: .positiveInfinity)
    /// A time earlier than every finite time.
    public static let negativeInfinity = MediaTime(kind: .negativeInfinity)

    /// Whether this is a finite time (not invalid, not infinite).
    public var isNumeric: Bool { kind == .numeric }
    /// Whether this time is valid: finite or infinite.
    public var isValid: Bool { kind != .invalid }
    /// Whether this is one of the two infinities.
    public var isInfinite: Bool { kind == .positiveInfinity || kind == .negativeInfinity }

    /// This time at another timescale, rounded as `rule` says when it is not a whole number of ticks.
    ///
    /// Infinities and ``invalid`` convert to themselves. A result beyond `Int64` or a timescale of
    /// zero or less gives ``invalid``.
    public func converted(
        to newTimescale: Int32,
        rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero
    ) -> MediaTime {
        guard kind == .numeric else { return self }
        guard newTimescale > 0 else { return .invalid }
        if newTimescale == timescale { return self }
        let scaled = Self.divide(Int128(value) * Int128(newTimescale), by: Int128(timescale), rounding: rule)
        guard let ticks = Int64(exactly: scaled) else { return .invalid }
        return MediaTime(value: ticks, timescale: newTimescale)
    }

    /// Whether converting to `newTimescale` loses nothing.
    public func isExactlyRepresentable(at newTimescale: Int32) -> Bool {
        guard kind == .numeric, newTimescale > 0 else { return false }
        return (Int128(value) * Int128(newTimescale)) % Int128(timescale) == 0
    }

    /// `numerator / denominator` rounded by `rule`; `denominator` is positive.
    static func divide(_ numerator: Int128, by denominator: Int128, rounding rule: FloatingPointRoundingRule) -> Int128
    {
        let quotient = numerator / denominator  // truncates toward zero
        let remainder = numerator % denominator  // same sign as the numerator
        if remainder == 0 { return quotient }
        let negative = numerator < 0
        let awayFromZero = negative ? quotient - 1 : quotient + 1
        switch rule {
        case .towardZero:
            return quotient
        case .awayFromZero:
            return awayFromZero
        case .down:
            return negative ? quotient - 1 : quotient
        case .up:
            return negative ? quotient : quotient + 1
        case .toNearestOrAwayFromZero:
            return remainder.magnitude * 2 >= denominator.magnitude ? awayFromZero : quotient
        case .toNearestOrEven:
            let twice = remainder.magnitude * 2
            if twice > denominator.magnitude { return awayFromZero }
            if twice < denominator.magnitude { return quotient }
            return quotient % 2 == 0 ? quotient : awayFromZero
        @unknown default:
            return remainder.magnitude * 2 >= denominator.magnitude ? awayFromZero : quotient
        }
    }
}
