/// ITU-T G.711 µ-law and A-law: 16-bit linear PCM compressed to 8-bit logarithmic codes, as telephony,
/// NeXT/Sun `.au` (encodings 1 and 27) and AIFC (`ulaw`, `alaw`) store it.
///
/// Encoding is a table lookup on the sample's top 14 bits, and each 14-bit value maps to the code whose
/// decoded value is nearest, the boundary between two codes being the midpoint of their decoded values
/// rounded to 14 bits: the same tables FFmpeg's `pcm_mulaw` and `pcm_alaw` encoders build, so that the
/// codes are byte for byte theirs.
enum G711 {
    /// Which companding law.
    enum Law: Sendable {
        /// µ-law (North America, Japan).
        case muLaw
        /// A-law (Europe).
        case aLaw

        /// The code of the smallest positive magnitude; XOR with a magnitude index 0...127 gives the
        /// positive code of that magnitude, and with `0x80` more the negative one.
        var positiveMask: UInt8 { self == .muLaw ? 0xFF : 0xD5 }
    }

    /// The linear value (16-bit scale) that `code` decodes to.
    static func decode(_ code: UInt8, law: Law) -> Int {
        switch law {
        case .muLaw:
            let inverted = ~code
            let exponent = Int((inverted >> 4) & 0x07)
            let mantissa = Int(inverted & 0x0F)
            let magnitude = ((mantissa << 3) + 0x84) << exponent - 0x84
            return inverted & 0x80 != 0 ? -magnitude : magnitude
        case .aLaw:
            let toggled = code ^ 0x55
            let segment = Int((toggled >> 4) & 0x07)
            let mantissa = Int(toggled & 0x0F)
            let magnitude = segment == 0 ? (2 * mantissa + 1) << 3 : (2 * mantissa + 33) << (segment + 2)
            return toggled & 0x80 != 0 ? magnitude : -magnitude
        }
    }

    /// The code of every 14-bit linear value: index `(sample + 32768) >> 2` for a 16-bit sample.
    static func encodingTable(_ law: Law) -> [UInt8] {
        let mask = law.positiveMask
        // Magnitude index k (0...127) decodes to decode(k ^ mask); code k covers 14-bit magnitudes below
        // the rounded midpoint between it and k + 1.
        let upperBounds: [Int] = (0..<127).map { k in
            (decode(UInt8(k) ^ mask, law: law) + decode(UInt8(k + 1) ^ mask, law: law) + 4) >> 3
        }
        var table = [UInt8](repeating: 0, count: 1 << 14)
        var k = 0
        for magnitude in 0..<8192 {
            while k < 127 && magnitude >= upperBounds[k] { k += 1 }
            table[8192 + magnitude] = UInt8(k) ^ mask
            if magnitude > 0 { table[8192 - magnitude] = UInt8(k) ^ mask ^ 0x80 }
        }
        table[0] = table[1]  // -32768 takes the code of the largest negative magnitude, as -32764 does
        return table
    }

    /// µ-law codes by 14-bit linear value, built once.
    static let muLawTable = encodingTable(.muLaw)
    /// A-law codes by 14-bit linear value, built once.
    static let aLawTable = encodingTable(.aLaw)

    /// Replaces `codes` with the codes of `samples`, 16-bit little-endian signed integers (a trailing odd
    /// byte is ignored); `codes` keeps its capacity, so a reused array costs no allocation.
    static func encode(s16LE samples: UnsafeRawBufferPointer, law: Law, into codes: inout [UInt8]) {
        let table = law == .muLaw ? muLawTable : aLawTable
        codes.removeAll(keepingCapacity: true)
        codes.append(contentsOf: repeatElement(0, count: samples.count / 2))
        codes.withUnsafeMutableBufferPointer { output in
            table.withUnsafeBufferPointer { lookup in
                for i in output.indices {
                    let value = Int(Int16(bitPattern: UInt16(samples[2 * i]) | UInt16(samples[2 * i + 1]) << 8))
                    output[i] = lookup[(value + 32_768) >> 2]
                }
            }
        }
    }
}
