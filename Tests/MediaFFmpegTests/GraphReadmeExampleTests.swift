import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The graph code shown in Examples/av-encoder/README.md and the Graphs article, compiled and run, so
/// the docs cannot drift from the API.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct GraphReadmeExampleTests {
    @Test func avEncoderReadmeGraphRuns() async throws {
        let dir = try TemporaryDirectory()
        // Examples/av-encoder/README.md, "The same graph in code" (smaller frames and 2 s, absolute paths)
        var graph = MediaGraph()
        let video = graph.addBranch(
            "video",
            source: try TestPatternGenerator(
                width: 320, height: 240, frameRate: FrameRate(30), length: .duration(.seconds(2))),
            stages: [try H264Encoder()])
        let audio = graph.addBranch(
            "audio",
            source: try ToneGenerator(.sine(frequency: 440, amplitude: 0.5), length: .duration(.seconds(2))),
            stages: [try AACEncoder(bitRate: 128_000)])
        graph.addSink(try ContainerMuxer(path: dir.file("out.mp4")), tracks: [video, audio])
        graph.addSink(try ContainerMuxer(path: dir.file("out.ts")), tracks: [video, audio])
        let progress = try await graph.run()

        #expect(
            progress.sinks.map(\.samplesWritten) == [progress.sinks[0].samplesWritten, progress.sinks[0].samplesWritten]
        )
        for file in ["out.mp4", "out.ts"] {
            let json = try ExternalTool.ffprobeJSON(dir.file(file), ["-count_packets", "-show_streams"])
            let streams = try #require(json["streams"] as? [[String: Any]])
            #expect(Set(streams.compactMap { $0["codec_name"] as? String }) == ["h264", "aac"], "\(file)")
            #expect(
                streams.first { $0["codec_name"] as? String == "h264" }?["nb_read_packets"] as? String == "60",
                "\(file)")
        }
    }
}
