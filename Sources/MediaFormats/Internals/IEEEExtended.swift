/// The 80-bit IEEE 754 extended-precision number AIFF's `COMM` chunk stores its sample rate in
/// (Apple's `extended`, the 68881's format): big-endian, a sign bit and 15-bit exponent (bias 16383),
/// then a 64-bit significand whose integer bit (bit 63) is explicit.
///
/// Every `Double` has an exact extended equivalent, so the encoding loses nothing: 44100 is
/// `40 0E AC 44 00 00 00 00 00 00` and 7999.99 is `40 0B F9 FF EB 85 1E B8 50 00`, as FFmpeg's AIFF muxer
/// (for its integer rates) and SoX (for any rate) write them.
enum IEEEExtended {
    /// The exponent bias of the 80-bit format.
    private static let bias = 16_383
    /// The exponent bias of a `Double`.
    private static let doubleBias = 1_023

    /// The 10 big-endian bytes of `value`. Zero, subnormal doubles (normalised, as the wider exponent
    /// range allows), infinities and NaNs (quiet, with the double's payload) are encoded too.
    static func bytes(_ value: Double) -> [UInt8] {
        let bits = value.bitPattern
        let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
        let exponentBits = Int((bits >> 52) & 0x7FF)
        let fraction = bits & 0x000F_FFFF_FFFF_FFFF
        var exponent: UInt16
        var significand: UInt64
        switch exponentBits {
        case 0x7FF:  // infinity or NaN
            exponent = 0x7FFF
            significand = 1 << 63 | fraction << 11
        case 0 where fraction == 0:  // ±0
            exponent = 0
            significand = 0
        case 0:  // subnormal: fraction × 2^-1074, normalised so that bit 63 is set
            let shift = fraction.leadingZeroBitCount
            significand = fraction << UInt64(shift)
            exponent = UInt16(bias + 63 - shift - 1074)
        default:  // 1.fraction × 2^(exponentBits - 1023)
            exponent = UInt16(exponentBits - doubleBias + bias)
            significand = 1 << 63 | fraction << 11
        }
        exponent |= sign
        var out: [UInt8] = [UInt8(exponent >> 8), UInt8(exponent & 0xFF)]
        out.reserveCapacity(10)
        for shift in stride(from: 56, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: significand >> UInt64(shift)))
        }
        return out
    }
}
