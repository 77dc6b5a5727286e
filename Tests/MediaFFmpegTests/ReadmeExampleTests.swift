import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The code shown in README.md and Examples/aac-encoder/README.md, compiled and run, so the docs
/// cannot drift from the API.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ReadmeExampleTests {
    @Test func readmePipelineRuns() throws {
        let dir = try TemporaryDirectory()
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=1", "-ac", "2", dir.file("in.wav")])
        // README.md, "Use it" (with absolute paths: tests run in parallel in one process)
        var pipeline = Pipeline(
            source: try WAVReader(path: dir.file("in.wav")),
            stages: [try AACEncoder(bitRate: 128_000)],
            sink: ADTSMuxer(output: try FileOutput(path: dir.file("out.aac"))))
        let result = try pipeline.run { progress in _ = progress.position }
        #expect(result.framesRead == 48_000)
        #expect(result.samplesWritten == 48)
        #expect(try ExternalTool.probeFirstStream(dir.file("out.aac"))["nb_read_packets"] as? String == "48")
    }

    @Test func stagesDrivenByHand() throws {
        // README.md: "Stages are small synchronous state machines; drive them by hand"
        let pcmSamples = PCM.sine(frames: 10_000)
        var sent: [MediaSample] = []
        func send(_ packet: MediaSample) { sent.append(packet) }
        let encoder = CheckedStage(try AACEncoder(bitRate: 96_000))
        for sample in pcmSamples { try encoder.process(sample) { packet in send(packet) } }
        try encoder.finish { packet in send(packet) }  // drains the last frames
        // another call now throws .stageFinished naming AACEncoder
        #expect(sent.count == (10_000 + 1024 + 1023) / 1024)
        let late = try #require(throws: MediaError.self) { try encoder.finish { packet in send(packet) } }
        #expect(late.code == .stageFinished && late.stage == "AACEncoder")
    }

    @Test func aacEncoderReadmePipelineRuns() throws {
        let dir = try TemporaryDirectory()
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=1", "-ac", "2", dir.file("in.wav")])
        // Examples/aac-encoder/README.md, "The same pipeline in code"
        let source = try WAVReader(path: dir.file("in.wav"))
        var stages: [any MediaStage] = []
        stages.append(try AudioConverter(sampleRate: 44_100, channelLayout: .mono))
        stages.append(try AACEncoder(bitRate: 128_000))
        var pipeline = Pipeline(
            source: source, stages: stages, sink: ADTSMuxer(output: try FileOutput(path: dir.file("out.aac"))))
        let result = try pipeline.run()
        #expect(result.samplesWritten == (44_100 + 1024 + 1023) / 1024)
        let stream = try ExternalTool.probeFirstStream(dir.file("out.aac"))
        #expect(stream["sample_rate"] as? String == "44100")
        #expect(stream["channels"] as? Int == 1)
    }

    @Test func h264EncoderReadmePipelineRuns() throws {
        let dir = try TemporaryDirectory()
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "40", "-pix_fmt",
                "yuv420p",
                "-f", "yuv4mpegpipe", dir.file("in.y4m")
            ])
        // Examples/h264-encoder/README.md, "The same pipeline in code"
        var settings = H264Encoder.Settings()
        settings.averageBitRate = 1_500_000
        settings.maxKeyFrameInterval = 30
        settings.preset = "veryfast"
        var pipeline = Pipeline(
            source: try Y4MReader(path: dir.file("in.y4m")),
            stages: [try H264Encoder(settings: settings)],
            sink: AnnexBMuxer(output: try FileOutput(path: dir.file("out.h264"))))
        let result = try pipeline.run()
        #expect(result.samplesRead == 40)
        #expect(result.samplesWritten == 40)
        let stream = try ExternalTool.probeFirstStream(dir.file("out.h264"))
        #expect(stream["width"] as? Int == 320)
        #expect(stream["codec_name"] as? String == "h264")

        // Examples/h264-encoder/README.md, "And back"
        let decoder = H264Decoder()
        var back = Pipeline(
            source: try AnnexBReader(path: dir.file("out.h264")),
            stages: [decoder],
            sink: Y4MMuxer(output: try FileOutput(path: dir.file("decoded.y4m"))))
        try back.run()
        #expect(decoder.missingFrameCount == 0)
        let cli = try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", dir.file("out.h264"), "-f", "yuv4mpegpipe", "-"]
        ).stdout
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("decoded.y4m"))) == cli)
    }
}
