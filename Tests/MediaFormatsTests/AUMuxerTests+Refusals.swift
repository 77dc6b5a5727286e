import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AUMuxer's header by hand, its life cycle, and what it refuses.
extension AUMuxerTests {
    @Test func headerForS16Stereo() throws {
        let output = MemoryOutput()
        let muxer = AUMuxer(output: output)
        let sample = AIFFMuxerTests.s16Stereo(frames: 10, rate: 44_100)
        try muxer.write(sample)
        try muxer.finish()
        let be32 = { (v: UInt32) in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
        let header: [UInt8] =
            Array(".snd".utf8) + be32(32) + be32(40) + be32(3) + be32(44_100) + be32(2)
            + [UInt8](repeating: 0, count: 8)
        #expect(Array(output.bytes.prefix(32)) == header)
        let data = sample.data
        var swapped: [UInt8] = []
        for i in stride(from: 0, to: data.count, by: 2) { swapped += [data[i + 1], data[i]] }
        #expect(Array(output.bytes[32...]) == swapped)
        #expect(muxer.framesWritten == 10)
        #expect(muxer.dataBytesWritten == 40)
    }

    @Test func u8IsStoredSigned() throws {
        let output = MemoryOutput()
        let muxer = AUMuxer(output: output)
        try muxer.write(
            MediaSample(
                format: .audio(.pcm(PCMFormat(.u8), sampleRate: 8_000, channels: 1)), data: [0, 0x80, 0xFF, 0x7F],
                timing: .audio(startFrame: 0, frameCount: 4, sampleRate: 8_000), frameCount: 4))
        try muxer.finish()
        #expect(PCMMuxerTest.be32(output.bytes, at: 12) == 2)  // linear 8-bit (signed)
        #expect(Array(output.bytes[32...]) == [0x80, 0x00, 0x7F, 0xFF])
    }

    @Test func refusesPlanarCompressedAndNonS16ForG711() throws {
        let planar = MediaSample(
            format: .audio(.pcm(.f32Planar, sampleRate: 48_000, channels: 2)),
            planes: [[UInt8](repeating: 0, count: 16), [UInt8](repeating: 0, count: 16)],
            timing: .audio(startFrame: 0, frameCount: 4, sampleRate: 48_000), frameCount: 4)
        let aac = MediaSample(
            format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])),
            data: [1, 2, 3], timing: .audio(startFrame: 0, frameCount: 1024, sampleRate: 48_000), frameCount: 1024)
        let f32 = MediaSample(
            format: .audio(.pcm(.f32, sampleRate: 8_000, channels: 1)), data: [0, 0, 0, 0],
            timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 8_000), frameCount: 1)
        let refusals: [(MediaSample, AUMuxer.Encoding, String)] = [
            (planar, .linear, "f32p"), (aac, .linear, "aac"), (f32, .muLaw, "s16 for G.711 µ-law"),
            (f32, .aLaw, "s16 for G.711 A-law")
        ]
        for (sample, encoding, text) in refusals {
            let output = MemoryOutput()
            let muxer = CheckedSink(AUMuxer(output: output, encoding: encoding))
            let error = try #require(throws: MediaError.self) { try muxer.write(sample) }
            #expect(error.code == .formatMismatch)
            #expect(error.message.contains(text), "\(error.message)")
            #expect(error.stage == "AUMuxer")
            try muxer.finish()
            #expect(output.bytes.isEmpty)
        }
        let bad = MediaSample(
            format: .audio(.pcm(.s16, sampleRate: 48_000, channels: 2)), data: [UInt8](repeating: 0, count: 39),
            timing: .audio(startFrame: 0, frameCount: 10, sampleRate: 48_000), frameCount: 10)
        let error = try #require(throws: MediaError.self) { try AUMuxer(output: MemoryOutput()).write(bad) }
        #expect(error.code == .invalidData)
        #expect(error.message.contains("10 frames of 4 bytes holding 39 bytes"))
    }

    @Test func refusesAFormatChangeAndKeepsTheFileValid() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("change.au")
        let muxer = CheckedSink(AUMuxer(output: try FileOutput(path: path)))
        let first = AIFFMuxerTests.s16Stereo(frames: 1500)
        try muxer.write(first)
        let error = try #require(throws: MediaError.self) {
            try muxer.write(AIFFMuxerTests.s16Stereo(frames: 10, rate: 44_100))
        }
        #expect(error.code == .formatMismatch)
        #expect(error.sampleIndex == 1)
        try muxer.finish()
        #expect(PCMMuxerTest.firstDifference(try PCMMuxerTest.strictDecode(path, "s16le"), first.data) == nil)
        #expect(try WAVTest.ffprobeFrames(path) == 1500)
        #expect(try #require(throws: MediaError.self) { try muxer.finish() }.code == .stageFinished)
    }

    @Test func noSamplesWritesNothingAndCloses() throws {
        let output = MemoryOutput()
        let muxer = AUMuxer(output: output)
        try muxer.finish()
        #expect(output.bytes.isEmpty)
        #expect(muxer.format == nil)
        #expect(throws: MediaError.self) { try output.write([1]) }
    }

    @Test func runsInAPipeline() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("pipeline.au")
        let tone = try ToneGenerator(
            .sine(frequency: 440, amplitude: 0.25), sampleRate: 8_000, channels: 1,
            sampleType: .s16, length: .frames(8_000))
        var pipeline = Pipeline(source: tone, sink: AUMuxer(output: try FileOutput(path: path), encoding: .muLaw))
        #expect(try pipeline.run().framesRead == 8_000)
        #expect(try WAVTest.ffprobeFrames(path) == 8_000)
        #expect(try PCMMuxerTest.soxFacts(path).encoding == "u-law")
    }
}
