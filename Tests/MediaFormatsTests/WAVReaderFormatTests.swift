import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// WAVReader against files other software wrote: every sample type, channel count and header kind that
/// ffmpeg and sox produce. Oracles: ffprobe's frame count and layout, and ffmpeg's own decode of the file.
@Suite(.timeLimit(.minutes(2))) struct WAVReaderFormatTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var codec: String
        var type: PCMSampleType
        var channels: Int
        var rate: Int
        var testDescription: String { "\(codec) \(channels) ch \(rate) Hz" }
    }

    static let codecs: [(String, PCMSampleType, Int)] = [
        ("pcm_u8", .u8, 8_000), ("pcm_s16le", .s16, 44_100), ("pcm_s24le", .s24, 48_000),
        ("pcm_s32le", .s32, 96_000), ("pcm_f32le", .f32, 22_050), ("pcm_f64le", .f64, 48_000)
    ]
    static let ffmpegCases: [Case] = codecs.flatMap { codec, type, rate in
        [1, 2, 6, 8].map { Case(codec: codec, type: type, channels: $0, rate: rate) }
    }

    /// The layout ffprobe names, as a mask (ffmpeg 5.1 calls 0x3F "5.1" and 0x60F "5.1(side)").
    static func layout(ffprobeName name: String?, channels: Int) -> ChannelLayout {
        switch name {
        case "mono": return .mono
        case "stereo": return .stereo
        case "5.1": return ChannelLayout(mask: 0x3F)
        case "5.1(side)": return ChannelLayout(mask: 0x60F)
        case "7.1": return ChannelLayout(mask: 0x63F)
        default: return .default(channelCount: channels)
        }
    }

    /// Checks format, frame count and bytes of the WAV at `path` against ffprobe and ffmpeg.
    static func checkAgainstFFmpeg(_ path: String, type: PCMSampleType, channels: Int, rate: Int, frames: Int64) throws
    {
        let reader = try WAVReader(path: path)
        let stream = try ExternalTool.probeFirstStream(path)
        #expect(reader.format.pcm == PCMFormat(type))
        #expect(reader.format.sampleRate == rate)
        #expect(reader.format.channelCount == channels)
        #expect(
            reader.format.channelLayout == layout(ffprobeName: stream["channel_layout"] as? String, channels: channels))
        #expect(reader.frameCount == frames)
        #expect(reader.frameCount == (try WAVTest.ffprobeFrames(path)))
        let (samples, bytes) = try WAVTest.readAll(reader)
        #expect(bytes == (try WAVTest.ffmpegRaw(path, WAVTest.rawFormat(type))))
        #expect(samples.reduce(0) { $0 + $1.frameCount } == Int(frames))
        #expect(samples.allSatisfy { $0.format == .audio(reader.format) })
        #expect(reader.diagnostics.isEmpty)
    }

    @Test(arguments: ffmpegCases)
    func readsWhatFFmpegWrites(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("in.wav")
        // 5443 frames: one full 4096-frame sample and a shorter one.
        try WAVTest.ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=r=\(c.rate):a=0.8:seed=3", "-af", "atrim=end_sample=5443",
            "-ac", String(c.channels), "-c:a", c.codec, path
        ])
        try Self.checkAgainstFFmpeg(path, type: c.type, channels: c.channels, rate: c.rate, frames: 5443)
        let reader = try WAVReader(path: path)
        // ffmpeg writes WAVE_FORMAT_EXTENSIBLE beyond 2 channels, 16 bits or 48 kHz, with the layout's mask.
        let extensible = c.channels > 2 || c.type.bytesPerSample > 2 || c.rate > 48_000
        #expect(reader.formatChunk.isExtensible == extensible)
        #expect(reader.formatChunk.codecTag == (c.type.isFloat ? 3 : 1))
        if c.channels == 6 { #expect(reader.format.channelLayout == .surround51) }
        if c.channels == 8 { #expect(reader.format.channelLayout == .surround71) }
    }

    struct SoxCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var type: PCMSampleType
        var channels: Int
        var rate: Int
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let soxCases: [SoxCase] = [
        SoxCase(arguments: ["-b", "8", "-c", "1", "-r", "8000"], type: .u8, channels: 1, rate: 8_000),
        SoxCase(arguments: ["-b", "16", "-c", "2", "-r", "44100"], type: .s16, channels: 2, rate: 44_100),
        SoxCase(arguments: ["-b", "24", "-c", "2", "-r", "44100"], type: .s24, channels: 2, rate: 44_100),
        SoxCase(arguments: ["-b", "32", "-c", "1", "-r", "48000"], type: .s32, channels: 1, rate: 48_000),
        SoxCase(
            arguments: ["-e", "floating-point", "-b", "32", "-c", "2", "-r", "48000"], type: .f32, channels: 2,
            rate: 48_000),
        SoxCase(
            arguments: ["-e", "floating-point", "-b", "64", "-c", "1", "-r", "22050"], type: .f64, channels: 1,
            rate: 22_050),
        SoxCase(arguments: ["-b", "16", "-c", "6", "-r", "48000"], type: .s16, channels: 6, rate: 48_000)
    ]

    @Test(arguments: soxCases)
    func readsWhatSoxWrites(_ c: SoxCase) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("sox.wav")
        try WAVTest.sox(["-n"] + c.arguments + [path, "synth", "0.25", "sine", "440"])
        try Self.checkAgainstFFmpeg(path, type: c.type, channels: c.channels, rate: c.rate, frames: Int64(c.rate / 4))
    }

    @Test func bytesInitMatchesPathInit() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("in.wav")
        try WAVTest.sox(["-n", "-b", "24", "-c", "2", "-r", "44100", path, "synth", "0.5", "sine", "440"])
        let fromPath = try WAVReader(path: path, framesPerSample: 1000)
        let fromBytes = try WAVReader(bytes: try WAVTest.bytes(path), framesPerSample: 1000)
        #expect(fromPath.format == fromBytes.format)
        #expect(fromPath.frameCount == 22_050)
        #expect(fromBytes.frameCount == 22_050)
        #expect(fromPath.dataOffset == fromBytes.dataOffset)
        #expect(try WAVTest.readAll(fromPath).samples == (try WAVTest.readAll(fromBytes).samples))
    }

    @Test func readsRF64() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("rf64.wav")
        try WAVTest.ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=r=48000:a=0.5:seed=9", "-af", "atrim=end_sample=12345", "-ac", "2",
            "-c:a", "pcm_s16le", "-rf64", "always", path
        ])
        #expect(Array(try WAVTest.bytes(path).prefix(4)) == Array("RF64".utf8))
        try Self.checkAgainstFFmpeg(path, type: .s16, channels: 2, rate: 48_000, frames: 12_345)
    }

    /// libsndfile writes float files with `fact`, `LIST` and `PEAK` chunks before `data`.
    @Test func readsLibsndfileFloatWithPeakChunk() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("source.wav")
        let path = dir.file("float.wav")
        try WAVTest.sox(["-n", "-b", "16", "-c", "2", "-r", "44100", source, "synth", "0.2", "sine", "1000"])
        try ExternalTool.check("sndfile-convert", ["-float32", source, path])
        let file = try WAVTest.bytes(path)
        #expect(file.indices.dropLast(4).contains { Array(file[$0..<$0 + 4]) == Array("PEAK".utf8) })
        #expect(file.indices.dropLast(4).contains { Array(file[$0..<$0 + 4]) == Array("fact".utf8) })
        try Self.checkAgainstFFmpeg(path, type: .f32, channels: 2, rate: 44_100, frames: 8_820)
    }
}
