import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// CAF layouts the tools here do not write: Apple's IMA4 packet table (and CAFReader's fix for it), a
/// `chan` bitmap, `data` of size -1, chunks moved after `data`, frame counts in `pakt`.
extension CAFStreamParserTests {
    /// `file`'s chunks as (type, body) pairs.
    static func chunkBodies(_ file: [UInt8]) -> [(type: String, body: [UInt8])] {
        T.chunks(file, caf: true).map { chunk in
            let end = chunk.size < 0 ? file.count : chunk.offset + 12 + Int(chunk.size)
            return (chunk.type, Array(file[chunk.offset + 12..<end]))
        }
    }

    /// A CAF file of `chunks` in that order.
    static func caf(_ chunks: [(type: String, body: [UInt8])]) -> [UInt8] {
        CAFTest.fileHeader + chunks.flatMap { CAFTest.chunk($0.type, $0.body) }
    }

    /// A `pakt` body: the four counts, then `table`.
    static func paktBody(packets: Int64, valid: Int64, priming: UInt32 = 0, remainder: UInt32, table: [UInt8] = [])
        -> [UInt8]
    {
        CAFTest.be64(packets) + CAFTest.be64(valid) + CAFTest.be32(priming) + CAFTest.be32(remainder) + table
    }

    @Test func appleStyleIMA4PacketTableWithZeroPackets() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("ima.caf")
        try T.ffmpegTone(path, seconds: 0.1, rate: 22_050, ["-c:a", "adpcm_ima_qt"])
        var chunks = Self.chunkBodies(try WAVTest.bytes(path))
        let data = try #require(chunks.last)
        let packets = (data.body.count - 4) / 68
        let valid = Int64(packets * 64 - 37)
        // afconvert writes mNumberPackets 0 for IMA4 and gives the frames only.
        chunks.insert(("pakt", Self.paktBody(packets: 0, valid: valid, remainder: 37)), at: chunks.count - 1)
        let file = Self.caf(chunks)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        #expect(s.packetCount == Int64(packets))
        #expect(s.tableInfo == AudioFilePacketTableInfo(primingFrames: 0, remainderFrames: 37, validFrames: valid))
        #expect(s.packets == packets)
        // CAFReader accepts it too (not "pakt counts disagree with data"), trimming the remainder.
        let reader = try CAFReader(bytes: file)
        #expect(reader.packetCount == Int64(packets))
        #expect(reader.packetTable?.numberPackets == 0)
        let samples = try CAFTest.readAll(reader)
        #expect(samples.count == packets)
        #expect(samples.last?.trimAtEnd == 37)
        #expect(samples.reduce(0) { $0 + Int64($1.validFrameCount) } == valid)
        #expect(samples.flatMap(\.data) == s.bytes)
        // More frames than the packets hold is still refused, by both, alike.
        chunks[chunks.count - 2] = ("pakt", Self.paktBody(packets: 0, valid: Int64(packets * 64), remainder: 37))
        let bad = Self.caf(chunks)
        let streamError = try #require(T.error(bad))
        let readerError = try #require(throws: MediaError.self) { try CAFReader(bytes: bad) }
        #expect(streamError.code == .invalidData)
        #expect(streamError.message == readerError.message)
        #expect(streamError.byteOffset == readerError.byteOffset)
    }

    @Test func chanBitmapGivesTheLayout() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("three.caf")
        try T.ffmpegTone(path, seconds: 0.02, channels: 3, ["-c:a", "pcm_s16le"])
        let chunks = Self.chunkBodies(try WAVTest.bytes(path)).filter { $0.type != "chan" }
        // kCAFChannelLayoutTag_UseChannelBitmap, left | right | LFE.
        let chan = (type: "chan", body: CAFTest.be32(1 << 16) + CAFTest.be32(0b1011) + CAFTest.be32(0))
        let file = Self.caf([chunks[0], chan] + chunks.dropFirst())
        let s = try T.verified(file).summary
        #expect(s.layout == ChannelLayout(mask: 0b1011))
        #expect(s.layout == (try CAFReader(bytes: file)).format.channelLayout)
        #expect(s.layout != .default(channelCount: 3))
    }

    @Test func dataOfSizeMinusOneRunsToTheEnd() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("open.caf")
        try T.ffmpegTone(path, seconds: 0.05, ["-c:a", "pcm_s24be"])
        var file = try WAVTest.bytes(path)
        let data = try #require(T.chunks(file, caf: true).last)
        #expect(data.type == "data")
        file.replaceSubrange(data.offset + 4..<data.offset + 12, with: CAFTest.be64(-1))
        file += [1, 2, 3, 4]  // a partial frame at the end
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        #expect(s.packetCount == nil)
        #expect(s.byteCount == nil)
        #expect(s.bytes == (try T.ffmpegPackets(path)))
        #expect(
            s.diagnostics == [
                .chunkSkipped(type: "info", byteOffset: Int64(data.offset - 38), size: 26),
                .trailingBytesSkipped(byteOffset: Int64(file.count - 4), count: 4)
            ])
    }

    @Test func packetTableAndCookieAfterTheData() throws {
        let ring = Self.chunkBodies(try WAVTest.bytes(CAFTest.ringPath))
        let body = { (type: String) in ring.first { $0.type == type }?.body ?? [] }
        let file = Self.caf([
            ("desc", body("desc")), ("data", body("data")), ("free", [1, 2, 3]), ("kuki", body("kuki")),
            ("pakt", body("pakt"))
        ])
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        let apple = try T.parse(try WAVTest.bytes(CAFTest.ringPath))
        #expect(s.bytes == apple.bytes)
        #expect(s.packetSizes == apple.packetSizes)
        #expect(s.cookie == [0x12, 0x10])
        #expect(s.tableInfo == apple.tableInfo)
        #expect(s.dataOffset == Int64(8 + 44 + 16))
        #expect(s.batches.first?.fileOffset == s.dataOffset)
        #expect(s.skippedChunks == ["free"])
        #expect(try CAFReader(bytes: file).packetCount == 89)
    }

    @Test func constantBitRatePacketTableAfterTheDataIsSkipped() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("ima.caf")
        try T.ffmpegTone(path, seconds: 0.05, rate: 22_050, ["-c:a", "adpcm_ima_qt"])
        let file = try WAVTest.bytes(path) + CAFTest.chunk("pakt", Self.paktBody(packets: 0, valid: 10, remainder: 54))
        let s = try T.verified(file).summary
        #expect(s.tableInfo == nil)
        #expect(s.skippedChunks == ["info", "pakt"])
        #expect(s.bytes == (try T.ffmpegPackets(path)))
    }

    @Test func variableFrameCountsComeFromThePacketTable() throws {
        // A made-up codec with packets of varying size and duration: sizes 5, 200, 1; frames 10, 300, 7.
        let desc = CAFAudioDescription(
            sampleRate: 16_000, formatID: CAFFile.fourCC("vbrx"), formatFlags: 0, bytesPerPacket: 0, framesPerPacket: 0,
            channelsPerFrame: 1, bitsPerChannel: 0)
        let table: [UInt8] = [5, 10, 0x81, 0x48, 0x82, 0x2C, 1, 7]
        let audio = WAVTest.pattern(206)
        let file = Self.caf([
            ("desc", desc.bytes), ("pakt", Self.paktBody(packets: 3, valid: 317, remainder: 0, table: table)),
            ("data", [0, 0, 0, 0] + audio)
        ])
        let s = try T.verified(file).summary
        #expect(s.format?.framesPerPacket == 0)
        #expect(s.packetSizes == [5, 200, 1])
        #expect(s.batches.flatMap { $0.descriptions.map(\.variableFramesInPacket) } == [10, 300, 7])
        #expect(s.frames == 317)
        #expect(s.bytes == audio)
        let expectedBitRate: Double = 206.0 * 8 / (317.0 / 16_000)
        #expect(s.bitRate == Int(expectedBitRate.rounded()))
        let packet2: Int64 = 317  // file header 8, desc 44, pakt 44, data header 16, packets of 5 and 200
        #expect(try T.seek(file, toPacket: 2).offset.byteOffset == packet2)
        let reader = try CAFReader(bytes: file)
        #expect(try CAFTest.readAll(reader).map(\.frameCount) == [10, 300, 7])
    }
}
