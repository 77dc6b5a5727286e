import Foundation
@testable import MediaFormats
import MediaTestSupport
import Testing

/// The 80-bit extended encoder behind the `COMM` sample rate, beyond the integer rates FFmpeg can write.
extension AIFFMuxerTests {
    /// SoX takes any rate and writes it with its own encoder (frexp/ldexp): ours gives the same bytes.
    @Test(arguments: ["7999.99", "44100.5", "11025.25", "0.5", "1", "3", "384000", "2822400", "48000.001"])
    func nonIntegerRatesAreEncodedAsSoXEncodesThem(rate: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("rate.aiff")
        try WAVTest.sox(["-r", rate, "-n", "-b", "16", "-c", "1", path, "synth", "4s", "sine", "0.1"])
        let bytes = try WAVTest.bytes(path)
        let comm = try #require(AIFFMuxerTests.chunkOffset("COMM", in: bytes))
        let value = try #require(Double(rate))
        #expect(IEEEExtended.bytes(value) == Array(bytes[comm + 16..<comm + 26]))
    }

    #if arch(x86_64)
        /// Against the hardware's own 80-bit format (Float80 on x86): normal, subnormal, zero, negative,
        /// infinite values.
        @Test func matchesFloat80() {
            let values: [Double] = [
                44_100, 7_999.99, 1, 0.1, .pi, 1e300, -2.5, 0, -0.0, .leastNonzeroMagnitude,
                Double(sign: .plus, exponent: -1030, significand: 1.5),
                .leastNormalMagnitude, .greatestFiniteMagnitude, .infinity, -.infinity
            ]
            for value in values {
                let x = Float80(value)
                let exponent = UInt16(x.exponentBitPattern) | (x.sign == .minus ? 0x8000 : 0)
                let integerBit: UInt64 = x.exponentBitPattern == 0 ? 0 : 1 << 63
                let significand = integerBit | UInt64(x.significandBitPattern)
                let expected =
                    [UInt8(exponent >> 8), UInt8(exponent & 0xFF)]
                    + (0..<8).map { UInt8(truncatingIfNeeded: significand >> (56 - 8 * UInt64($0))) }
                #expect(IEEEExtended.bytes(value) == expected, "\(value)")
            }
        }
    #endif

    /// The offset of the first chunk `id` in an AIFF file.
    static func chunkOffset(_ id: String, in bytes: [UInt8]) -> Int? {
        var offset = 12
        while offset + 8 <= bytes.count {
            if Array(bytes[offset..<offset + 4]) == Array(id.utf8) { return offset }
            let size = Int(PCMMuxerTest.be32(bytes, at: offset + 4))
            offset += 8 + size + (size & 1)
        }
        return nil
    }
}
