import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// CAFReader on CAF files written by FFmpeg (`-f caf`) and libsndfile (`sndfile-convert`), checked
/// against ffprobe and ffmpeg's decode.
@Suite(.timeLimit(.minutes(2))) struct CAFReaderInteropTests {
    static let frames = 5000

    /// A 5000-frame stereo sine with noise written by ffmpeg with `codec` into a CAF file.
    static func ffmpegCAF(_ codec: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("ffmpeg-\(codec).caf")
        try WAVTest.ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=r=44100:a=0.5:seed=3", "-af", "atrim=end_sample=\(frames)", "-ac", "2",
            "-c:a", codec, "-f", "caf", path
        ])
        return path
    }

    @Test(arguments: [
        ("pcm_s16be", PCMSampleType.s16), ("pcm_s16le", .s16), ("pcm_s24le", .s24), ("pcm_s24be", .s24),
        ("pcm_s32be", .s32), ("pcm_f32be", .f32), ("pcm_f32le", .f32), ("pcm_f64le", .f64), ("pcm_f64be", .f64)
    ])
    func ffmpegPCM(codec: String, type: PCMSampleType) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.ffmpegCAF(codec, in: dir)
        let reader = try CAFReader(path: path, framesPerSample: 777)
        #expect(reader.format == .pcm(PCMFormat(type), sampleRate: 44_100, channels: 2))
        #expect((reader.description.formatFlags & CAFAudioDescription.flagIsLittleEndian != 0) == codec.hasSuffix("le"))
        let samples = try CAFTest.readAll(reader)
        #expect(samples.reduce(0) { $0 + $1.frameCount } == Self.frames)
        #expect(try WAVTest.ffprobeFrames(path) == Int64(Self.frames))
        #expect(samples.flatMap(\.data) == (try WAVTest.ffmpegRaw(path, WAVTest.rawFormat(type))))
    }

    @Test func ffmpegToAPipeLeavesDataOpen() throws {
        let result = try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "anoisesrc=r=44100:a=0.5:seed=3", "-af",
                "atrim=end_sample=\(Self.frames)", "-ac", "2", "-c:a", "pcm_s16le", "-f", "caf", "-"
            ])
        let file = [UInt8](result.stdout)
        let reader = try CAFReader(bytes: file)
        #expect(reader.chunks.last?.type == "data")
        #expect(reader.chunks.last?.size == -1)
        let samples = try CAFTest.readAll(reader)
        #expect(samples.reduce(0) { $0 + $1.frameCount } == Self.frames)
    }

    @Test func ffmpegALACIsOnePacketPerSample() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.ffmpegCAF("alac", in: dir)
        let reader = try CAFReader(path: path)
        #expect(reader.format.codec == .other(fourCC: CAFAudioDescription.appleLossless))
        #expect(reader.format.framesPerPacket == 4096)
        #expect(reader.format.channelCount == 2)
        #expect(!reader.format.magicCookie.isEmpty)
        #expect(reader.format.magicCookie == reader.magicCookie)
        let packets = try CAFTest.readAll(reader)
        let stream = try ExternalTool.probeFirstStream(path)
        #expect(stream["codec_name"] as? String == "alac")
        #expect(stream["nb_read_packets"] as? String == String(packets.count))
        #expect(packets.count == 2)
        let table = try #require(reader.packetTable)
        #expect(table.numberValidFrames + Int64(table.primingFrames) + Int64(table.remainderFrames) == 2 * 4096)
        #expect(Int64(packets.reduce(0) { $0 + $1.data.count }) == reader.dataSize)
    }

    @Test(arguments: [
        ("-pcm16", PCMSampleType.s16), ("-pcm24", .s24), ("-pcm32", .s32), ("-float32", .f32), ("-float64", .f64)
    ])
    func sndfileConvert(option: String, type: PCMSampleType) throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("in.wav")
        try WAVTest.ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=r=48000:a=0.5:seed=9", "-af", "atrim=end_sample=\(Self.frames)", "-ac", "2",
            "-c:a", "pcm_s16le", wav
        ])
        let caf = dir.file("sndfile.caf")
        try ExternalTool.check("sndfile-convert", [option, wav, caf])
        let reader = try CAFReader(path: caf)
        #expect(reader.format == .pcm(PCMFormat(type), sampleRate: 48_000, channels: 2))
        #expect(reader.chunks.last?.type == "data")
        let samples = try CAFTest.readAll(reader)
        #expect(samples.reduce(0) { $0 + $1.frameCount } == Self.frames)
        #expect(try WAVTest.ffprobeFrames(caf) == Int64(Self.frames))
        #expect(samples.flatMap(\.data) == (try WAVTest.ffmpegRaw(caf, WAVTest.rawFormat(type))))
    }
}
