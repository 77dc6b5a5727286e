import MediaBitstream
import MediaCore
import Testing

/// The one AVCC parser on the edges of its input: every length size, prefixes cut short, lengths past
/// the end, zero lengths (skipped and counted), and the offsets its errors carry.
@Suite(.timeLimit(.minutes(2))) struct AVCCParserTests {
    /// The ranges `parser` gives for `bytes`, as arrays.
    private func units(_ bytes: [UInt8], lengthSize: Int = 4) throws(MediaError) -> [[UInt8]] {
        var parser = try AVCCParser(lengthSize: lengthSize)
        return try parser.all(in: bytes).map { Array(bytes[$0.range]) }
    }

    @Test(arguments: [1, 2, 4])
    func readsEveryLengthSize(lengthSize: Int) throws {
        let first: [UInt8] = [0x67, 0x42, 0x00, 0x1E]
        let second: [UInt8] = [0x68, 0xCE]
        func prefix(_ count: Int) -> [UInt8] {
            (0..<lengthSize).map { UInt8(truncatingIfNeeded: count >> (8 * (lengthSize - 1 - $0))) }
        }
        let sample = prefix(first.count) + first + prefix(second.count) + second
        var parser = try AVCCParser(lengthSize: lengthSize, baseOffset: 100)
        let found = try parser.all(in: sample)
        #expect(found.map { Array(sample[$0.range]) } == [first, second])
        #expect(found.map(\.prefixOffset) == [100, Int64(100 + lengthSize + first.count)])
        #expect(parser.skippedEmptyNALUnits == 0 && parser.emptyNALUnitWarning == nil)
    }

    @Test(arguments: [0, 3, 5, 8])
    func refusesOtherLengthSizes(lengthSize: Int) {
        #expect(throws: MediaError.self) { _ = try AVCCParser(lengthSize: lengthSize) }
        do {
            _ = try AVCCParser(lengthSize: lengthSize)
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }

    @Test func truncatedLengthPrefixNamesItsOffset() throws {
        // One whole unit, then two bytes of a 4-byte prefix.
        let sample: [UInt8] = [0, 0, 0, 1, 0x09, 0, 0]
        var parser = try AVCCParser(baseOffset: 1000)
        #expect(try parser.next(in: sample)?.range == 4..<5)
        let error = #expect(throws: MediaError.self) { try parser.next(in: sample) }
        #expect(error?.code == .truncated)
        #expect(error?.byteOffset == 1005)
    }

    @Test(arguments: [1, 2, 4])
    func lengthPastTheEndNamesItsPrefix(lengthSize: Int) throws {
        // A unit announcing 9 bytes when 3 follow, after a good one-byte unit.
        let sample =
            [UInt8](repeating: 0, count: lengthSize - 1) + [1, 0x09]
            + [UInt8](repeating: 0, count: lengthSize - 1) + [9, 0x65, 0x88, 0x84]
        var parser = try AVCCParser(lengthSize: lengthSize)
        #expect(try parser.next(in: sample) != nil)
        let error = #expect(throws: MediaError.self) { try parser.next(in: sample) }
        #expect(error?.code == .truncated)
        #expect(error?.byteOffset == Int64(lengthSize + 1))
    }

    @Test func lengthOneByteShortOfTheEndIsRefused() {
        #expect(throws: MediaError.self) { _ = try units([0, 0, 0, 4, 0x65, 0x88, 0x84]) }
    }

    @Test func zeroLengthUnitsAreSkippedAndCounted() throws {
        let sample: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 0, 0, 0, 0, 1, 0x0C]
        var parser = try AVCCParser()
        let found = try parser.all(in: sample)
        #expect(found.map { Array(sample[$0.range]) } == [[0x09, 0xF0], [0x0C]])
        #expect(parser.skippedEmptyNALUnits == 2)
        #expect(parser.firstEmptyNALUnitOffset == 0)
        #expect(parser.emptyNALUnitWarning == "skipped 2 zero-length AVCC NAL units (the first at byte 0)")
    }

    @Test func onlyZeroLengthsGiveNoUnits() throws {
        #expect(try units([0, 0, 0, 0]) == [])
        #expect(try units([0, 0], lengthSize: 1) == [])
        #expect(try units([]) == [])
    }

    @Test func parsesSlicesAndRawBuffersAtTheirOwnIndices() throws {
        let whole: [UInt8] = [0xAA, 0xBB, 0, 0, 0, 2, 0x09, 0xF0]
        var slice = try AVCCParser(baseOffset: 2)
        let unit = try #require(try slice.next(in: whole[2...]))
        #expect(unit.range == 6..<8 && unit.prefixOffset == 2)
        try whole.withUnsafeBytes { raw in
            var parser = try AVCCParser()
            let found = try #require(try parser.next(in: UnsafeRawBufferPointer(rebasing: raw[2...])))
            #expect(found.range == 4..<6 && found.prefixOffset == 0)
        }
    }

    @Test func bitstreamConversionsFollowTheSameRule() throws {
        let sample: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 2, 0x09, 0xF0]
        #expect(try H264Bitstream.avccToAnnexB(sample) == [0, 0, 0, 1, 0x09, 0xF0])
        #expect(try H264Bitstream.avccNALUnits(sample).map(Array.init) == [[0x09, 0xF0]])
        #expect(throws: MediaError.self) { _ = try H264Bitstream.avccToAnnexB([0, 0, 0, 3, 0x09]) }
    }
}
