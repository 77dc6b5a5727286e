import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `VideoCaptureSource` on a private Xvfb painted by ImageMagick's `display` (nobody here wrote it): frames
/// of the screen's size on the frame-rate grid of the clock, whose pixels are an `xwd` screenshot's; a stop
/// from another thread ends it within a frame; the X server going away ends it with `deviceLost`. And the
/// errors of opening what is not there (this machine has no camera: V4L2 is tested for its errors).
@Suite(.tags(.realTime), .timeLimit(.minutes(2)), .ffmpegLeakGate) struct VideoCaptureSourceTests {
    /// A screen painted with SMPTE bars.
    static func paintedScreen(_ dir: TemporaryDirectory) throws -> (XvfbServer, ChildProcess) {
        let screen = try XvfbServer(width: 320, height: 240)
        let bars = dir.file("bars.png")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "smptebars=size=320x240", "-frames:v", "1", bars
        ])
        let painter = try screen.spawn("display", ["-window", "root", bars])
        try waitUntil("display painted the root window", timeout: .seconds(20), every: .milliseconds(200)) {
            guard let shot = try? screen.screenshot(), shot.count == 320 * 240 * 3 else { return false }
            return shot[(100 * 320 + 20) * 3..<(100 * 320 + 21) * 3].contains { $0 > 40 }
        }
        return (screen, painter)
    }

    @Test func framesOfTheScreenOnTheClocksFrameGrid() throws {
        let dir = try TemporaryDirectory()
        let (screen, painter) = try Self.paintedScreen(dir)
        defer {
            painter.kill()
            screen.stop()
        }
        let clock = MediaClock()
        let capture = try VideoCaptureSource(
            .screen(display: screen.display), configuration: .init(frameRate: FrameRate(30), showsCursor: false),
            clock: clock)
        #expect(capture.format.width == 320 && capture.format.height == 240 && capture.format.pixelFormat == .yuv420p)
        var frames: [MediaSample] = []
        while frames.count < 20, let frame = try capture.next() { frames.append(frame) }
        #expect(frames.count == 20)
        let ticks = frames.map { $0.timing.presentationTime.converted(to: 30) }
        #expect(ticks.allSatisfy { $0.isNumeric && $0.timescale == 30 }, "not on the 1/30 s grid: \(ticks)")
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0 < $1 }, "\(ticks)")
        // Stamped when captured: the last frame is no later than now, and not more than 0.2 s before.
        let age = clock.now - frames[19].timing.presentationTime
        #expect(age > MediaTime(value: -1, timescale: 30) && age < MediaTime(value: 2, timescale: 10), "age \(age)")
        #expect(capture.frameCount == 20 && capture.droppedFrameCount <= 2, "\(capture.droppedFrameCount) dropped")

        // Its pixels, converted to RGB as ffmpeg converts, against xwd's screenshot of the same screen.
        let converter = try VideoConverter(to: .rgb24)
        var rgb: MediaSample?
        try converter.process(frames[19]) { rgb = $0 }
        let ours = try #require(rgb).planes[0]
        let shot = try screen.screenshot()
        var sum = 0.0
        for index in 0..<min(ours.count, shot.count) {
            let difference = Double(ours[index]) - Double(shot[index])
            sum += difference * difference
        }
        let psnr = 10 * log10(255 * 255 / max(sum / Double(max(1, ours.count)), 1e-9))
        #expect(ours.count == shot.count && psnr >= 30, "PSNR \(psnr) dB against xwd's screenshot")
    }

    @Test func aStopEndsItAndALostServerIsDeviceLost() throws {
        let dir = try TemporaryDirectory()
        let (screen, painter) = try Self.paintedScreen(dir)
        defer { painter.kill() }
        let capture = try VideoCaptureSource(.screen(display: screen.display), clock: MediaClock())
        _ = try capture.next()
        let signal = capture.stopSignal
        let asked = Date()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { signal.request() }
        while try capture.next() != nil {}
        let waited = Date().timeIntervalSince(asked)
        #expect(waited >= 0.2, "ended \(waited) s after the stop was asked, before it was")

        let second = try VideoCaptureSource(.screen(display: screen.display), clock: MediaClock())
        second.stallTimeout = .seconds(2)
        _ = try second.next()
        screen.stop()
        do {
            while try second.next() != nil {}
            Issue.record("the capture ended without an error when its X server went away")
        } catch {
            #expect(error.code == .deviceLost && error.message.contains(screen.display), "\(error)")
        }
    }

    @Test func whatIsNotThereIsATypedErrorNamingIt() throws {
        let videoNodes =
            (try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.filter { $0.hasPrefix("video") } ?? []
        if videoNodes.isEmpty { #expect(try VideoDevice.cameras().isEmpty) }
        for (path, code, words) in [
            ("/dev/video-not-here", MediaError.Code.unavailable, "/dev/video-not-here"),
            ("/dev/null", .invalidArgument, "not a V4L2 video device")
        ] {
            do {
                _ = try VideoCaptureSource(.camera(path: path))
                Issue.record("opened \(path)")
            } catch {
                #expect(error.code == code && error.message.contains(words), "\(error)")
            }
        }
        // A display no server answers at.
        var free = 990
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(free)") { free -= 1 }
        do {
            _ = try VideoCaptureSource(.screen(display: ":\(free)"))
            Issue.record("opened display :\(free)")
        } catch {
            #expect(error.code == .unavailable && error.message.contains(":\(free)"), "\(error)")
        }
        #expect(throws: MediaError.self) {
            try VideoCaptureSource(.screen(display: ":0"), configuration: .init(width: 100))
        }
    }
}
