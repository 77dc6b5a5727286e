import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Files other encoders wrote, read by our ADTS reader and decoded by our AAC decoder.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ADTSDecodeTests {
    @Test func appleHLSSegmentDecodesCompletely() throws {
        let path = TestPaths.fixture("shaka-player_hls-raw-aac_fileSequence0.aac")
        var pipeline = Pipeline(source: try ADTSReader(path: path), stages: [AACDecoder()], sink: CollectingSink())
        let result = try pipeline.run()
        #expect(result.samplesRead == 215)
        let sink = try #require(pipeline.finishedSink as? CollectingSink)
        #expect(sink.samples.reduce(0) { $0 + $1.frameCount } == 215 * 1024)  // ffprobe: decoded_samples=220160
        #expect(sink.samples.first?.format.audio?.sampleRate == 22_050)
        #expect(sink.samples.first?.format.audio?.channelCount == 2)
    }

    /// Our decoder and ffmpeg's CLI decode the same ADTS file to the same samples.
    @Test func ourDecodeMatchesFFmpegs() throws {
        let dir = try TemporaryDirectory()
        let aac = dir.file("in.aac")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=f=523:r=44100:d=2", "-ac", "2", "-c:a", "aac", "-b:a", "96k",
                aac
            ])
        var pipeline = Pipeline(
            source: try ADTSReader(path: aac), stages: [AACDecoder(outputFormat: .f32)], sink: CollectingSink())
        try pipeline.run()
        let sink = try #require(pipeline.finishedSink as? CollectingSink)
        let ours = sink.samples.flatMap { $0.data }
        let theirs = try ExternalTool.decode(aac, format: "f32le")
        #expect(ours.count == theirs.count)
        #expect(Data(ours) == theirs)
    }
}
