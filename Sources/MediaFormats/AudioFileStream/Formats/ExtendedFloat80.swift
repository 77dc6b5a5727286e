import MediaCore

/// The 80-bit IEEE 754 extended-precision number AIFF stores its sample rate in (`extended` in the
/// AIFF 1.3 specification): a sign bit and 15-bit exponent (bias 16383), then a 64-bit significand
/// whose top bit is the explicit integer bit, all big-endian.
///
/// ``double(bigEndian:at:)`` converts it exactly where a `Double` can (the significand is rounded to 53
/// bits, to nearest, ties to even; the exponent is applied exactly). It accepts only normal, finite,
/// non-zero numbers inside `Double`'s normal range, so that what comes out is usable as a rate.
///
/// - Throws: ``/MediaCore/MediaError/Code/invalidData`` at `offset` for zero, a denormal (exponent field
///   0), an unnormal (exponent field not 0 but integer bit clear), infinity or NaN (exponent field
///   0x7FFF), and an exponent outside `Double`'s normal range (below 2^-1022 or from 2^1024 up).
enum ExtendedFloat80 {
    /// The exponent bias.
    static let bias = 16383

    /// The value of the 10 bytes `bytes` (big-endian), which the caller has checked are there.
    static func double(bigEndian bytes: some Collection<UInt8>, at offset: Int64) throws(MediaError) -> Double {
        let b = Array(bytes.prefix(10))
        guard b.count == 10 else {
            throw MediaError.truncated("80-bit extended float", needed: 10, available: b.count, at: offset)
        }
        let signAndExponent = UInt16(b[0]) << 8 | UInt16(b[1])
        let significand = b[2..<10].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let exponentField = Int(signAndExponent & 0x7FFF)
        let text = b.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true) }.joined()
        if exponentField == 0x7FFF {
            throw MediaError.invalidData(
                "80-bit extended float 0x\(text) is \(significand << 1 == 0 ? "infinite" : "not a number")", at: offset)
        }
        if exponentField == 0 {
            throw MediaError.invalidData(
                "80-bit extended float 0x\(text) is \(significand == 0 ? "zero" : "a denormal")", at: offset)
        }
        guard significand >> 63 == 1 else {
            throw MediaError.invalidData(
                "80-bit extended float 0x\(text) is unnormalised (its integer bit is clear)", at: offset)
        }
        let exponent = exponentField - bias
        guard exponent >= Double.leastNormalMagnitude.exponent, exponent <= Double.greatestFiniteMagnitude.exponent
        else {
            throw MediaError.invalidData(
                "80-bit extended float 0x\(text) has the exponent 2^\(exponent), outside a Double's range", at: offset)
        }
        // The significand is 1.xxx × 2^63: convert (rounded to 53 bits), then scale exactly.
        let value = Double(sign: .plus, exponent: exponent - 63, significand: Double(significand))
        guard value.isFinite else {
            throw MediaError.invalidData("80-bit extended float 0x\(text) rounds to infinity as a Double", at: offset)
        }
        return signAndExponent & 0x8000 != 0 ? -value : value
    }
}
