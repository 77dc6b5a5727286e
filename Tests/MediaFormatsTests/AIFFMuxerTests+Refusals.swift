import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AIFFMuxer's header by hand, its life cycle, and what it refuses.
extension AIFFMuxerTests {
    static func s16Stereo(frames: Int, rate: Int = 48_000) -> MediaSample {
        let format = AudioFormat.pcm(.s16, sampleRate: rate, channels: 2)
        return MediaSample(
            format: .audio(format), data: WAVTest.pattern(frames * 4),
            timing: .audio(startFrame: 0, frameCount: frames, sampleRate: rate), frameCount: frames)
    }

    @Test func plainAIFFHeaderForS16Stereo() throws {
        let output = MemoryOutput()
        let muxer = AIFFMuxer(output: output)
        let sample = Self.s16Stereo(frames: 10)
        try muxer.write(sample)
        try muxer.finish()
        let be32 = { (v: UInt32) in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
        let header: [UInt8] =
            Array("FORM".utf8) + be32(46 + 40) + Array("AIFF".utf8)
            + Array("COMM".utf8) + be32(18) + [0, 2] + be32(10) + [0, 16]
            + [0x40, 0x0E, 0xBB, 0x80, 0, 0, 0, 0, 0, 0]  // 48000 as an 80-bit extended
            + Array("SSND".utf8) + be32(8 + 40) + be32(0) + be32(0)
        #expect(header.count == 54)
        #expect(Array(output.bytes.prefix(54)) == header)
        // The samples, big-endian.
        let data = sample.data
        var swapped: [UInt8] = []
        for i in stride(from: 0, to: data.count, by: 2) { swapped += [data[i + 1], data[i]] }
        #expect(Array(output.bytes[54...]) == swapped)
        #expect(muxer.framesWritten == 10)
        #expect(muxer.dataBytesWritten == 40)
    }

    /// FFmpeg writes AIFF to a pipe with zero sizes, which FFmpeg then refuses to read; we refuse to start.
    @Test func refusesAnOutputThatCannotSeek() throws {
        let memory = MemoryOutput()
        let muxer = CheckedSink(AIFFMuxer(output: NonSeekableOutput(memory)))
        let error = try #require(throws: MediaError.self) { try muxer.write(Self.s16Stereo(frames: 10)) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("cannot seek"))
        try muxer.finish()
        #expect(memory.bytes.isEmpty)

        let dir = try TemporaryDirectory()
        let piped = try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "anoisesrc=r=8000:seed=3", "-af",
                "atrim=end_sample=100",
                "-c:a", "pcm_s16be", "-fflags", "+bitexact", "-map_metadata", "-1", "-f", "aiff", "-"
            ]
        ).stdout
        #expect(Array(piped[4..<8]) == [0, 0, 0, 0])  // FORM size 0
        let path = dir.file("piped.aif")
        try WAVTest.write([UInt8](piped), to: path)
        #expect(try ExternalTool.run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"]).status != 0)
    }

    @Test func refusesPlanarCompressedAndWhatTheEncodingCannotStore() throws {
        let planar = MediaSample(
            format: .audio(.pcm(.f32Planar, sampleRate: 48_000, channels: 2)),
            planes: [[UInt8](repeating: 0, count: 16), [UInt8](repeating: 0, count: 16)],
            timing: .audio(startFrame: 0, frameCount: 4, sampleRate: 48_000), frameCount: 4)
        let aac = MediaSample(
            format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])),
            data: [1, 2, 3], timing: .audio(startFrame: 0, frameCount: 1024, sampleRate: 48_000), frameCount: 1024)
        let s24 = MediaSample(
            format: .audio(.pcm(PCMFormat(.s24), sampleRate: 48_000, channels: 1)), data: [1, 2, 3],
            timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 48_000), frameCount: 1)
        let f32 = MediaSample(
            format: .audio(.pcm(.f32, sampleRate: 48_000, channels: 1)), data: [0, 0, 0, 0],
            timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 48_000), frameCount: 1)
        let refusals: [(MediaSample, AIFFMuxer.Encoding, MediaError.Code, String)] = [
            (planar, .bigEndian, .formatMismatch, "f32p"),
            (aac, .bigEndian, .formatMismatch, "aac"),
            (s24, .littleEndian, .unsupportedFormat, "16-bit"),
            (f32, .littleEndian, .unsupportedFormat, "16-bit"),
            (f32, .muLaw, .formatMismatch, "s16 for G.711 µ-law"),
            (s24, .aLaw, .formatMismatch, "s16 for G.711 A-law")
        ]
        for (sample, encoding, code, text) in refusals {
            let output = MemoryOutput()
            let muxer = CheckedSink(AIFFMuxer(output: output, encoding: encoding))
            let error = try #require(throws: MediaError.self) { try muxer.write(sample) }
            #expect(error.code == code)
            #expect(error.message.contains(text), "\(error.message)")
            #expect(error.stage == "AIFFMuxer")
            try muxer.finish()
            #expect(output.bytes.isEmpty)
        }
    }

    @Test func refusesAFormatChangeAndKeepsTheFileValid() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("change.aif")
        let muxer = CheckedSink(AIFFMuxer(output: try FileOutput(path: path)))
        let first = Self.s16Stereo(frames: 1500)
        try muxer.write(first)
        let error = try #require(throws: MediaError.self) { try muxer.write(Self.s16Stereo(frames: 10, rate: 44_100)) }
        #expect(error.code == .formatMismatch)
        #expect(error.message.contains("s16 48000 Hz stereo"))
        #expect(error.message.contains("s16 44100 Hz stereo"))
        #expect(error.sampleIndex == 1)
        try muxer.finish()
        #expect(PCMMuxerTest.firstDifference(try PCMMuxerTest.strictDecode(path, "s16le"), first.data) == nil)
        #expect(try PCMMuxerTest.sndfileFacts(path).frames == "1500")
    }

    @Test func refusesASampleWhoseBytesDoNotMatchItsFrames() throws {
        let sample = MediaSample(
            format: .audio(.pcm(.s16, sampleRate: 48_000, channels: 2)), data: [UInt8](repeating: 0, count: 39),
            timing: .audio(startFrame: 0, frameCount: 10, sampleRate: 48_000), frameCount: 10)
        let output = MemoryOutput()
        let error = try #require(throws: MediaError.self) { try AIFFMuxer(output: output).write(sample) }
        #expect(error.code == .invalidData)
        #expect(error.message.contains("10 frames of 4 bytes holding 39 bytes"))
        #expect(output.bytes.isEmpty)
    }

    @Test func noSamplesWritesNothingAndCloses() throws {
        let output = MemoryOutput()
        let muxer = AIFFMuxer(output: output)
        try muxer.finish()
        #expect(output.bytes.isEmpty)
        #expect(muxer.format == nil)
        #expect(throws: MediaError.self) { try output.write([1]) }
    }

    @Test func runsInAPipeline() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("pipeline.aif")
        let tone = try ToneGenerator(
            .sine(frequency: 440, amplitude: 0.25), sampleRate: 44_100, channels: 1,
            sampleType: .s16, length: .frames(44_100))
        var pipeline = Pipeline(source: tone, sink: AIFFMuxer(output: try FileOutput(path: path)))
        #expect(try pipeline.run().framesRead == 44_100)
        #expect(try WAVTest.ffprobeFrames(path) == 44_100)
        let stat = try ExternalTool.check("sox", [path, "-n", "stat"]).stderr
        let samplesRead = stat.split(separator: "\n").first { $0.hasPrefix("Samples read:") }?.split(separator: " ")
            .last
        #expect(samplesRead == "44100", "\(stat)")
    }
}
