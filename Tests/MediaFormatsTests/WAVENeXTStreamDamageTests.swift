import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AudioFileStreamParser's WAVE and NeXT parsers on damaged files: cut anywhere, garbage, impossible
/// sizes, endless zero-size chunks, impossible formats. Always a typed error with the offset of the
/// damaged structure (or, after the audio, a diagnostic), the same for every split; never a trap or a hang.
@Suite(.timeLimit(.minutes(2))) struct WAVENeXTStreamDamageTests {
    typealias T = WAVENeXTStreamTest

    /// Drip-feeds `bytes` and expects the parse to end with an error of `code` at `offset`.
    static func expectError(
        _ bytes: [UInt8], _ code: MediaError.Code, at offset: Int, byteByByte: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let report = try T.verified(bytes, byteByByte: byteByByte)
        #expect(report.error?.code == code, "\(String(describing: report.error))", sourceLocation: sourceLocation)
        #expect(
            report.error?.byteOffset == Int64(offset), "\(String(describing: report.error))",
            sourceLocation: sourceLocation)
    }

    /// The file offsets of a RIFF file's chunk headers (walked here, independently of the parser).
    static func chunkOffsets(_ file: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var at = 12
        while at + 8 <= file.count {
            offsets.append(at)
            let size = Int(file[at + 4]) | Int(file[at + 5]) << 8 | Int(file[at + 6]) << 16 | Int(file[at + 7]) << 24
            if String(decoding: file[at..<(at + 4)], as: UTF8.self) == "data" { break }
            at += 8 + size + size % 2
        }
        return offsets
    }

    @Test func aWAVECutAnywhereIsTruncatedAtTheCutStructureOrReadsWhatIsThere() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("small.wav")
        try T.ffmpegNoise(path, codec: "pcm_s16le", frames: 50)
        let file = try T.bytes(path)
        let chunks = Self.chunkOffsets(file)
        let dataOffset = try #require(chunks.last) + 8
        #expect(chunks.count == 3 && dataOffset == 78)  // fmt, LIST, data
        for cut in 0..<file.count {
            let report = try T.verified(Array(file.prefix(cut)))
            if cut < 4 {
                // Too short to tell what it is.
                #expect(report.error?.code == .unsupportedFormat && report.error?.byteOffset == 0)
            } else if cut < dataOffset {
                let structure = ([0] + chunks).last { $0 <= cut } ?? -1
                #expect(report.error?.code == .truncated, "cut at \(cut): \(String(describing: report.error))")
                #expect(
                    report.error?.byteOffset == Int64(structure), "cut at \(cut): \(String(describing: report.error))")
            } else {
                let available = cut - dataOffset
                #expect(report.error == nil && report.byteCount == 200)
                #expect(report.packetBytes == Array(file[dataOffset..<(dataOffset + available / 4 * 4)]))
                var expected: [AudioFileStreamDiagnostic] = []
                if available % 4 != 0 {
                    expected.append(
                        .trailingBytesSkipped(byteOffset: Int64(cut - available % 4), count: Int64(available % 4)))
                }
                expected.append(
                    .dataTruncated(byteOffset: Int64(dataOffset), declared: 200, available: Int64(available)))
                #expect(report.otherDiagnostics == expected, "cut at \(cut)")
            }
        }
    }

    @Test func aNeXTFileCutAnywhereIsTruncatedOrReadsWhatIsThere() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("small.au")
        try T.soxTone(path, options: ["-e", "signed", "-b", "16"], seconds: "0.01")
        let file = try T.bytes(path)
        #expect(file.count == 44 + 160)
        for cut in 0..<file.count {
            let report = try T.verified(Array(file.prefix(cut)))
            switch cut {
            case 0..<4: #expect(report.error?.code == .unsupportedFormat && report.error?.byteOffset == 0)
            case 4..<24: #expect(report.error?.code == .truncated && report.error?.byteOffset == 0, "cut at \(cut)")
            case 24..<44: #expect(report.error?.code == .truncated && report.error?.byteOffset == 24, "cut at \(cut)")
            default:
                #expect(report.error == nil && report.packetBytes == Array(file[44..<(44 + (cut - 44) / 2 * 2)]))
                #expect(
                    report.otherDiagnostics.last
                        == .dataTruncated(byteOffset: 44, declared: 160, available: Int64(cut - 44)))
            }
        }
    }

    @Test func garbageWhereAChunkBelongsIsInvalidBeforeTheDataAndSkippedAfterIt() throws {
        let garbage: [UInt8] = [0x00, 0x9C] + WAVTest.pattern(300)
        try Self.expectError(Array("RIFF".utf8) + T.le32(400) + Array("WAVE".utf8) + garbage, .invalidData, at: 12)

        let (file, data) = WAVTest.simpleFile(frames: 10)
        let report = try T.verified(file + garbage)
        #expect(report.error == nil && report.packetBytes == data)
        #expect(
            report.diagnostics == [.trailingBytesSkipped(byteOffset: Int64(file.count), count: Int64(garbage.count))])
    }

    @Test func randomFormatChunksAndFlippedBytesNeverTrap() throws {
        // 300 fmt chunks of random fields (each format tag in turn), and 300 files with one header byte
        // changed: a format, or a typed error with an offset inside the file, the same for every split.
        let tags: [UInt16] = [1, 3, 6, 7, 0x11, 0xFFFE, 0x55]
        let (clean, _) = WAVTest.simpleFile(frames: 30)
        for seed in 1...300 {
            let random = WAVTest.pattern(40, seed: UInt32(seed))
            let body = T.le16(tags[seed % tags.count]) + Array(random[2..<40])
            let size = [16, 18, 20, 40][seed % 4]
            let file = WAVTest.riff([
                WAVTest.chunk("fmt ", Array(body.prefix(size))), WAVTest.dataChunk(WAVTest.pattern(64))
            ])
            // Not the magic numbers (a file that is no WAVE goes to other parsers).
            var flipped = clean
            flipped[[4, 5, 6, 7][seed % 4] + (seed % 3 == 0 ? 0 : 8 + seed % 33)] ^= random[0] | 1
            for bytes in [file, flipped] {
                let report = try T.verified(bytes, seeds: [1, 2])
                if let error = report.error {
                    #expect([.invalidData, .unsupportedFormat, .truncated].contains(error.code))
                    #expect((0...Int64(bytes.count)).contains(error.byteOffset ?? -1), "\(error)")
                } else if let format = report.format {
                    #expect(format.bytesPerPacket > 0 && format.channelsPerFrame > 0 && format.sampleRate > 0)
                }
            }
        }
    }

    @Test func aChunkSizeOf0xFFFFFFFFMidFile() throws {
        let fmt = WAVTest.chunk("fmt ", WAVTest.fmtBody())
        let data = WAVTest.dataChunk(WAVTest.pattern(400))
        // Before the data it swallows the rest of the file: the file ends inside it.
        let list = Array("LIST".utf8) + T.le32(0xFFFF_FFFF) + Array("INFO".utf8)
        try Self.expectError(WAVTest.riff([fmt, list, data]), .truncated, at: 36)
        // A fmt chunk that claims 4 GiB is read for its fields, then the file ends inside it.
        try Self.expectError(
            WAVTest.riff([WAVTest.chunk("fmt ", WAVTest.fmtBody(), declaredSize: 0xFFFF_FFFF), data]), .truncated,
            at: 12)
        // After the data it is a note: the audio is all there.
        let file = WAVTest.riff([fmt, WAVTest.chunk("data", WAVTest.pattern(400)), list + WAVTest.pattern(100)])
        let report = try T.verified(file)
        #expect(report.error == nil && report.packetBytes == WAVTest.pattern(400))
        #expect(
            report.otherDiagnostics == [
                .note(
                    "the 'LIST' chunk after the audio declares 4294967295 bytes but the file ends after 104",
                    byteOffset: 444)
            ])
    }

    @Test func anEndlessSeriesOfZeroSizeChunksEnds() throws {
        let junk = [[UInt8]](repeating: WAVTest.chunk("JUNK", []), count: 20_000)
        // Each is skipped (one diagnostic each), then the audio comes.
        let (plain, data) = WAVTest.simpleFile(frames: 100)
        let file = WAVTest.riff(junk + [Array(plain[12...])])
        let report = try T.verified(file, byteByByte: false)
        let dataOffset: Int64 = 12 + 160_000 + 32
        #expect(report.error == nil && report.packetBytes == data && report.dataOffset == dataOffset)
        #expect(
            report.diagnostics.count == 20_000
                && report.diagnostics.last == .chunkSkipped(type: "JUNK", byteOffset: 12 + 159_992, size: 0))
        // Without a data chunk the file ends after them.
        try Self.expectError(WAVTest.riff(junk), .invalidData, at: 160_012, byteByByte: false)
        // Zero bytes where a chunk belongs are no chunk header.
        try Self.expectError(WAVTest.riff([[UInt8](repeating: 0, count: 4096)]), .invalidData, at: 12)
    }

    @Test(arguments: [UInt16(1), 3, 6, 7, 0x11])
    func impossibleFormatFieldsAreInvalidAtTheirOffset(_ tag: UInt16) throws {
        let bits: UInt16 = tag == 0x11 ? 4 : tag == 3 ? 32 : 8
        let align: UInt16 = tag == 0x11 ? 256 : bits / 8
        let data = WAVTest.dataChunk(WAVTest.pattern(512))
        func file(channels: UInt16 = 1, rate: UInt32 = 8_000, blockAlign: UInt16? = nil) -> [UInt8] {
            WAVTest.riff([
                WAVTest.chunk(
                    "fmt ",
                    WAVTest.fmtBody(
                        tag: tag, channels: channels, rate: rate, bits: bits, blockAlign: blockAlign ?? align)), data
            ])
        }
        #expect(try T.verified(file()).error == nil)
        try Self.expectError(file(channels: 0), .invalidData, at: 22)
        try Self.expectError(file(rate: 0), .invalidData, at: 24)
        try Self.expectError(file(blockAlign: 0), .invalidData, at: 32)
    }

    @Test func structuralErrorsNameTheirOffset() throws {
        let fmt = WAVTest.chunk("fmt ", WAVTest.fmtBody())
        let data = WAVTest.dataChunk(WAVTest.pattern(64))
        try Self.expectError(WAVTest.riff([data, fmt]), .invalidData, at: 12)
        try Self.expectError(
            WAVTest.riff([WAVTest.chunk("fmt ", Array(WAVTest.fmtBody().prefix(8))), data]), .invalidData, at: 12)
        try Self.expectError(
            WAVTest.riff([WAVTest.chunk("fmt ", WAVTest.fmtBody(tag: 0x55)), data]), .unsupportedFormat, at: 20)
        var guid = WAVTest.extensibleBody(channels: 2, bits: 16, mask: 3)
        guid[38] ^= 0xFF
        try Self.expectError(WAVTest.riff([WAVTest.chunk("fmt ", guid), data]), .unsupportedFormat, at: 44)
        let ima =
            WAVTest.fmtBody(tag: 0x11, channels: 1, rate: 8_000, bits: 4, blockAlign: 256) + T.le16(2) + T.le16(9_999)
        try Self.expectError(WAVTest.riff([WAVTest.chunk("fmt ", ima), data]), .invalidData, at: 38)

        let au = T.auHeader(dataSize: 64)
        for (field, value, code) in [
            (4, UInt32(8), MediaError.Code.invalidData), (16, 0, .invalidData), (20, 0, .invalidData),
            (12, 23, .unsupportedFormat), (20, 70_000, .unsupportedFormat)
        ] {
            var bad = au + WAVTest.pattern(64)
            bad.replaceSubrange(field..<(field + 4), with: T.be32(value))
            try Self.expectError(bad, code, at: field)
        }
    }
}
