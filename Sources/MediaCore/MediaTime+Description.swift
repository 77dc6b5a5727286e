extension MediaTime: CustomStringConvertible {
    /// Seconds, as a person reads them, with the exact ratio after them when the decimals round it:
    /// `1.5 s`, `0.021333 s (1024/48000)`, `-0.25 s`; `invalid`, `+inf`, `-inf` otherwise.
    public var description: String {
        switch kind {
        case .numeric:
            guard let shown = Self.microseconds(value: value, timescale: timescale) else {
                // Beyond 9.2 × 10^12 s in microseconds: whole seconds, then the ratio.
                return "\(value / Int64(timescale)) s (\(value)/\(timescale))"
            }
            let decimal = Self.decimal(microseconds: shown.rounded)
            return shown.exact ? "\(decimal) s" : "\(decimal) s (\(value)/\(timescale))"
        case .invalid: return "invalid"
        case .positiveInfinity: return "+inf"
        case .negativeInfinity: return "-inf"
        }
    }

    /// This time in seconds as a `Double`, like `CMTime.seconds`: `.nan` when it is invalid, `±.infinity`
    /// for the infinities. For display and arithmetic where a `Double` is wanted anyway; ``seconds`` is
    /// the same value, but `nil` when there is none.
    public var approximateSeconds: Double {
        switch kind {
        case .numeric: return Double(value) / Double(timescale)
        case .invalid: return .nan
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        }
    }

    /// `value / timescale` in microseconds, rounded half away from zero, and whether that is exact;
    /// `nil` when that many microseconds do not fit in an `Int64`.
    private static func microseconds(value: Int64, timescale: Int32) -> (rounded: Int64, exact: Bool)? {
        let (product, overflow) = value.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return nil }
        let scale = Int64(timescale)
        let (quotient, remainder) = product.quotientAndRemainder(dividingBy: scale)
        guard remainder != 0 else { return (quotient, true) }
        let away = remainder.magnitude * 2 >= scale.magnitude
        return (away ? quotient + (product < 0 ? -1 : 1) : quotient, false)
    }

    /// `microseconds` as seconds with at most six decimals and no trailing zeros: `1.5`, `-0.25`, `2`.
    private static func decimal(microseconds: Int64) -> String {
        let sign = microseconds < 0 ? "-" : ""
        let whole = microseconds.magnitude / 1_000_000
        var fraction = microseconds.magnitude % 1_000_000
        guard fraction != 0 else { return "\(sign)\(whole)" }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        return "\(sign)\(whole).\(String(repeating: "0", count: digits - text.count))\(text)"
    }
}
