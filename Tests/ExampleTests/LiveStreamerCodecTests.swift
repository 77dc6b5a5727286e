import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `live-streamer --video-codec` and `--audio-codec` (issue 32) to a real receiver on loopback.
@Suite(.tags(.realTime), .timeLimit(.minutes(5)), .ffmpegLeakGate) struct LiveStreamerCodecTests {
    static let streamer = TestPaths.executable("live-streamer")

    /// `live-streamer --video-codec hevc --audio-codec opus` over SRT to ffmpeg's listener: MPEG-TS with
    /// HEVC and Opus that decodes without an error.
    @Test func liveStreamerSendsHEVCAndOpusOverSRT() throws {
        let dir = try TemporaryDirectory()
        let port = try LoopbackPort.free()
        let received = dir.file("got.ts")
        let receiver = try ChildProcess(
            "ffmpeg",
            ["-nostdin", "-y", "-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=listener", "-c", "copy", received],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("ffmpeg"))
        defer { receiver.kill() }
        // The listener binds its UDP port.
        for _ in 0..<50 where LoopbackPort.isFree(port, udp: true) { Thread.sleep(forTimeInterval: 0.1) }
        let run = try ExternalTool.run(
            Self.streamer,
            [
                "--to", "srt://127.0.0.1:\(port)", "--pattern", "--size", "320x240", "--fps", "25", "--tone", "440",
                "--duration", "2", "--video-codec", "hevc", "--audio-codec", "opus", "--quiet"
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(receiver.wait(timeout: 10), "the receiver did not see the end of the stream")
        let streams = try VideoCodecExampleTests.streams(received)
        #expect(streams.map(\.codec) == ["hevc", "opus"])
        #expect((streams.first?.frames ?? 0) >= 45, "\(streams)")
        let decode = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", received, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }
}
