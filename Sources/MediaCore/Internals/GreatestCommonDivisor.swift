/// The greatest common divisor of `a` and `b` (Euclid); `a` when `b` is 0, 0 when both are.
func greatestCommonDivisor(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
}

/// `numerator / denominator` in lowest terms as two `Int32`, or `nil` when a term is not positive or the
/// reduced terms do not fit.
func reducedInt32Terms(_ numerator: Int64, _ denominator: Int64) -> (Int32, Int32)? {
    guard numerator > 0, denominator > 0 else { return nil }
    let divisor = Int64(greatestCommonDivisor(UInt64(numerator), UInt64(denominator)))
    guard let n = Int32(exactly: numerator / divisor), let d = Int32(exactly: denominator / divisor) else { return nil }
    return (n, d)
}
