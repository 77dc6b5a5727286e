import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// WAVMuxer judged by other tools: ffmpeg's own WAV muxer (byte for byte), sndfile-info, ffprobe, and
/// ffmpeg's decode of what it wrote.
@Suite(.timeLimit(.minutes(2))) struct WAVMuxerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var type: PCMSampleType
        var layout: ChannelLayout
        var ffmpegLayout: String
        var rate: Int
        var frames: Int
        var testDescription: String { "\(type) \(ffmpegLayout) \(rate) Hz \(frames) frames" }
    }

    static let cases: [Case] = [
        Case(type: .u8, layout: .mono, ffmpegLayout: "mono", rate: 8_000, frames: 481),  // odd data: pad byte
        Case(type: .s16, layout: .stereo, ffmpegLayout: "stereo", rate: 48_000, frames: 4800),
        Case(type: .s16, layout: .stereo, ffmpegLayout: "stereo", rate: 96_000, frames: 1000),  // extensible: rate
        Case(type: .s24, layout: .stereo, ffmpegLayout: "stereo", rate: 44_100, frames: 999),  // extensible: bits
        Case(type: .s24, layout: .mono, ffmpegLayout: "mono", rate: 44_100, frames: 333),  // odd data, extensible
        Case(type: .s32, layout: .mono, ffmpegLayout: "mono", rate: 48_000, frames: 1000),
        Case(type: .f32, layout: .stereo, ffmpegLayout: "stereo", rate: 48_000, frames: 1234),  // fact chunk
        Case(type: .f64, layout: .mono, ffmpegLayout: "mono", rate: 22_050, frames: 500),
        Case(type: .s16, layout: .surround51Side, ffmpegLayout: "5.1(side)", rate: 48_000, frames: 1000),
        Case(type: .s16, layout: .surround51, ffmpegLayout: "5.1", rate: 48_000, frames: 1000),
        Case(type: .f32, layout: .surround71, ffmpegLayout: "7.1", rate: 48_000, frames: 700)
    ]

    /// Raw interleaved PCM of `c`'s format, made by ffmpeg.
    static func rawPCM(_ c: Case, in dir: TemporaryDirectory) throws -> (path: String, bytes: [UInt8]) {
        let path = dir.file("raw.bin")
        try WAVTest.ffmpeg([
            "-f", "lavfi", "-i", "anoisesrc=r=\(c.rate):a=0.7:seed=11", "-af", "atrim=end_sample=\(c.frames)",
            "-ac", String(c.layout.channelCount), "-f", WAVTest.rawFormat(c.type), path
        ])
        let bytes = try WAVTest.bytes(path)
        #expect(bytes.count == c.frames * c.layout.channelCount * c.type.bytesPerSample)
        return (path, bytes)
    }

    /// `bytes` as samples of at most 300 frames.
    static func samples(_ bytes: [UInt8], format: AudioFormat) -> [MediaSample] {
        let frameBytes = format.bytesPerFrame
        let frames = bytes.count / frameBytes
        return stride(from: 0, to: frames, by: 300).map { start in
            let count = min(300, frames - start)
            return MediaSample(
                format: .audio(format), data: Array(bytes[start * frameBytes..<(start + count) * frameBytes]),
                timing: .audio(startFrame: Int64(start), frameCount: count, sampleRate: format.sampleRate),
                frameCount: count)
        }
    }

    static func mux(_ samples: [MediaSample], to output: any MediaOutput) throws {
        let muxer = WAVMuxer(output: output)
        for sample in samples { try muxer.write(sample) }
        try muxer.finish()
    }

    @Test(arguments: cases)
    func matchesFFmpegByteForByte(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let (rawPath, raw) = try Self.rawPCM(c, in: dir)
        let format = AudioFormat.pcm(PCMFormat(c.type), sampleRate: c.rate, channelLayout: c.layout)
        let ours = dir.file("ours.wav")
        try Self.mux(Self.samples(raw, format: format), to: try FileOutput(path: ours))

        let reference = dir.file("ffmpeg.wav")
        let codec = "pcm_" + WAVTest.rawFormat(c.type)
        try WAVTest.ffmpeg([
            "-f", WAVTest.rawFormat(c.type), "-ar", String(c.rate), "-ch_layout", c.ffmpegLayout, "-i", rawPath,
            "-c:a", codec, "-fflags", "+bitexact", reference
        ])
        let oursBytes = try WAVTest.bytes(ours)
        #expect(oursBytes == (try WAVTest.bytes(reference)))
        #expect(oursBytes.count % 2 == 0)
        // And ffmpeg decodes our file to the input.
        #expect(try WAVTest.ffmpegRaw(ours, WAVTest.rawFormat(c.type)) == raw)
    }

    @Test func canonicalHeaderForS16Stereo() throws {
        let output = MemoryOutput()
        var tone = try ToneGenerator(sampleType: .s16, length: .frames(10))
        let muxer = WAVMuxer(output: output)
        while let sample = try tone.next() { try muxer.write(sample) }
        try muxer.finish()
        let header: [UInt8] =
            Array("RIFF".utf8) + WAVTest.le32(36 + 40) + Array("WAVE".utf8)
            + WAVTest.chunk("fmt ", WAVTest.fmtBody(channels: 2, rate: 48_000, bits: 16)) + Array("data".utf8)
            + WAVTest.le32(40)
        #expect(header.count == 44)
        #expect(Array(output.bytes.prefix(44)) == header)
        #expect(output.bytes.count == 84)
        #expect(muxer.framesWritten == 10)
        #expect(muxer.dataBytesWritten == 40)
    }

    // libsndfile reports plain WAV as 0x0001xxxx and WAVE_FORMAT_EXTENSIBLE (what f32 stereo is) as 0x0013xxxx.
    @Test(arguments: [(PCMSampleType.s16, "0x00010002", "pcm_s16le"), (.f32, "0x00130006", "pcm_f32le")])
    func toneFileIsAcceptedBySndfileAndFFprobe(type: PCMSampleType, sndfileFormat: String, codec: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.wav")
        var tone = try ToneGenerator(
            .sine(frequency: 1000, amplitude: 0.5), sampleRate: 44_100, channels: 2,
            sampleType: type, length: .frames(44_100))
        let (samples, bytes) = try WAVTest.drain(&tone)
        try Self.mux(samples, to: try FileOutput(path: path))

        let info = try ExternalTool.check("sndfile-info", [path]).output
        #expect(info.contains("Sample Rate : 44100"))
        #expect(info.contains("Frames      : 44100"))
        #expect(info.contains("Channels    : 2"))
        #expect(info.contains("Format      : \(sndfileFormat)"))

        let stream = try ExternalTool.probeFirstStream(path)
        #expect(stream["codec_name"] as? String == codec)
        #expect(stream["sample_rate"] as? String == "44100")
        #expect(stream["channels"] as? Int == 2)
        #expect(try WAVTest.ffprobeFrames(path) == 44_100)
        let decoded = [UInt8](try ExternalTool.decode(path, format: WAVTest.rawFormat(type)))
        #expect(decoded == bytes)

        // And our reader gives back the same samples.
        let reader = try WAVReader(path: path, framesPerSample: 1024)
        #expect(try WAVTest.readAll(reader).samples == samples)
    }

    @Test func nonSeekableOutputGivesAStreamFFmpegReads() throws {
        let dir = try TemporaryDirectory()
        let c = Case(type: .s24, layout: .stereo, ffmpegLayout: "stereo", rate: 48_000, frames: 1001)
        let (rawPath, raw) = try Self.rawPCM(c, in: dir)
        let memory = MemoryOutput()
        try Self.mux(
            Self.samples(raw, format: .pcm(PCMFormat(.s24), sampleRate: 48_000, channelLayout: .stereo)),
            to: NonSeekableOutput(memory))
        let stream = memory.bytes
        #expect(Array(stream[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])  // RIFF size left open
        #expect(stream.count == 68 + raw.count)  // extensible header, no fact chunk, no pad byte

        // Byte for byte what ffmpeg writes to a pipe, and ffmpeg decodes it to the input. (Not with -xerror:
        // ffmpeg flags the last read of any open-sized WAV, its own included, as a corrupt packet.)
        let piped = try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "s24le", "-ar", "48000", "-ch_layout", "stereo", "-i", rawPath,
                "-c:a", "pcm_s24le", "-fflags", "+bitexact", "-f", "wav", "-"
            ]
        ).stdout
        #expect(stream == [UInt8](piped))
        let path = dir.file("stream.wav")
        try WAVTest.write(stream, to: path)
        #expect(try WAVTest.ffmpegRaw(path, "s24le") == raw)
        let reader = try WAVReader(path: path)
        #expect(reader.frameCount == 1001)
        #expect(reader.diagnostics.map(\.code) == [.openDataSize])
    }

    @Test func refusesPlanarAndCompressedSamples() throws {
        let planarFormat = AudioFormat.pcm(.f32Planar, sampleRate: 48_000, channels: 2)
        let planar = MediaSample(
            format: .audio(planarFormat), planes: [[UInt8](repeating: 0, count: 16), [UInt8](repeating: 0, count: 16)],
            timing: .audio(startFrame: 0, frameCount: 4, sampleRate: 48_000), frameCount: 4)
        let output = MemoryOutput()
        let muxer = CheckedSink(WAVMuxer(output: output))
        let error = try #require(throws: MediaError.self) { try muxer.write(planar) }
        #expect(error.code == .formatMismatch)
        #expect(error.message.contains("f32p"))
        #expect(output.bytes.isEmpty)

        let aac = MediaSample(
            format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])),
            data: [1, 2, 3], timing: .audio(startFrame: 0, frameCount: 1024, sampleRate: 48_000), frameCount: 1024)
        let other = WAVMuxer(output: MemoryOutput())
        let aacError = try #require(throws: MediaError.self) { try other.write(aac) }
        #expect(aacError.code == .formatMismatch)
        #expect(aacError.message.contains("aac"))

        // After a refusal, the guard refuses writes; finish closes without a header (no format yet).
        let again = try #require(throws: MediaError.self) { try muxer.write(planar) }
        #expect(again.code == .stageFinished)
        try muxer.finish()
        #expect(output.bytes.isEmpty)
    }

    @Test func refusesAFormatChangeAndKeepsTheFileValid() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("change.wav")
        var first = try ToneGenerator(sampleType: .s16, length: .frames(1500))
        var second = try ToneGenerator(sampleType: .f32, length: .frames(100))
        let muxer = CheckedSink(WAVMuxer(output: try FileOutput(path: path)))
        let (samples, bytes) = try WAVTest.drain(&first)
        for sample in samples { try muxer.write(sample) }
        let change = try #require(try second.next())
        let error = try #require(throws: MediaError.self) { try muxer.write(change) }
        #expect(error.code == .formatMismatch)
        #expect(error.message.contains("s16 48000 Hz stereo"))
        #expect(error.message.contains("f32 48000 Hz stereo"))
        #expect(error.sampleIndex == 2)  // stamped by the guard
        #expect(error.stage == "WAVMuxer")
        try muxer.finish()  // what Pipeline does after an error: the file stays valid
        #expect(try WAVTest.ffprobeFrames(path) == 1500)
        #expect(try WAVTest.ffmpegRaw(path, "s16le") == bytes)
    }

    @Test func callsAfterFinishThrowStageFinished() throws {
        let output = MemoryOutput()
        let muxer = CheckedSink(WAVMuxer(output: output))
        var tone = try ToneGenerator(length: .frames(64))
        let sample = try #require(try tone.next())
        try muxer.write(sample)
        try muxer.finish()
        let count = output.bytes.count
        #expect(count == 80 + 64 * 8)  // RIFF 12 + extensible fmt 48 + fact 12 + data header 8, then the data
        #expect(try #require(throws: MediaError.self) { try muxer.write(sample) }.code == .stageFinished)
        #expect(try #require(throws: MediaError.self) { try muxer.finish() }.code == .stageFinished)
        #expect(output.bytes.count == count)
    }

    @Test func noSamplesWritesNothingAndCloses() throws {
        let output = MemoryOutput()
        let muxer = WAVMuxer(output: output)
        try muxer.finish()
        #expect(output.bytes.isEmpty)
        #expect(muxer.format == nil)
        // The output is closed: it refuses further writes.
        #expect(throws: MediaError.self) { try output.write([1]) }
    }

    @Test func refusesASampleWhoseBytesDoNotMatchItsFrames() throws {
        let format = AudioFormat.pcm(.s16, sampleRate: 48_000, channels: 2)
        let sample = MediaSample(
            format: .audio(format), data: [UInt8](repeating: 0, count: 39),
            timing: .audio(startFrame: 0, frameCount: 10, sampleRate: 48_000), frameCount: 10)
        let output = MemoryOutput()
        let error = try #require(throws: MediaError.self) { try WAVMuxer(output: output).write(sample) }
        #expect(error.code == .invalidData)
        #expect(error.message.contains("10 frames of 4 bytes holding 39 bytes"))
        #expect(output.bytes.isEmpty)
    }

    @Test func runsInAPipeline() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("pipeline.wav")
        let tone = try ToneGenerator(
            .sine(frequency: 440, amplitude: 0.25), channels: 1, sampleType: .s16,
            length: .duration(MediaTime(value: 3, timescale: 2)))
        var pipeline = Pipeline(source: tone, sink: WAVMuxer(output: try FileOutput(path: path)))
        let progress = try pipeline.run()
        #expect(progress.framesRead == 72_000)
        #expect(try WAVTest.ffprobeFrames(path) == 72_000)
        let reader = try WAVReader(path: path)
        #expect(reader.format == .pcm(.s16, sampleRate: 48_000, channelLayout: .mono))
        #expect(reader.frameCount == 72_000)
    }
}
