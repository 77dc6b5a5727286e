import MediaBitstream
import MediaCore
import Testing

/// The generic entry points are inlinable fronts that hand contiguous bytes to non-generic code and copy
/// anything else first: every kind of collection must give the same result, and the in-place Annex-B
/// split the same NAL units as ``AnnexBScanner``.
@Suite(.timeLimit(.minutes(2))) struct GenericEntryPointTests {
    /// The NAL units `AnnexBScanner` gives for a whole stream, all-zero ones skipped, with their offsets.
    static func scannerUnits(_ stream: [UInt8]) -> [(bytes: [UInt8], offset: Int64)] {
        var scanner = AnnexBScanner()
        scanner.push(stream)
        scanner.finish()
        var units: [(bytes: [UInt8], offset: Int64)] = []
        while true {
            do {
                guard let unit = try scanner.next() else { break }
                units.append((unit.bytes, unit.offset))
            } catch {
                continue
            }
        }
        return units
    }

    /// Streams with start codes of 3 and 4 bytes, leading bytes, trailing zeros, all-zero units, a start
    /// code at the very end, and random ones long enough for the 32-byte blocks of the search.
    static func streams() -> [[UInt8]] {
        var streams: [[UInt8]] = [
            [], [0, 0, 1], [0, 0, 0, 1], [0xAB, 0, 0, 1, 0x67, 0x42, 0, 0, 0, 1, 0x68, 0xCE, 0, 0],
            [0, 0, 1, 0, 0, 0, 1, 0x65, 1, 2, 0, 0, 1], [0x65, 0x88, 0, 0, 3, 0, 0, 1, 0x41], [0, 0, 1, 0x09, 0, 0]
        ]
        var state: UInt32 = 12345
        for length in [40, 100, 1000, 5000] {
            var bytes: [UInt8] = []
            for _ in 0..<length {
                state = state &* 1_103_515_245 &+ 12345
                let pick = Int(state >> 16) % 8
                bytes.append(pick < 4 ? 0 : pick == 4 ? 1 : UInt8(truncatingIfNeeded: state >> 8))
            }
            streams.append(bytes)
        }
        return streams
    }

    @Test func annexBNALUnitsSplitsAsTheScannerDoes() {
        var total = 0
        for stream in Self.streams() {
            let expected = Self.scannerUnits(stream)
            total += expected.count
            let units = H264Bitstream.annexBNALUnits(stream)
            #expect(units.map { Array($0) } == expected.map(\.bytes), "stream of \(stream.count) bytes")
            #expect(units.map { Int64($0.startIndex) } == expected.map(\.offset))
            // A slice (indexed from 8) and a collection without contiguous storage give the same units,
            // indexed from 0.
            let padded = [UInt8](repeating: 0xEE, count: 8) + stream
            let slice = H264Bitstream.annexBNALUnits(padded[8...])
            #expect(slice == units && slice.map(\.startIndex) == units.map(\.startIndex))
            let lazy = H264Bitstream.annexBNALUnits(stream.lazy.map { $0 })
            #expect(lazy == units && lazy.map(\.startIndex) == units.map(\.startIndex))
        }
        #expect(total > 100)  // the random streams hold many start codes
    }

    @Test func scannerPushGivesTheSameUnitsForEveryCollection() throws {
        for stream in Self.streams() where !stream.isEmpty {
            let expected = Self.scannerUnits(stream)
            var scanner = AnnexBScanner()
            // In chunks of 7: slices, lazily mapped collections and empty ones alternately.
            var index = 0
            var chunk = 0
            while index < stream.count {
                let end = min(index + 7, stream.count)
                if chunk % 2 == 0 {
                    scanner.push(stream[index..<end])
                } else {
                    scanner.push(stream[index..<end].lazy.map { $0 })
                }
                scanner.push([UInt8]())
                index = end
                chunk += 1
            }
            scanner.finish()
            var units: [(bytes: [UInt8], offset: Int64)] = []
            while true {
                do {
                    guard let unit = try scanner.next() else { break }
                    units.append((unit.bytes, unit.offset))
                } catch {
                    continue
                }
            }
            #expect(units.map(\.bytes) == expected.map(\.bytes) && units.map(\.offset) == expected.map(\.offset))
        }
        var finished = AnnexBScanner()
        finished.finish()
        finished.push([1, 2, 3].lazy.map { $0 })
        #expect(throws: MediaError(.invalidArgument, "AnnexBScanner was given 3 bytes after finish()")) {
            try finished.next()
        }
    }

    @Test func headersAndRBSPAreTheSameForEveryCollection() throws {
        let adts: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x00, 0xFF, 0xFC]
        let header = try ADTSHeader(parsing: adts)
        #expect(try ADTSHeader(parsing: ([0x00] + adts)[1...]) == header)
        #expect(try ADTSHeader(parsing: adts.lazy.map { $0 }) == header)
        #expect(header.bytes == adts)
        let short = MediaError.truncated("ADTS header", needed: 7, available: 6, at: 40)
        #expect(throws: short) { try ADTSHeader(parsing: adts.prefix(6).lazy.map { $0 }, at: 40) }
        let crc = MediaError.truncated("ADTS header with CRC", needed: 9, available: 8, at: 3)
        #expect(throws: crc) { try ADTSHeader(parsing: [0xFF, 0xF0, 0x50, 0x80, 0x01, 0x3F, 0xFC, 0xAA], at: 3) }

        #expect(H264RBSP.removeEmulationPrevention([0, 0, 3, 1].lazy.map { $0 }) == [0, 0, 1])
        #expect(H264RBSP.insertEmulationPrevention([0, 0, 1].lazy.map { $0 }) == [0, 0, 3, 1])
        for stream in Self.streams() {
            let rbsp = H264RBSP.removeEmulationPrevention(stream)
            #expect(H264RBSP.removeEmulationPrevention(stream.lazy.map { $0 }) == rbsp)
            #expect(H264RBSP.removeEmulationPrevention(([9] + stream)[1...]) == rbsp)
            let escaped = H264RBSP.insertEmulationPrevention(stream)
            #expect(H264RBSP.insertEmulationPrevention(stream.lazy.map { $0 }) == escaped)
            #expect(H264RBSP.insertEmulationPrevention(([9] + stream)[1...]) == escaped)
            #expect(stream.isEmpty || escaped.count > stream.count)  // the streams hold 00 00 01
        }

        // A cut SPS fails the same way, at the same offset, whatever holds its bytes.
        let sps: [UInt8] = [0x67, 0x42, 0x00]
        let error = try #require(#expect(throws: MediaError.self) { try H264SPS(parsing: sps, baseOffset: 100) })
        #expect(throws: error) { try H264SPS(parsing: sps.lazy.map { $0 }, baseOffset: 100) }
        #expect(throws: error) { try H264SPS(parsing: ([0] + sps)[1...], baseOffset: 100) }
        #expect(error.code == .truncated && error.byteOffset == 103)
        let pps: [UInt8] = [0x68]
        let ppsError = try #require(#expect(throws: MediaError.self) { try H264PPS(parsing: pps, baseOffset: 7) })
        #expect(throws: ppsError) { try H264PPS(parsing: pps.lazy.map { $0 }, baseOffset: 7) }
        #expect(throws: MediaError.invalidData("NAL unit of type PPS (8) is not an SPS", at: 2)) {
            try H264SPS(parsing: [0x68, 0xCE].lazy.map { $0 }, baseOffset: 2)
        }
    }
}
