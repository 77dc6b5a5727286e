import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// WAVReader on chunk layouts built by hand: metadata chunks, odd sizes with pad bytes, unusual order,
/// extensible headers, open data sizes.
@Suite(.timeLimit(.minutes(2))) struct WAVReaderChunkTests {
    /// The `fmt ` body and data of a real file that sox wrote, to rebuild in other layouts.
    static func soxParts(in dir: TemporaryDirectory) throws -> (fmt: [UInt8], data: [UInt8], path: String) {
        let path = dir.file("base.wav")
        try WAVTest.sox(["-n", "-b", "16", "-c", "2", "-r", "44100", path, "synth", "0.1", "sine", "440"])
        let reader = try WAVReader(path: path)
        let data = try WAVTest.readAll(reader).bytes
        #expect(data.count == 4410 * 4)
        return (WAVTest.fmtBody(channels: 2, rate: 44_100, bits: 16), data, path)
    }

    @Test func skipsListAndOddSizedUnknownChunkWithPadByte() throws {
        let dir = try TemporaryDirectory()
        let (fmt, data, _) = try Self.soxParts(in: dir)
        let info = WAVTest.chunk("LIST", Array("INFOISFT".utf8) + WAVTest.le32(5) + Array("test\0".utf8))
        let odd = WAVTest.chunk("abcd", [1, 2, 3])  // 3 bytes + 1 pad byte
        #expect(odd.count == 12)
        let file = WAVTest.riff([WAVTest.chunk("fmt ", fmt), info, odd, WAVTest.dataChunk(data)])
        let path = dir.file("list.wav")
        try WAVTest.write(file, to: path)

        let reader = try WAVReader(bytes: file)
        #expect(reader.dataOffset == Int64(file.count - data.count))
        #expect(reader.frameCount == 4410)
        #expect(try WAVTest.readAll(reader).bytes == data)
        #expect(reader.diagnostics.isEmpty)
        // ffmpeg agrees on the layout of the file.
        #expect(try WAVTest.ffmpegRaw(path, "s16le") == data)
    }

    @Test func acceptsAnyChunkOrderBeforeData() throws {
        let dir = try TemporaryDirectory()
        let (fmt, data, _) = try Self.soxParts(in: dir)
        let chunks = [
            WAVTest.chunk("JUNK", [UInt8](repeating: 0, count: 27)),  // odd: padded
            WAVTest.chunk("LIST", Array("INFOICMT".utf8) + WAVTest.le32(3) + Array("hi\0".utf8)),
            WAVTest.chunk("fact", WAVTest.le32(4410)),
            WAVTest.chunk("bext", [UInt8](repeating: 0x20, count: 602)),
            WAVTest.chunk("fmt ", fmt),
            WAVTest.chunk("PEAK", WAVTest.le32(1) + WAVTest.le32(0) + [UInt8](repeating: 0, count: 16)),
            WAVTest.chunk("cue ", WAVTest.le32(0)),
            WAVTest.dataChunk(data)
        ]
        let file = WAVTest.riff(chunks)
        let path = dir.file("order.wav")
        try WAVTest.write(file, to: path)
        let reader = try WAVReader(path: path, framesPerSample: 1000)
        #expect(reader.format == .pcm(.s16, sampleRate: 44_100, channelLayout: .stereo))
        #expect(reader.frameCount == 4410)
        #expect(try WAVTest.readAll(reader).bytes == data)
        #expect(try WAVTest.ffmpegRaw(path, "s16le") == data)
    }

    @Test func stopsAtTheDeclaredDataSizeBeforeTrailingChunks() throws {
        let (fmt, data) = (WAVTest.fmtBody(channels: 1, rate: 8_000, bits: 8), WAVTest.pattern(1001))
        // 1001 bytes of u8 mono: odd, so a pad byte follows, then a LIST chunk the reader must not read as audio.
        let file = WAVTest.riff([
            WAVTest.chunk("fmt ", fmt), WAVTest.chunk("data", data),
            WAVTest.chunk("LIST", Array("INFOISFT".utf8) + WAVTest.le32(2) + Array("x\0".utf8))
        ])
        let reader = try WAVReader(bytes: file)
        #expect(reader.format.pcm == PCMFormat(.u8))
        #expect(reader.frameCount == 1001)
        #expect(try WAVTest.readAll(reader).bytes == data)
        #expect(reader.diagnostics.isEmpty)
    }

    @Test func extensibleMaskBecomesTheLayout() throws {
        let data = WAVTest.pattern(6 * 2 * 100)
        let file = WAVTest.riff([
            WAVTest.chunk("fmt ", WAVTest.extensibleBody(channels: 6, bits: 16, mask: 0x60F)), WAVTest.dataChunk(data)
        ])
        let reader = try WAVReader(bytes: file)
        #expect(reader.format.channelLayout == .surround51Side)
        #expect(reader.formatChunk.channelMask == 0x60F)
        #expect(reader.formatChunk.isExtensible)
        #expect(reader.formatChunk.subFormatTag == 1)
        #expect(reader.frameCount == 100)
        #expect(reader.diagnostics.isEmpty)
    }

    @Test func mismatchedOrZeroMaskFallsBackToTheDefaultLayout() throws {
        let data = WAVTest.pattern(2 * 3 * 10)
        let wrong = try WAVReader(
            bytes: WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.extensibleBody(channels: 2, bits: 24, mask: 0x7)), WAVTest.dataChunk(data)
            ]))
        #expect(wrong.format.channelLayout == .stereo)
        #expect(wrong.diagnostics.map(\.code) == [.channelMaskIgnored])
        #expect(wrong.diagnostics.first?.byteOffset == 40)  // the mask field: 12 + 28
        #expect(wrong.diagnostics.first?.message.contains("3 speakers") == true)

        let zero = try WAVReader(
            bytes: WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.extensibleBody(channels: 2, bits: 24, mask: 0)), WAVTest.dataChunk(data)
            ]))
        #expect(zero.format.channelLayout == .stereo)
        #expect(zero.diagnostics.isEmpty)

        let five = try WAVReader(
            bytes: WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.fmtBody(channels: 5, bits: 16)), WAVTest.dataChunk(WAVTest.pattern(50))
            ]))
        #expect(five.format.channelLayout == .unspecified(5))
        #expect(five.frameCount == 5)
    }

    @Test func extensibleFloatAndValidBits() throws {
        let float = try WAVReader(
            bytes: WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.extensibleBody(subFormat: 3, channels: 1, bits: 64, mask: 0x4)),
                WAVTest.dataChunk(WAVTest.pattern(80))
            ]))
        #expect(float.format == .pcm(PCMFormat(.f64), sampleRate: 48_000, channelLayout: .mono))
        #expect(float.frameCount == 10)

        // 20 valid bits in 24-bit containers: delivered as s24, the valid bits reported.
        let twenty = try WAVReader(
            bytes: WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.extensibleBody(channels: 2, bits: 24, validBits: 20, mask: 0x3)),
                WAVTest.dataChunk(WAVTest.pattern(60))
            ]))
        #expect(twenty.format.pcm == PCMFormat(.s24))
        #expect(twenty.formatChunk.validBitsPerSample == 20)
        #expect(twenty.frameCount == 10)

        // 12-bit plain PCM is stored in 16-bit containers (as FFmpeg reads it).
        let twelve = try WAVReader(
            bytes: WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.fmtBody(channels: 1, bits: 12)), WAVTest.dataChunk(WAVTest.pattern(40))
            ]))
        #expect(twelve.format.pcm == PCMFormat(.s16))
        #expect(twelve.frameCount == 20)
    }

    @Test func duplicateFormatChunkAndExcessValidBitsAreReported() throws {
        let data = WAVTest.dataChunk(WAVTest.pattern(60))
        let duplicate = try WAVReader(
            bytes: WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.fmtBody(channels: 2, bits: 24)),
                WAVTest.chunk("fmt ", WAVTest.fmtBody(channels: 1, bits: 16)), data
            ]))
        #expect(duplicate.format.pcm == PCMFormat(.s24))
        #expect(duplicate.format.channelCount == 2)
        #expect(duplicate.frameCount == 10)
        #expect(duplicate.diagnostics.map(\.code) == [.duplicateFormatChunk])
        #expect(duplicate.diagnostics.map(\.byteOffset) == [36])

        let excess = try WAVReader(
            bytes: WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.extensibleBody(channels: 2, bits: 24, validBits: 28, mask: 3)), data
            ]))
        #expect(excess.format.pcm == PCMFormat(.s24))
        #expect(excess.formatChunk.validBitsPerSample == 28)
        #expect(excess.diagnostics.map(\.code) == [.validBitsExceedContainer])
        #expect(excess.diagnostics.map(\.byteOffset) == [38])
        #expect(try WAVTest.readAll(excess).bytes.count == 60)
    }

    @Test func openDataSizeReadsToTheEndOfTheFile() throws {
        let (fmt, data) = (WAVTest.fmtBody(), WAVTest.pattern(4 * 777 + 3))
        for declared: UInt32 in [0xFFFF_FFFF, 0] {
            let file = WAVTest.riff(
                [WAVTest.chunk("fmt ", fmt), WAVTest.dataChunk(data, declaredSize: declared)], riffSize: 0xFFFF_FFFF)
            let reader = try WAVReader(bytes: file, framesPerSample: 100)
            #expect(reader.frameCount == 777)
            #expect(try WAVTest.readAll(reader).bytes == Array(data.prefix(4 * 777)))
            #expect(reader.diagnostics.map(\.code) == [.openDataSize, .partialFrameDropped])
            let offsets: [Int64] = [36, 44 + 4 * 777]
            #expect(reader.diagnostics.map(\.byteOffset) == offsets)
            #expect(reader.diagnostics.last?.message.contains("3 bytes into a 4-byte frame") == true)
        }
        // Zero bytes declared and none there: an empty stream, nothing to report.
        let empty = try WAVReader(bytes: WAVTest.riff([WAVTest.chunk("fmt ", fmt), WAVTest.dataChunk([])]))
        #expect(empty.frameCount == 0)
        #expect(try empty.next() == nil)
        #expect(try empty.next() == nil)
        #expect(empty.diagnostics.isEmpty)
    }

    /// What ffmpeg writes to a pipe (sizes 0xFFFFFFFF and a LIST chunk) reads like the seekable file.
    @Test func readsFFmpegPipeOutput() throws {
        let dir = try TemporaryDirectory()
        let args = [
            "-nostdin", "-v", "error", "-f", "lavfi", "-i", "anoisesrc=r=44100:a=0.5:seed=1",
            "-af", "atrim=end_sample=3000", "-ac", "2", "-c:a", "pcm_s24le"
        ]
        let piped = [UInt8](try ExternalTool.check("ffmpeg", args + ["-f", "wav", "-"]).stdout)
        let path = dir.file("seekable.wav")
        try WAVTest.ffmpeg(Array(args.dropFirst(3)) + [path])
        let reader = try WAVReader(bytes: piped)
        #expect(reader.frameCount == 3000)
        #expect(reader.diagnostics.map(\.code) == [.openDataSize])
        #expect(try WAVTest.readAll(reader).bytes == (try WAVTest.ffmpegRaw(path, "s24le")))
    }
}

