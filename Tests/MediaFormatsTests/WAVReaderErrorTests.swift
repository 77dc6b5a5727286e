import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// WAVReader on damaged and unsupported input: each error's code and byte offset, the frames delivered
/// from a file cut short, and no crash or hang on any prefix or corruption of a file.
@Suite(.timeLimit(.minutes(2))) struct WAVReaderErrorTests {
    /// A 44-byte-header s16 stereo 48 kHz file of 2500 frames written by ffmpeg.
    static func ffmpegFile(in dir: TemporaryDirectory) throws -> [UInt8] {
        let path = dir.file("base.wav")
        try WAVTest.ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=r=48000:a=0.5:seed=5", "-af", "atrim=end_sample=2500", "-ac", "2",
            "-c:a", "pcm_s16le", "-fflags", "+bitexact", path
        ])
        let file = try WAVTest.bytes(path)
        #expect(file.count == 44 + 2500 * 4)
        return file
    }

    static func readError(_ file: [UInt8]) throws -> MediaError {
        try #require(throws: MediaError.self) { _ = try WAVReader(bytes: file) }
    }

    static func patched(_ file: [UInt8], at offset: Int, _ bytes: [UInt8]) -> [UInt8] {
        var copy = file
        copy.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        return copy
    }

    @Test func emptyFileIsTruncated() throws {
        let error = try Self.readError([])
        #expect(error.code == .truncated)
        #expect(error.byteOffset == 0)
        #expect(error.message == "WAV RIFF header needs 12 bytes but only 0 remain")
    }

    @Test(arguments: [(3, 0, 3), (10, 0, 10), (20, 12, 0), (30, 12, 10), (40, 36, 4)])
    func truncatedHeader(cut: Int, offset: Int64, available: Int) throws {
        let dir = try TemporaryDirectory()
        let file = try Self.ffmpegFile(in: dir)
        let error = try Self.readError(Array(file.prefix(cut)))
        #expect(error.code == .truncated)
        #expect(error.byteOffset == offset)
        #expect(error.message.contains("only \(available) remain"))
    }

    @Test func truncatedMidDataDeliversExactlyTheCompleteFrames() throws {
        let dir = try TemporaryDirectory()
        let file = try Self.ffmpegFile(in: dir)
        let cut = Array(file.prefix(44 + 1001))  // 250 frames and 1 byte of the next
        let path = dir.file("cut.wav")
        try WAVTest.write(cut, to: path)

        let reader = try WAVReader(path: path, framesPerSample: 100)
        #expect(reader.frameCount == 250)
        let (samples, bytes) = try WAVTest.readAll(reader)
        #expect(samples.map(\.frameCount) == [100, 100, 50])
        #expect(bytes == Array(file[44..<1044]))
        #expect(reader.diagnostics.map(\.code) == [.dataBeyondEndOfFile, .partialFrameDropped])
        #expect(reader.diagnostics.map(\.byteOffset) == [36, 1044])
        #expect(reader.diagnostics[0].message.contains("declares 10000 bytes but the file holds 1001"))
        // ffmpeg delivers the same 250 frames.
        #expect(try WAVTest.ffmpegRaw(path, "s16le") == bytes)
    }

    @Test func truncatedMidDataOfAWideFrame() throws {
        // 6 channels of s24: 18-byte frames; cut 17 bytes into frame 333.
        let data = WAVTest.pattern(18 * 400)
        let file = WAVTest.riff([
            WAVTest.chunk("fmt ", WAVTest.extensibleBody(channels: 6, bits: 24, mask: 0x3F)), WAVTest.dataChunk(data)
        ])
        let dataOffset = file.count - data.count
        let reader = try WAVReader(bytes: Array(file.prefix(dataOffset + 18 * 333 + 17)))
        #expect(reader.frameCount == 333)
        #expect(try WAVTest.readAll(reader).bytes == Array(data.prefix(18 * 333)))
        #expect(reader.diagnostics.last?.code == .partialFrameDropped)
        #expect(reader.diagnostics.last?.byteOffset == Int64(dataOffset + 18 * 333))
    }

    @Test func dataSizeLargerThanTheFileReadsWhatIsThere() throws {
        let dir = try TemporaryDirectory()
        let file = Self.patched(try Self.ffmpegFile(in: dir), at: 40, WAVTest.le32(10_000 + 4000))
        let reader = try WAVReader(bytes: file)
        #expect(reader.frameCount == 2500)
        #expect(try WAVTest.readAll(reader).bytes == Array(file[44...]))
        #expect(reader.diagnostics.map(\.code) == [.dataBeyondEndOfFile])
        #expect(reader.diagnostics.first?.byteOffset == 36)
        #expect(
            reader.diagnostics.first?.description
                == "WAV 'data' chunk declares 14000 bytes but the file holds 10000 after its header; reading those at byte offset 36."
        )
    }

    @Test(
        arguments: [
            (22, [0, 0], MediaError.Code.invalidData, "0 channels"),
            (24, [0, 0, 0, 0], .invalidData, "sample rate of 0 Hz"),
            (34, [0, 0], .invalidData, "0 bits per sample"),
            (32, [5, 0], .invalidData, "block align of 5 bytes does not match 2 channels × 2 bytes = 4"),
            (20, [0x55, 0], .unsupportedFormat, "format tag 0x0055 (MPEG Layer 3) is not supported"),
            (20, [0x02, 0x01], .unsupportedFormat, "format tag 0x0102 is not supported"),
            (34, [40, 0], .unsupportedFormat, "40-bit integer PCM")
        ] as [(Int, [UInt8], MediaError.Code, String)])
    func badFormatField(offset: Int, bytes: [UInt8], code: MediaError.Code, message: String) throws {
        let dir = try TemporaryDirectory()
        var file = Self.patched(try Self.ffmpegFile(in: dir), at: offset, bytes)
        if message.contains("40-bit") { file = Self.patched(file, at: 32, [10, 0]) }  // block align 2 × 5 bytes
        let error = try Self.readError(file)
        #expect(error.code == code)
        #expect(error.byteOffset == Int64(offset))
        #expect(error.message.contains(message))
    }

    @Test(arguments: [
        ("pcm_mulaw", "0x0007 (µ-law)"), ("adpcm_ima_wav", "0x0011 (IMA ADPCM)"),
        ("libmp3lame", "0x0055 (MPEG Layer 3)")
    ])
    func nonPCMFilesAreUnsupported(codec: String, named: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("x.wav")
        try WAVTest.ffmpeg(["-f", "lavfi", "-i", "sine=d=0.1", "-c:a", codec, "-f", "wav", path])
        let error = try #require(throws: MediaError.self) { _ = try WAVReader(path: path) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.byteOffset == 20)
        #expect(error.message.contains(named))
    }

    @Test func unsupportedFloatDepthAndSubFormats() throws {
        let data = WAVTest.dataChunk(WAVTest.pattern(64))
        let float16 = try Self.readError(WAVTest.riff([WAVTest.chunk("fmt ", WAVTest.fmtBody(tag: 3, bits: 16)), data]))
        #expect(float16.code == .unsupportedFormat)
        #expect(float16.byteOffset == 34)
        #expect(float16.message.contains("16-bit IEEE float"))

        let mp3 = try Self.readError(
            WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.extensibleBody(subFormat: 0x55, channels: 2, bits: 16, mask: 3)), data
            ]))
        #expect(mp3.code == .unsupportedFormat)
        #expect(mp3.byteOffset == 44)
        #expect(mp3.message.contains("sub-format 0x0055"))

        var ambisonic = WAVTest.extensibleBody(channels: 4, bits: 16, mask: 0)
        ambisonic.replaceSubrange(
            24..<40, with: [0x01, 0, 0, 0, 0x21, 0x07, 0xD3, 0x11, 0x86, 0x44, 0xC8, 0xC1, 0xCA, 0, 0, 0])
        let guid = try Self.readError(WAVTest.riff([WAVTest.chunk("fmt ", ambisonic), data]))
        #expect(guid.code == .unsupportedFormat)
        #expect(guid.byteOffset == 44)
        #expect(guid.message.contains("{00000001-0721-11D3-8644-C8C1CA000000}"))
    }

    @Test func shortFormatChunks() throws {
        let data = WAVTest.dataChunk(WAVTest.pattern(64))
        let short = try Self.readError(WAVTest.riff([WAVTest.chunk("fmt ", Array(WAVTest.fmtBody().prefix(14))), data]))
        #expect(short.code == .invalidData)
        #expect(short.byteOffset == 12)
        #expect(short.message.contains("14 bytes"))

        let shortExtensible = try Self.readError(
            WAVTest.riff([
                WAVTest.chunk("fmt ", Array(WAVTest.extensibleBody(channels: 2, bits: 16, mask: 3).prefix(18))), data
            ]))
        #expect(shortExtensible.code == .invalidData)
        #expect(shortExtensible.byteOffset == 12)
        #expect(shortExtensible.message.contains("18 bytes"))
    }

    @Test func notRIFFOrNotWAVE() throws {
        let dir = try TemporaryDirectory()
        let file = try Self.ffmpegFile(in: dir)
        let ogg = try Self.readError(Array("OggS".utf8) + Array(file.dropFirst(4)))
        #expect(ogg.code == .invalidData)
        #expect(ogg.byteOffset == 0)
        #expect(ogg.message == "expected 'RIFF' at the start of a WAV file but found 'OggS'")

        let binary = try Self.readError([0xFF, 0xFB, 0x90, 0x00] + Array(file.dropFirst(4)))
        #expect(binary.byteOffset == 0)
        #expect(binary.message.hasSuffix("found 0xFF 0xFB 0x90 0x00"))

        let avi = try Self.readError(Self.patched(file, at: 8, Array("AVI ".utf8)))
        #expect(avi.code == .invalidData)
        #expect(avi.byteOffset == 8)
        #expect(avi.message == "expected form type 'WAVE' after 'RIFF' but found 'AVI '")

        let garbage = try Self.readError(Self.patched(file, at: 8, [0, 1, 2, 3]))
        #expect(garbage.code == .invalidData)
        #expect(garbage.byteOffset == 8)
    }

    @Test(arguments: [0, 1])
    func hugeChunkSizeOnANonDataChunk(position: Int) throws {
        let junk = WAVTest.le32(0x4B4E_554A) + WAVTest.le32(0xFFFF_FFF0) + [UInt8](repeating: 0, count: 40)  // "JUNK"
        var chunks = [WAVTest.chunk("fmt ", WAVTest.fmtBody()), WAVTest.dataChunk(WAVTest.pattern(400))]
        chunks.insert(junk, at: position)
        let error = try Self.readError(WAVTest.riff(chunks))
        #expect(error.code == .truncated)
        #expect(error.byteOffset == (position == 0 ? 12 : 36))
        #expect(error.message.hasPrefix("WAV 'JUNK' chunk needs 4294967280 bytes but only"))
    }

    @Test func missingFormatOrDataChunk() throws {
        let noFormat = try Self.readError(
            WAVTest.riff([
                WAVTest.chunk("LIST", Array("INFO".utf8)), WAVTest.dataChunk(WAVTest.pattern(40)),
                WAVTest.chunk("fmt ", WAVTest.fmtBody())
            ]))
        #expect(noFormat.code == .invalidData)
        #expect(noFormat.byteOffset == 24)
        #expect(noFormat.message.contains("before any 'fmt '"))

        let noData = try Self.readError(
            WAVTest.riff([WAVTest.chunk("fmt ", WAVTest.fmtBody()), WAVTest.chunk("LIST", [])]))
        #expect(noData.code == .invalidData)
        #expect(noData.byteOffset == 44)
        #expect(noData.message.contains("without a 'data' chunk"))
    }

    /// Every prefix of a file either throws a header error or reads exactly the complete frames it holds.
    @Test func everyPrefixThrowsOrReadsTheCompleteFrames() throws {
        let data = WAVTest.pattern(6 * 50)  // s24 stereo: 6-byte frames
        let file = WAVTest.riff([
            WAVTest.chunk("LIST", Array("INFOISFT".utf8) + WAVTest.le32(3) + Array("ab\0".utf8)),
            WAVTest.chunk("fmt ", WAVTest.fmtBody(bits: 24)), WAVTest.dataChunk(data)
        ])
        let dataOffset = file.count - data.count
        for length in 0...file.count {
            let prefix = Array(file.prefix(length))
            if length < dataOffset {
                let error = try #require(throws: MediaError.self) { _ = try WAVReader(bytes: prefix) }
                #expect(error.code == .truncated, "prefix of \(length) bytes")
            } else {
                let reader = try WAVReader(bytes: prefix, framesPerSample: 7)
                let frames = (length - dataOffset) / 6
                #expect(reader.frameCount == Int64(frames))
                #expect(
                    try WAVTest.readAll(reader).bytes == Array(data.prefix(frames * 6)), "prefix of \(length) bytes")
            }
        }
    }

    /// Corrupting any header byte never crashes or hangs: the reader throws a MediaError or delivers at
    /// most the bytes the file holds, in whole frames.
    @Test func corruptedHeadersNeverCrash() throws {
        let data = WAVTest.pattern(4 * 64)
        let file = WAVTest.riff([
            WAVTest.chunk("fmt ", WAVTest.extensibleBody(channels: 2, bits: 16, mask: 3)), WAVTest.dataChunk(data)
        ])
        var random = SystemRandomNumberGenerator()
        var cases: [[UInt8]] = []
        for offset in 0..<(file.count - data.count) {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF] {
                cases.append(Self.patched(file, at: offset, [value]))
            }
        }
        for _ in 0..<300 {
            var copy = file
            for _ in 0..<3 { copy[Int.random(in: 0..<72, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            cases.append(copy)
        }
        var thrown = 0
        for bytes in cases {
            do {
                let reader = try WAVReader(bytes: bytes, framesPerSample: 16)
                let read = try WAVTest.readAll(reader).bytes
                #expect(read.count <= bytes.count)
                #expect(read.count % reader.formatChunk.blockAlign == 0)
                #expect(Int64(read.count / reader.formatChunk.blockAlign) == reader.frameCount)
            } catch is MediaError {
                thrown += 1
            }
        }
        #expect(thrown > 0)
        #expect(thrown < cases.count)
    }

    /// Through a pipe the size is unknown until the end: the declared count is reported up front and a
    /// short stream is recorded when it ends.
    @Test func pipeEndingEarly() throws {
        let dir = try TemporaryDirectory()
        let file = try Self.ffmpegFile(in: dir)
        let fifo = dir.file("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(Data(file.prefix(44 + 1001)))
                try? handle.close()
            }
        }
        writer.start()
        let reader = try WAVReader(path: fifo, framesPerSample: 64)
        #expect(reader.frameCount == 2500)
        let (samples, bytes) = try WAVTest.readAll(reader)
        #expect(bytes == Array(file[44..<1044]))
        #expect(samples.last?.frameCount == 250 % 64)
        #expect(reader.framesRead == 250)
        #expect(reader.diagnostics.map(\.code) == [.dataBeyondEndOfFile, .partialFrameDropped])
        #expect(reader.diagnostics.map(\.byteOffset) == [36, 1044])
    }

    @Test func pipeWithOpenSize() throws {
        let dir = try TemporaryDirectory()
        let file = Self.patched(try Self.ffmpegFile(in: dir), at: 40, WAVTest.le32(0xFFFF_FFFF))
        let fifo = dir.file("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(Data(file))
                try? handle.close()
            }
        }
        writer.start()
        let reader = try WAVReader(path: fifo)
        #expect(reader.frameCount == -1)
        #expect(try WAVTest.readAll(reader).bytes == Array(file[44...]))
        #expect(reader.framesRead == 2500)
        #expect(reader.diagnostics.map(\.code) == [.openDataSize])
    }
}
