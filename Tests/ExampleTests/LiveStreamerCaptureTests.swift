import Foundation
import MediaTestSupport
import Testing

/// `live-streamer --screen A --preview` into HLS, as a user streams a desktop: on a private Xvfb (A) the
/// bars ImageMagick's `display` paints, with the preview window on a second one (B). The stream's
/// frames are ffmpeg x11grab's picture of A (PSNR ≥ 35 dB) and count 3 s at 30 fps less the frames it
/// warns it dropped; an `xwd` screenshot of B is that picture too (≥ 30 dB); the summary counts the
/// frames the window showed; and two video inputs are refused in one line.
@Suite(.tags(.realTime), .timeLimit(.minutes(2))) struct LiveStreamerCaptureTests {
    static let streamer = TestPaths.executable("live-streamer")

    @Test func aScreenStreamedToHLSWithAPreview() throws {
        let dir = try TemporaryDirectory()
        let both = try ExternalTool.run(Self.streamer, ["--screen", ":1", "--pattern", "--to", dir.file("x.m3u8")])
        #expect(both.status == 64 && both.stderr.contains("give one of --pattern, --video, --camera and --screen"))

        let screens = try PreviewScreens(in: dir)
        defer { screens.stop() }
        let (screen, viewer) = (screens.screen, screens.viewer)
        let playlist = dir.file("live.m3u8")
        let streamer = try viewer.spawn(
            Self.streamer,
            ["--screen", screen.display, "--fps", "30", "--duration", "3", "--preview", "--to", playlist])
        defer { streamer.kill() }
        let (reference, result) = try CameraRecorderScreenTests.judgePreview(of: streamer, on: viewer, showing: screen)
        #expect(result.stderr.contains("preview: "), "\(result.stderr)")
        let frames = try ExternalTool.ffprobeJSON(
            playlist, ["-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames,width,height"])
        let stream = (frames["streams"] as? [[String: Any]])?.first ?? [:]
        let count = Int(stream["nb_read_frames"] as? String ?? "") ?? 0
        #expect(stream["width"] as? Int == 640 && stream["height"] as? Int == 360, "\(stream)")
        let dropped = CameraRecorderScreenTests.droppedFrames(in: result.stderr)
        #expect(count <= 92 && count + dropped >= 88, "\(count) frames in 3 s at 30 fps: \(result.stderr)")
        // The judges' own screenshots and grab run while it streams, and the grabber misses ticks then (18 of
        // 90 seen here): a third is the bound past which the capture itself is broken.
        #expect(dropped <= 30, "\(dropped) frames dropped: \(result.stderr)")
        let decoded = try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-ss", "2", "-i", playlist, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        ).stdout
        let streamed = CameraRecorderScreenTests.psnr(decoded, reference, width: 640, columns: 0..<640, rows: 0..<360)
        #expect(streamed >= 35, "the streamed picture is \(streamed) dB from ffmpeg's x11grab")
    }
}
