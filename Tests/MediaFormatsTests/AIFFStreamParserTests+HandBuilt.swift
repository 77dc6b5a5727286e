import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AIFF layouts the tools do not write: COMM after SSND (judged by ffprobe reading the file), SSND's
/// offset field, odd bit depths, every AIFF-C code, FFmpeg's piped output, IMA4 frame counts.
extension AIFFStreamParserTests {
    /// An ffmpeg s16be stereo AIFF and its chunks.
    static func ffmpegAIFF(_ dir: TemporaryDirectory, seconds: Double = 0.1) throws -> (
        file: [UInt8], comm: [UInt8], audio: [UInt8]
    ) {
        let path = dir.file("src.aiff")
        try T.ffmpegTone(path, seconds: seconds, ["-c:a", "pcm_s16be", "-f", "aiff"])
        let file = try WAVTest.bytes(path)
        let chunks = T.chunks(file, caf: false)
        let comm = try #require(chunks.first { $0.type == "COMM" })
        let ssnd = try #require(chunks.first { $0.type == "SSND" })
        return (
            file, Array(file[comm.offset + 8..<comm.offset + 8 + Int(comm.size)]),
            Array(file[ssnd.offset + 16..<ssnd.offset + 8 + Int(ssnd.size)])
        )
    }

    @Test func commAfterSSNDParsesAsFFprobeReadsIt() throws {
        let dir = try TemporaryDirectory()
        let source = try Self.ffmpegAIFF(dir)
        let file = T.form(
            "AIFF",
            [
                T.aiffChunk("SSND", T.ssndBody(source.audio)), T.aiffChunk("ANNO", Array("odd".utf8)),
                T.aiffChunk("COMM", source.comm)
            ])
        let path = dir.file("late-comm.aiff")
        try WAVTest.write(file, to: path)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        #expect(s.dataOffset == 28)  // file offsets: FORM header 12, SSND header 16
        #expect(s.batches.first?.fileOffset == 28)
        #expect(s.bytes == source.audio)
        #expect(s.skippedChunks == ["ANNO"])
        #expect(
            s.events.prefix(4) == [
                .fileType(.aiff),
                .diagnostic(.chunkSkipped(type: "ANNO", byteOffset: Int64(28 + source.audio.count), size: 3)),
                .dataFormat(.linearPCM(sampleRate: 8000, channels: 2, bits: 16, float: false, bigEndian: true)),
                .channelLayout(.stereo)
            ])
        // ffprobe, reading the file (it can seek), is the judge.
        let probe = try T.ffprobe(path)
        #expect(T.int(probe["sample_rate"]) == 8000)
        #expect(T.int(probe["channels"]) == 2)
        #expect(T.int(probe["duration_ts"]).map(Int64.init) == s.frames)
        #expect(s.packetCount == Int64(source.audio.count / 4))
        #expect(try T.ffmpegPackets(path) == s.bytes)
        // Through a pipe ffprobe cannot read it ("file is not seekable"); the push parser could, drip-fed.
        let piped = try ExternalTool.run("ffprobe", ["-v", "error", "-show_streams", "-i", "pipe:0"], stdin: Data(file))
        #expect(piped.status != 0)
        #expect(piped.stderr.contains("not seekable"))
        // After a seek into the held audio, the COMM after it is met again and passed over quietly.
        try expectExactSeek(file, s, toPacket: 77)
        var parser = AudioFileStreamParser()
        parser.push(file)
        while let event = try parser.next(), event != .readyToProducePackets {}
        _ = try parser.seek(toPacket: 10)
        parser.push(file[(28 + 40)...])
        parser.finish()
        var after: [AudioFileStreamEvent] = []
        while let event = try parser.next() { after.append(event) }
        #expect(!after.contains { if case .dataFormat = $0 { true } else { false } })
    }

    @Test func commAfterSSNDOverTheHoldLimitIsRefusedNamingTheOffsets() throws {
        let size = UInt32(AIFFStreamParserTestsLimit.hold + 9)  // 8 bytes of header fields + 1 byte over
        let file = T.form(
            "AIFF",
            [
                Array("FVER".utf8) + T.be32(4) + [0, 0, 0, 0],
                Array("SSND".utf8) + T.be32(size) + T.ssndBody([1, 2, 3, 4])
            ])
        let error = try #require(T.verified(file).error)
        #expect(error.code == .unsupportedFormat)
        #expect(error.byteOffset == 24)
        #expect(error.message.contains("byte offsets 40 to \(40 + AIFFStreamParserTestsLimit.hold + 1)"))
    }

    @Test func ssndOffsetFieldMovesTheAudio() throws {
        let dir = try TemporaryDirectory()
        let source = try Self.ffmpegAIFF(dir)
        let file = T.form(
            "AIFF",
            [T.aiffChunk("COMM", source.comm), T.aiffChunk("SSND", T.ssndBody(source.audio, offset: 6, blockSize: 8))])
        let path = dir.file("offset.aiff")
        try WAVTest.write(file, to: path)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        let expectedOffset: Int64 = 12 + 8 + 18 + 16 + 6  // FORM, COMM, SSND headers and fields, offset
        #expect(s.dataOffset == expectedOffset)
        #expect(s.bytes == source.audio)
        #expect(try T.ffmpegPackets(path) == s.bytes)
    }

    @Test func twelveBitSamplesAreAlignedHigh() throws {
        let dir = try TemporaryDirectory()
        let audio = WAVTest.pattern(2 * 3 * 50).enumerated().map { $0.offset % 2 == 1 ? $0.element & 0xF0 : $0.element }
        let file = T.form(
            "AIFF",
            [T.aiffChunk("COMM", T.commBody(channels: 3, frames: 50, bits: 12)), T.aiffChunk("SSND", T.ssndBody(audio))]
        )
        let path = dir.file("12.aiff")
        try WAVTest.write(file, to: path)
        let s = try T.verified(file).summary
        let format = try #require(s.format)
        #expect(format.flags == [.isSignedInteger, .isBigEndian, .isAlignedHigh])
        #expect(format.bitsPerChannel == 12)
        #expect(format.bytesPerFrame == 6)
        #expect(s.bytes == audio)
        #expect(T.int(try T.ffprobe(path)["duration_ts"]) == 50)
    }

    static let aifcCodes:
        [(code: String, bits: Int, formatID: String, flags: AudioStreamBasicDescription.Flags, frameBytes: UInt32)] = [
            ("NONE", 24, "lpcm", [.isSignedInteger, .isPacked, .isBigEndian], 6),
            ("twos", 16, "lpcm", [.isSignedInteger, .isPacked, .isBigEndian], 4),
            ("sowt", 24, "lpcm", [.isSignedInteger, .isPacked], 6),
            ("in24", 0, "lpcm", [.isSignedInteger, .isPacked, .isBigEndian], 6),
            ("in32", 0, "lpcm", [.isSignedInteger, .isPacked, .isBigEndian], 8),
            ("42ni", 0, "lpcm", [.isSignedInteger, .isPacked], 6),
            ("23ni", 0, "lpcm", [.isSignedInteger, .isPacked], 8),
            ("raw ", 8, "lpcm", [.isPacked], 2),
            ("fl32", 0, "lpcm", [.isFloat, .isPacked, .isBigEndian], 8),
            ("FL64", 0, "lpcm", [.isFloat, .isPacked, .isBigEndian], 16),
            ("ULAW", 16, "ulaw", [], 2),
            ("ALAW", 16, "alaw", [], 2)
        ]

    @Test(arguments: aifcCodes) func aifcCompressionType(
        _ c: (code: String, bits: Int, formatID: String, flags: AudioStreamBasicDescription.Flags, frameBytes: UInt32)
    ) throws {
        let audio = WAVTest.pattern(Int(c.frameBytes) * 10)
        let file = T.form(
            "AIFC",
            [
                T.aiffChunk("COMM", T.commBody(frames: 10, bits: c.bits, compression: c.code)),
                T.aiffChunk("SSND", T.ssndBody(audio))
            ])
        let s = try T.verified(file).summary
        let format = try #require(s.format)
        #expect(format.formatIDString == c.formatID)
        #expect(format.flags == c.flags)
        #expect(format.bytesPerPacket == c.frameBytes)
        #expect(s.bytes == audio)
        #expect(s.packetCount == 10)
    }

    @Test func aifcWithoutCompressionTypeIsNONE() throws {
        let audio = WAVTest.pattern(40)
        let file = T.form("AIFC", [T.aiffChunk("COMM", T.commBody(frames: 10)), T.aiffChunk("SSND", T.ssndBody(audio))])
        let s = try T.verified(file).summary
        #expect(s.format == .linearPCM(sampleRate: 8000, channels: 2, bits: 16, float: false, bigEndian: true))
        #expect(
            s.diagnostics == [.note("The AIFF-C 'COMM' chunk has no compression type: read as 'NONE'", byteOffset: 12)])
    }

    @Test func ffmpegPipedAIFFRunsToTheEnd() throws {
        let dir = try TemporaryDirectory()
        let source = try Self.ffmpegAIFF(dir)
        let piped = [UInt8](
            try ExternalTool.check(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", dir.file("src.aiff"), "-c:a", "pcm_s16be", "-f", "aiff", "-"
                ]
            ).stdout)
        #expect(Array(piped[4..<8]) == [0, 0, 0, 0])  // FORM size 0, numSampleFrames 0, SSND size 0
        let (s, error) = try T.verified(piped)
        #expect(error == nil)
        #expect(s.bytes == source.audio)
        #expect(s.packetCount == nil)
        #expect(s.byteCount == nil)
        #expect(s.diagnostics.contains { $0.description.contains("runs to the end of the file") })
    }

    @Test func ima4FrameCountIsReadAsFramesWhenThePacketsCannotFit() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("ima.aifc")
        try T.ffmpegTone(path, seconds: 0.1, rate: 22_050, ["-c:a", "adpcm_ima_qt", "-f", "aiff"])
        var file = try WAVTest.bytes(path)
        let comm = try #require(T.chunks(file, caf: false).first { $0.type == "COMM" })
        let packets = Int(file[comm.offset + 10..<comm.offset + 14].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let frames = packets * 64 - 10
        file.replaceSubrange(comm.offset + 10..<comm.offset + 14, with: T.be32(UInt32(frames)))
        let s = try T.verified(file).summary
        #expect(s.packetCount == Int64(packets))
        #expect(s.packets == packets)
        #expect(
            s.tableInfo == AudioFilePacketTableInfo(primingFrames: 0, remainderFrames: 10, validFrames: Int64(frames)))
        #expect(s.diagnostics.contains { $0.byteOffset == Int64(comm.offset + 10) })
    }

    @Test func fewerFramesThanSSNDHoldsLeavesTrailingBytes() throws {
        let audio = WAVTest.pattern(4 * 12 + 3)
        let file = T.form(
            "AIFF",
            [
                T.aiffChunk("COMM", T.commBody(frames: 10)), T.aiffChunk("SSND", T.ssndBody(audio)),
                T.aiffChunk("NAME", [65])
            ])
        let s = try T.verified(file).summary
        #expect(s.bytes == Array(audio.prefix(40)))
        let expected: [AudioFileStreamDiagnostic] = [
            .trailingBytesSkipped(byteOffset: 94, count: 11),  // SSND audio at 12 + 26 + 16, 40 bytes of packets
            .chunkSkipped(type: "NAME", byteOffset: 106, size: 1)  // after 51 bytes of audio and a pad byte
        ]
        #expect(s.diagnostics == expected)
    }

    @Test func bytesAfterTheFormAreSkippedWithANote() throws {
        let audio = WAVTest.pattern(40)
        let file =
            T.form("AIFF", [T.aiffChunk("COMM", T.commBody(frames: 10)), T.aiffChunk("SSND", T.ssndBody(audio))])
            + Array("TAG junk".utf8)
        let s = try T.verified(file).summary
        #expect(s.bytes == audio)
        #expect(
            s.diagnostics == [
                .note("Skipped the bytes after the end of the FORM chunk", byteOffset: Int64(file.count - 8))
            ])
    }
}

/// The limits the tests build files around.
enum AIFFStreamParserTestsLimit {
    static let hold = 64 << 20
}
