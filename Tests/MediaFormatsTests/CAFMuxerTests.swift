import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// CAFMuxer's files, judged by sndfile-info, ffprobe, ffmpeg and against Apple's layout.
@Suite(.timeLimit(.minutes(2))) struct CAFMuxerTests {
    /// `frames` interleaved PCM frames of `type` read from an ffmpeg noise WAV (bit-exact input).
    static func pcmInput(_ type: PCMSampleType, channels: Int, frames: Int, in dir: TemporaryDirectory) throws
        -> [MediaSample]
    {
        let wav = dir.file("in-\(type).wav")
        let codec =
            [
                "u8": "pcm_u8", "s16": "pcm_s16le", "s24": "pcm_s24le", "s32": "pcm_s32le", "f32": "pcm_f32le",
                "f64": "pcm_f64le"
            ][type.rawValue] ?? ""
        try WAVTest.ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=r=44100:a=0.5:seed=4", "-af", "atrim=end_sample=\(frames)", "-ac",
            "\(channels)",
            "-c:a", codec, wav
        ])
        return try WAVTest.readAll(try WAVReader(path: wav, framesPerSample: 1000)).samples
    }

    static func mux(_ samples: [MediaSample], to output: any MediaOutput, info: [(String, String)] = []) throws {
        let muxer = CAFMuxer(output: output, info: info)
        for sample in samples { try muxer.write(sample) }
        try muxer.finish()
    }

    @Test(arguments: [
        // libsndfile's format: SF_ENDIAN_LITTLE | SF_FORMAT_CAF | PCM_S8, PCM_16, PCM_24, PCM_32, FLOAT, DOUBLE.
        (PCMSampleType.s16, 2, "0x10180002"), (.s24, 2, "0x10180003"), (.s32, 1, "0x10180004"),
        (.f32, 2, "0x10180006"), (.f64, 1, "0x10180007"), (.u8, 2, "0x10180001"), (.s16, 6, "0x10180002")
    ])
    func pcmIsReadBySndfileAndFFmpeg(type: PCMSampleType, channels: Int, sndfileFormat: String) throws {
        let dir = try TemporaryDirectory()
        let frames = 4321
        let input = try Self.pcmInput(type, channels: channels, frames: frames, in: dir)
        let path = dir.file("out.caf")
        try Self.mux(input, to: try FileOutput(path: path), info: [("title", "noise")])
        let sndfile = try ExternalTool.check("sndfile-info", [path]).output
        #expect(sndfile.contains("Frames      : \(frames)\n"))
        #expect(sndfile.contains("Channels    : \(channels)\n"))
        #expect(sndfile.contains("Sample Rate : 44100\n"))
        #expect(sndfile.contains("Format      : \(sndfileFormat)\n"))
        #expect(try WAVTest.ffprobeFrames(path) == Int64(frames))
        let expected = input.flatMap(\.data)
        #expect(try WAVTest.ffmpegRaw(path, type == .u8 ? "u8" : WAVTest.rawFormat(type)) == expected)
        let reader = try CAFReader(path: path)
        #expect(reader.format == input.first?.format.audio)
        #expect(reader.info.first?.0 == "title")
        #expect(reader.info.first?.1 == "noise")
        #expect(reader.chunks.contains { $0.type == "chan" } == (channels > 2))
        #expect(try CAFTest.readAll(reader).flatMap(\.data) == expected)
    }

    @Test func pcmToNonSeekableOutputKeepsDataSizeOpen() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.pcmInput(.s16, channels: 2, frames: 3000, in: dir)
        let memory = MemoryOutput()
        try Self.mux(input, to: NonSeekableOutput(memory))
        let file = memory.bytes
        // desc (8 + 12 + 32), then data whose size is -1.
        #expect(Array(file[52..<56]) == Array("data".utf8))
        #expect(CAFTest.chunkSize(file, at: 52) == -1)
        #expect(file.count == 52 + 16 + 3000 * 4)
        let reader = try CAFReader(bytes: file)
        #expect(try CAFTest.readAll(reader).flatMap(\.data) == input.flatMap(\.data))
        let path = dir.file("stream.caf")
        try WAVTest.write(file, to: path)
        #expect(try WAVTest.ffmpegRaw(path, "s16le") == input.flatMap(\.data))
    }

    @Test func killedPCMRecordingIsReadUpToTheLastCompleteFrame() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.pcmInput(.s16, channels: 2, frames: 3000, in: dir)
        let memory = MemoryOutput()
        let muxer = CAFMuxer(output: memory)
        for sample in input { try muxer.write(sample) }
        // No finish(): what a killed recorder leaves, cut inside a frame.
        let file = Array(memory.bytes.dropLast(3))
        let samples = try CAFTest.readAll(try CAFReader(bytes: file))
        #expect(samples.reduce(0) { $0 + $1.frameCount } == 2999)
        #expect(samples.flatMap(\.data) == Array(input.flatMap(\.data).prefix(2999 * 4)))
        let path = dir.file("killed.caf")
        try WAVTest.write(file, to: path)
        #expect(try WAVTest.ffmpegRaw(path, "s16le").count == 2999 * 4)
    }

    /// FFmpeg-encoded AAC packets with hand-set trims: 1024 priming on the first, `remainder` on the last.
    static func aacPackets(in dir: TemporaryDirectory, remainder: Int) throws -> [MediaSample] {
        let reader = ADTSReader(bytes: try ffmpegADTS(in: dir, sampleRate: 44_100, channels: 2))
        var packets: [MediaSample] = []
        while let packet = try reader.next() { packets.append(packet) }
        packets[0].trimAtStart = 1024
        packets[packets.count - 1].trimAtEnd = remainder
        return packets
    }

    @Test func aacIsReadByFFmpegAndUs() throws {
        let dir = try TemporaryDirectory()
        let packets = try Self.aacPackets(in: dir, remainder: 300)
        let path = dir.file("aac.caf")
        try Self.mux(packets, to: try FileOutput(path: path))
        let stream = try ExternalTool.probeFirstStream(path)
        #expect(stream["codec_name"] as? String == "aac")
        #expect(stream["sample_rate"] as? String == "44100")
        #expect(stream["channels"] as? Int == 2)
        #expect(stream["nb_read_packets"] as? String == String(packets.count))
        // ffmpeg -xerror decodes every packet into one frame.
        let counted = try ExternalTool.ffprobeJSON(path, ["-count_frames", "-show_streams"])
        let counts = (counted["streams"] as? [[String: Any]])?.first?["nb_read_frames"] as? String
        #expect(counts == String(packets.count))
        let decoded = try ExternalTool.decode(path, format: "s16le")
        #expect(decoded.count / 4 >= packets.count * 1024 - 1024 - 300)
        #expect(decoded.count / 4 <= packets.count * 1024)

        let reader = try CAFReader(path: path)
        #expect(reader.chunks.map(\.type) == ["desc", "kuki", "data", "pakt"])
        #expect(reader.format.magicCookie == Array(packets[0].format.audio?.magicCookie.prefix(2) ?? []))
        let table = try #require(reader.packetTable)
        #expect(table.numberPackets == Int64(packets.count))
        #expect(table.primingFrames == 1024)
        #expect(table.remainderFrames == 300)
        #expect(table.numberValidFrames == Int64(packets.count * 1024 - 1024 - 300))
        let back = try CAFTest.readAll(reader)
        #expect(back.map(\.data) == packets.map(\.data))
        #expect(back.map(\.trimAtStart) == packets.map(\.trimAtStart))
        #expect(back.map(\.trimAtEnd) == packets.map(\.trimAtEnd))
    }

    @Test func aacCookieHasApplesShape() throws {
        let dir = try TemporaryDirectory()
        let packets = try Self.aacPackets(in: dir, remainder: 0)
        let output = MemoryOutput()
        try Self.mux(packets, to: output)
        let ours = try CAFReader(bytes: output.bytes).magicCookie
        let apple = try CAFReader(path: CAFTest.ringPath).magicCookie
        #expect(ours.count == 39)
        // Same tags and 80 80 80 LL lengths everywhere; only the ASC, buffer size and bitrates differ.
        let structure = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 26, 27, 28, 29, 30, 33, 34, 35, 36, 37, 38]
        #expect(structure.map { ours[$0] } == structure.map { apple[$0] })
        let cookieStart: [UInt8] = Array(packets[0].format.audio?.magicCookie.prefix(2) ?? [])
        #expect(Array(ours[31...32]) == cookieStart)
        let avg = ours[22..<26].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(avg > 64_000 && avg < 256_000)  // 128 kb/s requested from ffmpeg
    }

    @Test func aacToNonSeekableOutputIsRefused() throws {
        let dir = try TemporaryDirectory()
        let packets = try Self.aacPackets(in: dir, remainder: 0)
        let memory = MemoryOutput()
        let muxer = CheckedSink(CAFMuxer(output: NonSeekableOutput(memory)))
        let error = try #require(throws: MediaError.self) { try muxer.write(packets[0]) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("cannot seek"))
        #expect(memory.bytes.isEmpty)
        // The guard refuses what follows a refusal; the muxer is not called again.
        #expect((try #require(throws: MediaError.self) { try muxer.write(packets[0]) }).code == .stageFinished)
    }

    @Test func trimsBeyondThePacketAreRefused() throws {
        let dir = try TemporaryDirectory()
        var packets = try Self.aacPackets(in: dir, remainder: 0)
        packets[1].trimAtStart = Int.max
        let caf = CAFMuxer(output: MemoryOutput())
        let muxer = CheckedSink(caf)
        try muxer.write(packets[0])
        let error = try #require(throws: MediaError.self) { try muxer.write(packets[1]) }
        #expect(error.code == .invalidData)
        #expect(error.sampleIndex == 1)
        #expect(error.stage == "CAFMuxer")
        try muxer.finish()  // completes the file with the one packet written
        #expect(caf.packetsWritten == 1)
    }

    @Test func formatsCAFCannotTakeAreRefused() throws {
        let planar = AudioFormat.pcm(.f32Planar, sampleRate: 48_000, channels: 2)
        let other = AudioFormat(
            codec: .other(fourCC: CAFFile.fourCC("opus")), sampleRate: 48_000, channelLayout: .stereo,
            framesPerPacket: 960)
        for format in [planar, other] {
            let output = MemoryOutput()
            let muxer = CAFMuxer(output: output)
            let sample = MediaSample(
                format: .audio(format), planes: [[0, 0, 0, 0], [0, 0, 0, 0]], timing: .invalid, frameCount: 1)
            let error = try #require(throws: MediaError.self) { try muxer.write(sample) }
            #expect(error.code == .formatMismatch)
            #expect(output.bytes.isEmpty)
        }
        let muxer = CheckedSink(CAFMuxer(output: MemoryOutput()))
        let s16 = AudioFormat.pcm(.s16, sampleRate: 48_000, channels: 1)
        try muxer.write(MediaSample(format: .audio(s16), data: [0, 0], timing: .invalid, frameCount: 1))
        var changed = s16
        changed.sampleRate = 44_100
        let error = try #require(throws: MediaError.self) {
            try muxer.write(MediaSample(format: .audio(changed), data: [0, 0], timing: .invalid, frameCount: 1))
        }
        #expect(error.code == .formatMismatch)
        #expect(error.sampleIndex == 1)
    }

    @Test func callsAfterFinishThrowStageFinished() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.pcmInput(.s16, channels: 1, frames: 10, in: dir)
        let output = MemoryOutput()
        let muxer = CheckedSink(CAFMuxer(output: output))
        try muxer.write(input[0])
        try muxer.finish()
        let bytes = output.bytes
        let late = try #require(throws: MediaError.self) { try muxer.write(input[0]) }
        #expect(late.code == .stageFinished)
        #expect(late.stage == "CAFMuxer")
        #expect(late.sampleIndex == 1)
        #expect((try #require(throws: MediaError.self) { try muxer.finish() }).code == .stageFinished)
        #expect(output.bytes == bytes, "the file is not touched after finish")
    }

    @Test func packetTableVarintsRoundTrip() throws {
        let sizes = [0, 1, 127, 128, 16_383, 16_384, 1 << 40, Int.max]
        let table = CAFPacketTable(
            numberPackets: 8, numberValidFrames: 8192, primingFrames: 0, remainderFrames: 0, packetSizes: sizes)
        let bytes = table.bytes
        #expect(Array(bytes[24..<29]) == [0x00, 0x01, 0x7F, 0x81, 0x00])
        #expect(try CAFPacketTable(parsing: bytes, hasSizes: true, hasFrames: false) == table)
    }
}
