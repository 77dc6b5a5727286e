@testable import MediaFormats
import MediaCore
import Testing

/// The 80-bit extended sample rate: known encodings, agreement with the hardware's own conversion, and
/// every kind of number a rate cannot be refused with its offset.
extension AIFFStreamParserTests {
    static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { i in
            let start = hex.index(hex.startIndex, offsetBy: i)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }

    @Test(arguments: [
        ("400EAC44000000000000", 44_100.0),  // as ffmpeg, sox and libsndfile write it
        ("400BFA00000000000000", 8000.0),
        ("400DAC44000000000000", 22_050.0),
        ("400EBB80000000000000", 48_000.0),
        ("4010BB80000000000000", 192_000.0),
        ("3FFF8000000000000000", 1.0),
        ("3FFEC000000000000000", 0.75),
        ("400EAC44800000000000", 44_100.5),
        ("401BEE6B280000000000", 500_000_000.0),
        ("C00EAC44000000000000", -44_100.0)
    ])
    func extendedKnownValues(_ hex: String, _ value: Double) throws {
        #expect(try ExtendedFloat80.double(bigEndian: Self.bytes(hex), at: 0) == value)
    }

    @Test func extendedMatchesIntegerEncoder() throws {
        for rate: UInt64 in [1, 2, 3, 7350, 11_025, 16_000, 32_000, 88_200, 176_400, 352_800, 705_600, 2_147_483_647] {
            #expect(try ExtendedFloat80.double(bigEndian: ContainerStreamTest.extended(rate), at: 0) == Double(rate))
        }
    }

    #if arch(x86_64) || arch(i386)
        /// Swift's `Float80` is the x87 type: its conversion to `Double` (rounded to nearest, ties to even) is
        /// the judge for random significands across the whole accepted exponent range.
        @Test func extendedRoundsAsTheHardwareDoes() throws {
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            func random() -> UInt64 {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return state
            }
            for round in 0..<5000 {
                let exponent = UInt16(16383 - 1022 + Int(random() % 2046))
                var significand = random() | 1 << 63
                if round % 3 == 0 { significand = significand & ~0x7FF | 0x400 }  // exactly half way: ties to even
                let negative = round % 5 == 0
                let bytes =
                    ContainerStreamTest.be16(Int(exponent | (negative ? 0x8000 : 0)))
                    + (0..<8).map { UInt8(truncatingIfNeeded: significand >> (56 - 8 * $0)) }
                let hardware = Float80(
                    sign: negative ? .minus : .plus, exponentBitPattern: UInt(exponent),
                    significandBitPattern: significand & ~(1 << 63))
                let expected = Double(hardware)
                guard expected.isFinite else { continue }
                #expect(try ExtendedFloat80.double(bigEndian: bytes, at: 0) == expected, "\(bytes)")
            }
        }
    #endif

    @Test(arguments: [
        ("00000000000000000000", "zero"),
        ("80000000000000000000", "zero"),
        ("00004000000000000000", "a denormal"),
        ("7FFF8000000000000000", "infinite"),
        ("FFFF8000000000000000", "infinite"),
        ("7FFFC000000000000000", "not a number"),
        ("400E2C44000000000000", "unnormalised"),
        ("43FF8000000000000000", "outside a Double's range"),
        ("7FFE8000000000000000", "outside a Double's range"),
        ("3C008000000000000000", "outside a Double's range"),
        ("43FEFFFFFFFFFFFFFFFF", "rounds to infinity")
    ])
    func extendedRefusals(_ hex: String, _ reason: String) throws {
        let error = try #require(throws: MediaError.self) {
            try ExtendedFloat80.double(bigEndian: Self.bytes(hex), at: 28)
        }
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 28)
        #expect(error.message.contains(reason))
        #expect(error.message.contains(hex))
    }
}