/// How WAVReader splits the data into samples.
@Suite(.timeLimit(.minutes(2))) struct WAVReaderSampleTests {
    @Test func samplesHaveExactCountsAndTiming() throws {
        let (file, data) = WAVTest.simpleFile(frames: 10_000)
        let reader = try WAVReader(bytes: file, framesPerSample: 4096)
        #expect(reader.framesPerSample == 4096)
        let (samples, bytes) = try WAVTest.readAll(reader)
        #expect(samples.map(\.frameCount) == [4096, 4096, 1808])
        #expect(samples.map(\.data.count) == [4096 * 4, 4096 * 4, 1808 * 4])
        #expect(
            samples.map(\.timing.presentationTime) == [0, 4096, 8192].map { MediaTime(value: $0, timescale: 48_000) })
        #expect(samples.map { $0.timing.presentationTime.timescale } == [48_000, 48_000, 48_000])
        #expect(samples.map(\.timing.duration) == [4096, 4096, 1808].map { MediaTime(value: $0, timescale: 48_000) })
        #expect(samples.allSatisfy { $0.format == .audio(.pcm(.s16, sampleRate: 48_000, channelLayout: .stereo)) })
        #expect(bytes == data)
        #expect(reader.framesRead == 10_000)
        #expect(try reader.next() == nil)
    }

    @Test(arguments: [1, 7, 1000, 4095, 4096, 4097, 1 << 20])
    func splittingDoesNotChangeTheBytes(_ framesPerSample: Int) throws {
        let (file, data) = WAVTest.simpleFile(frames: 4999)
        let reader = try WAVReader(bytes: file, framesPerSample: framesPerSample)
        let (samples, bytes) = try WAVTest.readAll(reader)
        #expect(bytes == data)
        #expect(samples.count == (4999 + framesPerSample - 1) / framesPerSample)
        #expect(samples.last?.frameCount == (4999 % framesPerSample == 0 ? framesPerSample : 4999 % framesPerSample))
        #expect(samples.dropLast().allSatisfy { $0.frameCount == framesPerSample })
    }

    @Test func framesPerSampleBelowOneIsRefused() throws {
        let (file, _) = WAVTest.simpleFile(frames: 10)
        for value in [0, -1] {
            let error = try #require(throws: MediaError.self) { try WAVReader(bytes: file, framesPerSample: value) }
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("\(value)"))
        }
    }

    @Test func missingFileIsAnIOError() throws {
        let dir = try TemporaryDirectory()
        let error = try #require(throws: MediaError.self) { try WAVReader(path: dir.file("absent.wav")) }
        #expect(error.code == .io)
    }
}
