import MediaCore
import Testing

/// What a person sees when printing a run's progress and a sample's timing.
@Suite(.timeLimit(.minutes(1))) struct ProgressDescriptionTests {
    static func tone(_ count: Int) -> [MediaSample] {
        (0..<count).map { index in
            MediaSample(
                format: .audio(.pcm(.s16, sampleRate: 48_000, channels: 1)), data: [UInt8](repeating: 0, count: 2048),
                timing: .audio(startFrame: Int64(index * 1024), frameCount: 1024, sampleRate: 48_000), frameCount: 1024)
        }
    }

    @Test func aPipelinesProgressReadsAsOneLine() throws {
        var pipeline = Pipeline(source: ArraySource(Self.tone(3)), sink: CollectingSink())
        let progress = try pipeline.run()
        #expect(
            progress.description
                == "read 3 samples (3072 audio frames, 0 video frames) to 0.064 s; wrote 3 samples (6144 bytes); 0 warnings"
        )
    }

    @Test func aGraphsProgressHasALinePerBranchAndSink() throws {
        var graph = MediaGraph()
        let branch = graph.addBranch("tone", source: ArraySource(Self.tone(1)))
        graph.addSink(CollectingSink(), input: branch)
        let progress = try graph.runSynchronously()
        #expect(
            progress.description == """
                at 0.021333 s (1024/48000)
                  branch tone: read 1 sample (1024 audio frames, 0 video frames) to 0.021333 s (1024/48000), 1 out
                  sink CollectingSink: wrote 1 sample (2048 bytes), at most 0 queued
                  0 warnings
                """)
    }

    @Test func timingShowsTheDecodeTimeOnlyWhenSet() {
        let audio = SampleTiming.audio(startFrame: 48_000, frameCount: 1024, sampleRate: 48_000)
        #expect(audio.description == "pts 1 s, dts 1 s, duration 0.021333 s (1024/48000)")
        let video = SampleTiming(
            presentationTime: MediaTime(value: 3, timescale: 30), duration: MediaTime(value: 1, timescale: 30))
        #expect(video.description == "pts 0.1 s, duration 0.033333 s (1/30)")
    }
}
