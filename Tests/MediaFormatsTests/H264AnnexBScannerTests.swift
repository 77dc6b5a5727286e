import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// The NAL units of `bytes`, checked by ``PushParserVerifier`` to be the same whole, byte by byte and in
/// the random splits of `seeds`; the scanner's first error is thrown.
func scanAnnexB(_ bytes: [UInt8], seeds: [UInt64] = PushParserVerifier.standardSeeds) throws -> [AnnexBScanner.NALUnit]
{
    let outcome = try PushParserVerifier.verify(bytes, seeds: seeds) { AnnexBScanner() }
    if let error = outcome.error { throw error }
    return outcome.outputs
}

@Suite(.timeLimit(.minutes(2))) struct H264AnnexBScannerTests {
    @Test func splitsThreeAndFourByteStartCodesAndStripsTrailingZeros() throws {
        let stream: [UInt8] = [
            0x00, 0x00, 0x00, 0x01, 0x67, 0x42, 0x00,  // SPS ending in a zero (trailing_zero_8bits)
            0x00, 0x00, 0x01, 0x68, 0xCE,  // PPS after a 3-byte start code
            0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x65, 0x88, 0x00, 0x00, 0x03, 0x01,  // IDR after extra zeros
            0x00, 0x00  // trailing zeros at the end of the stream
        ]
        let units = try AnnexBScanner.split(stream)
        #expect(units.map(\.bytes) == [[0x67, 0x42], [0x68, 0xCE], [0x65, 0x88, 0x00, 0x00, 0x03, 0x01]])
        #expect(units.map(\.offset) == [4, 10, 18])
        #expect(units.map(\.header.nalUnitType) == [.sps, .pps, .idr])
        let chunked = try scanAnnexB(stream)
        #expect(chunked == units)
    }

    @Test func bytesBeforeTheFirstStartCodeAreSkippedAndCounted() throws {
        var scanner = AnnexBScanner()
        scanner.push([0xAB, 0x00, 0xCD, 0x00, 0x00, 0x01, 0x09, 0xF0])
        #expect(try scanner.next() == nil)  // the AUD is not complete until the end is known
        scanner.finish()
        let unit = try scanner.next()
        #expect(unit?.bytes == [0x09, 0xF0])
        #expect(unit?.offset == 6)
        #expect(try scanner.next() == nil)
        #expect(scanner.skippedLeadingBytes == 2)
    }

    /// A start code followed only by zero bytes is trailing_zero_8bits (H.264 B.1): skipped and counted,
    /// between units and at the end of the stream.
    @Test func startCodeFollowedOnlyByZerosIsSkippedAndCounted() throws {
        var scanner = AnnexBScanner()
        scanner.push([0x00, 0x00, 0x01, 0x09, 0xF0, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x41, 0x9A])
        scanner.push([0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00])
        scanner.finish()
        #expect(try scanner.next()?.bytes == [0x09, 0xF0])
        #expect(try scanner.next()?.bytes == [0x41, 0x9A])
        #expect(try scanner.next() == nil)
        #expect(scanner.zeroOnlyUnits == 2)
    }

    /// `withNextNALUnit` reads the units `next()` returns (bytes and offsets), in place, however the
    /// stream is pushed (4 KiB chunks, one byte at a time at the start) and when the two calls alternate;
    /// after `finish()`, a push makes it throw as `next()` does.
    @Test(arguments: H264Fixtures.allNames)
    func readingInPlaceGivesTheUnitsNextReturns(_ name: String) throws {
        let bytes = try H264Fixtures.stream(name).bytes
        let expected = try AnnexBScanner.split(bytes)
        #expect(!expected.isEmpty)
        var scanner = AnnexBScanner()
        var units: [AnnexBScanner.NALUnit] = []
        func read() throws {
            while true {
                let unit: AnnexBScanner.NALUnit?
                if units.count % 3 == 2 {
                    unit = try scanner.next()
                } else {
                    unit = try scanner.withNextNALUnit { span, offset in
                        AnnexBScanner.NALUnit(bytes: (0..<span.count).map { span[$0] }, offset: offset)
                    }
                }
                guard let unit else { return }
                units.append(unit)
            }
        }
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + (start < 64 ? 1 : 4096))
            scanner.push(bytes[start..<end])
            try read()
            start = end
        }
        scanner.finish()
        try read()
        #expect(units == expected)
        scanner.push([0, 0, 1, 9])
        #expect(throws: MediaError.self) { try scanner.withNextNALUnit { span, _ in span.count } }
    }

    @Test func emptyAndStartCodeFreeInputsGiveNothing() throws {
        #expect(try AnnexBScanner.split([UInt8]()).isEmpty)
        #expect(try AnnexBScanner.split([UInt8](repeating: 0, count: 100)).isEmpty)
        #expect(try AnnexBScanner.split([UInt8](repeating: 0xFF, count: 100)).isEmpty)
    }

    @Test(arguments: H264Fixtures.allNames)
    func findsTheNALUnitsTraceHeadersReports(_ name: String) throws {
        let stream = try H264Fixtures.stream(name)
        let units = try AnnexBScanner.split(stream.bytes)
        var counts: [UInt8: Int] = [:]
        for unit in units { counts[unit.header.nalUnitType.rawValue, default: 0] += 1 }
        let expected = stream.traceNALTypeCounts
        #expect(!expected.isEmpty)
        #expect(counts == expected)
        // Each NAL unit sits right after a start code at its offset.
        for unit in units {
            let at = Int(unit.offset)
            #expect(Array(stream.bytes[at - 3..<at]) == [0, 0, 1])
            #expect(Array(stream.bytes[at..<at + unit.bytes.count]) == unit.bytes)
        }
    }

    @Test(arguments: ["high", "openh264", "metadata"])
    func chunkingDoesNotChangeTheOutput(_ name: String) throws {
        let stream = try H264Fixtures.stream(name)
        let whole = try AnnexBScanner.split(stream.bytes)
        #expect(whole.count > 30)
        #expect(try scanAnnexB(stream.bytes) == whole)
    }

    @Test func threeByteStartCodesGiveTheSameNALUnits() throws {
        let stream = try H264Fixtures.stream("high")
        // Rewrite every 00 00 00 01 to 00 00 01, then append two trailing zero bytes to every NAL unit.
        var short: [UInt8] = []
        var padded: [UInt8] = []
        var i = 0
        let bytes = stream.bytes
        var rewritten = 0
        while i < bytes.count {
            if i + 3 < bytes.count && bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 0 && bytes[i + 3] == 1 {
                short += [0, 0, 1]
                padded += [0, 0, 0, 0, 0, 1]
                i += 4
                rewritten += 1
            } else {
                short.append(bytes[i])
                padded.append(bytes[i])
                i += 1
            }
        }
        #expect(rewritten > 0)
        let original = try AnnexBScanner.split(bytes).map(\.bytes)
        #expect(try AnnexBScanner.split(short).map(\.bytes) == original)
        #expect(try scanAnnexB(short).map(\.bytes) == original)
        #expect(try AnnexBScanner.split(padded + [0, 0, 0]).map(\.bytes) == original)
        let ffprobe = try H264TestFile.probeCount(short)
        #expect(ffprobe == original.filter { H264NALHeader(byte: $0[0]).nalUnitType.isVCL }.count)
    }
}

enum H264TestFile {
    /// The number of frames ffprobe counts in the Annex-B stream `bytes`.
    static func probeCount(_ bytes: [UInt8]) throws -> Int {
        let dir = try TemporaryDirectory()
        let path = dir.file("s.h264")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let first = try ExternalTool.probeFirstStream(path)
        return Int("\(first["nb_read_packets"] ?? "")") ?? -1
    }
}
