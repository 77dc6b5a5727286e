import MediaCore
import Testing

/// `framesRead` counts audio frames only; pictures are counted in `videoFramesRead` (a video source's
/// frames never add to the audio frame count).
@Suite(.timeLimit(.minutes(2))) struct ProgressFrameCountTests {
    /// Raw video frames as a decoder or a Y4M reader delivers them: one picture per sample, frame count 1.
    func pictures(_ count: Int) -> [MediaSample] {
        (0..<count).map { index in
            let start = MediaTime(value: Int64(index), timescale: 25)
            return MediaSample(
                format: .video(.raw(.yuv420p, width: 16, height: 16)), data: [UInt8(index)],
                timing: SampleTiming(presentationTime: start, duration: MediaTime(value: 1, timescale: 25)),
                frameCount: 1)
        }
    }

    /// PCM samples of `frames` frames each at 8 kHz.
    func pcm(_ count: Int, frames: Int) -> [MediaSample] {
        (0..<count).map { index in
            MediaSample(
                format: .audio(.pcm(.s16, sampleRate: 8000, channels: 1)), data: Array(repeating: 0, count: frames * 2),
                timing: .audio(startFrame: Int64(index * frames), frameCount: frames, sampleRate: 8000),
                frameCount: frames)
        }
    }

    @Test func pipelineCountsPicturesApartFromAudioFrames() throws {
        var video = Pipeline(source: ArraySource(pictures(10)), sink: CollectingSink())
        let videoProgress = try video.run()
        #expect(videoProgress.framesRead == 0)
        #expect(videoProgress.videoFramesRead == 10)
        #expect(videoProgress.samplesRead == 10)

        var audio = Pipeline(source: ArraySource(pcm(3, frames: 160)), sink: CollectingSink())
        let audioProgress = try audio.run()
        #expect(audioProgress.framesRead == 480)
        #expect(audioProgress.videoFramesRead == 0)
    }

    @Test func graphBranchesCountPicturesApartFromAudioFrames() throws {
        var graph = MediaGraph()
        let audio = graph.addBranch("audio", source: ArraySource(pcm(5, frames: 160)))
        let video = graph.addBranch("video", source: ArraySource(pictures(4)))
        graph.addSink(SampleCollector(), tracks: [audio, video])
        let progress = try graph.runSynchronously()
        #expect(progress.branches[0].framesRead == 800)
        #expect(progress.branches[0].videoFramesRead == 0)
        #expect(progress.branches[1].framesRead == 0)
        #expect(progress.branches[1].videoFramesRead == 4)
    }
}
