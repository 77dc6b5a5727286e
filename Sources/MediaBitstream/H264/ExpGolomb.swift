public import MediaCore

extension BitReader {
    /// The largest number of leading zero bits an Exp-Golomb code may have here: 31, so that every
    /// `ue(v)` value fits in 32 bits (ITU-T H.264 section 9.1).
    public static let maximumExpGolombLeadingZeros = 31

    /// An unsigned Exp-Golomb code, `ue(v)` of ITU-T H.264 section 9.1: `n` zero bits, a one bit, then
    /// `n` bits; the value is `2^n - 1` plus those bits.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` when more than 31 zero bits lead (the value would not
    ///   fit in 32 bits); ``/MediaCore/MediaError/Code/truncated`` when the bits run out.
    public mutating func readUE(_ what: String = "ue(v)") throws(MediaError) -> UInt32 {
        let start = baseOffset + Int64(bitPosition / 8)
        var leadingZeros = 0
        while try read(1, what) == 0 {
            leadingZeros += 1
            guard leadingZeros <= Self.maximumExpGolombLeadingZeros else {
                throw MediaError.invalidData(
                    "\(what) has more than \(Self.maximumExpGolombLeadingZeros) leading zero bits", at: start)
            }
        }
        guard leadingZeros > 0 else { return 0 }
        let suffix = try read(leadingZeros, what)
        return UInt32((UInt64(1) << UInt64(leadingZeros)) - 1 + UInt64(suffix))
    }

    /// A signed Exp-Golomb code, `se(v)` of ITU-T H.264 section 9.1.1: `ue(v)` values 0, 1, 2, 3, 4, ...
    /// map to 0, 1, -1, 2, -2, ...
    ///
    /// - Throws: as ``readUE(_:)``.
    public mutating func readSE(_ what: String = "se(v)") throws(MediaError) -> Int32 {
        let codeNum = Int64(try readUE(what))
        let magnitude = (codeNum + 1) / 2
        return Int32(truncatingIfNeeded: codeNum & 1 == 1 ? magnitude : -magnitude)
    }
}

extension BitWriter {
    /// Appends `value` as an unsigned Exp-Golomb code, `ue(v)` (ITU-T H.264 section 9.1).
    ///
    /// `UInt32.max` takes 32 leading zero bits, which ``BitReader/readUE(_:)`` refuses;
    /// every value up to `UInt32.max - 1` reads back.
    public mutating func writeUE(_ value: UInt32) {
        let codeNumPlusOne = UInt64(value) + 1
        let bitLength = 64 - codeNumPlusOne.leadingZeroBitCount
        write(0, bits: bitLength - 1)
        let low = codeNumPlusOne & ((1 << UInt64(bitLength - 1)) - 1)
        write(1, bits: 1)
        write(UInt32(truncatingIfNeeded: low), bits: bitLength - 1)
    }

    /// Appends `value` as a signed Exp-Golomb code, `se(v)` (ITU-T H.264 section 9.1.1).
    public mutating func writeSE(_ value: Int32) {
        let wide = Int64(value)
        writeUE(UInt32(truncatingIfNeeded: wide > 0 ? 2 * wide - 1 : -2 * wide))
    }
}
