import MediaPipeline
import MediaTestSupport
import Testing

/// The demuxer's errors name it as their stage, like every other reader's.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerStageTests {
    @Test func openErrorsNameTheDemuxer() {
        do {
            _ = try ContainerDemuxer(bytes: Array("not a container, only some text".utf8))
            Issue.record("opened text as a container")
        } catch {
            #expect(error.stage == "ContainerDemuxer")
        }
        do {
            _ = try ContainerDemuxer(path: "/nonexistent/issue13.mp4")
            Issue.record("opened a file that does not exist")
        } catch {
            #expect(error.stage == "ContainerDemuxer")
        }
    }
}
