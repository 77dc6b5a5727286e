import MediaCore
import MediaFormats
import Testing

/// The scanner looks for start codes 32 bytes at a time and only looks closer at blocks with two
/// adjacent zero bytes: these streams put start codes at every position relative to those blocks and
/// to the chunk boundaries, between NAL units full of near misses (lone zeros, `00 00 03`, `00 01`).
@Suite(.timeLimit(.minutes(2))) struct AnnexBScannerBlockSearchTests {
    /// A NAL unit body: non-zero header, then bytes that are mostly above 1 with near misses mixed in,
    /// ending in a non-zero byte (so that no trailing zero is removed).
    private func body(length: Int, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes: [UInt8] = [UInt8.random(in: 0x01...0x7F, using: &generator)]
        while bytes.count < length {
            // After a zero byte only a byte above 2 may follow: no accidental start code.
            let pick = bytes.last == 0 ? 39 : Int.random(in: 0..<40, using: &generator)
            switch pick {
            case 0: bytes += [0x00, 0x00, 0x03]  // emulation prevention
            case 1: bytes += [0x00, 0x01]  // one zero before a 01: not a start code
            case 2: bytes += [0x00]
            case 3: bytes += [0x01]
            default: bytes.append(UInt8.random(in: 2...255, using: &generator))
            }
        }
        bytes.append(UInt8.random(in: 1...255, using: &generator))
        return bytes
    }

    @Test func findsEveryStartCodeWhateverItsPositionAndTheChunking() throws {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<200 {
            var stream: [UInt8] = []
            var expected: [AnnexBScanner.NALUnit] = []
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                stream += Bool.random(using: &generator) ? [0, 0, 1] : [0, 0, 0, 1]
                let nal = body(length: Int.random(in: 1...70, using: &generator), using: &generator)
                expected.append(AnnexBScanner.NALUnit(bytes: nal, offset: Int64(stream.count)))
                stream += nal
            }
            #expect(try scanAnnexB(stream, seeds: [generator.next()]) == expected)
        }
    }

    @Test func findsAStartCodeRightAfterALongRunWithoutZeros() throws {
        // 4 KiB without a zero byte, then a start code at each of 32 offsets: the block loop must
        // neither skip it nor stop early.
        for shift in 0..<32 {
            let first: [UInt8] = [0x65] + (0..<(4096 + shift)).map { UInt8(truncatingIfNeeded: $0 % 200 + 2) }
            let stream = [0, 0, 0, 1] + first + [0, 0, 1, 0x09, 0xF0]
            let units = try scanAnnexB(stream)
            #expect(units.map(\.bytes) == [first, [0x09, 0xF0]])
            #expect(units.map(\.offset) == [4, Int64(4 + first.count + 3)])
        }
    }
}
