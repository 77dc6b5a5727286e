import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct H264AnnexBScannerRobustnessTests {
    @Test func randomStartCodeHeavyInputIsChunkingInvariant() throws {
        var generator = SplitMix64(seed: 0xA11E7)
        var sawError = false
        var sawUnit = false
        for _ in 0..<300 {
            // Bytes drawn mostly from 0 and 1 so that start codes, zero runs and empty NAL units abound.
            let bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ -> UInt8 in
                let r = Int.random(in: 0..<10, using: &generator)
                return r < 6 ? 0 : (r < 8 ? 1 : UInt8.random(in: 2...255, using: &generator))
            }
            // The scanner skips an all-zero NAL unit (trailing_zero_8bits): no error event.
            let outcome = try PushParserVerifier.verify(
                bytes, seeds: [generator.next()], errorPolicy: .continueAfterErrors
            ) {
                AnnexBScanner()
            }
            for event in outcome.events {
                switch event {
                case .output(let unit):
                    sawUnit = true
                    #expect(unit.bytes.last != 0)
                    #expect(!unit.bytes.isEmpty)
                    let at = Int(unit.offset)
                    #expect(Array(bytes[at..<at + unit.bytes.count]) == unit.bytes)
                case .error(let error):
                    sawError = true
                    #expect(error.code == .invalidData)
                    #expect((error.byteOffset ?? -1) >= 3 && (error.byteOffset ?? Int64.max) <= Int64(bytes.count))
                }
            }
        }
        #expect(!sawError && sawUnit)  // all-zero units are trailing_zero_8bits, skipped
    }

    @Test func oneLargeNALFedByteByByteIsScannedInLinearTime() throws {
        // 512 KiB of payload without a start code: a scanner that rescans or copies its buffer on
        // every push would take minutes here. Not timed (a sanitizer or a loaded machine stretches any
        // bound): the suite's time limit catches a quadratic scanner, and the result must be exact.
        var payload: [UInt8] = [0x65]
        payload += (0..<(512 * 1024)).map { UInt8(truncatingIfNeeded: $0 % 251 + 2) }
        let stream = [0, 0, 0, 1] + payload + [0, 0, 1, 0x09, 0xF0]
        let units = try scanAnnexB(stream, seeds: [])  // whole, then byte by byte
        #expect(units.map(\.bytes) == [payload, [0x09, 0xF0]])
    }
}
