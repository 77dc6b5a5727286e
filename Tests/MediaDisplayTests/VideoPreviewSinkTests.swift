import Foundation
import MediaCore
import MediaDisplay
import MediaTestSupport
import Testing

/// `VideoPreviewSink` on a private Xvfb, judged by `xwd` screenshots (no code of ours reads the screen):
/// the picture is letterboxed with its aspect kept, late frames are dropped and counted, the queue
/// drops its oldest when full, a frame it cannot show is a typed error, and `finish()` ends on a clock
/// that stopped.
@Suite(.tags(.realTime), .timeLimit(.minutes(2))) struct VideoPreviewSinkTests {
    /// A `width`×`height` yuv420p frame of one colour (Y, Cb, Cr) at `frame`/30 s.
    static func frame(_ index: Int, width: Int, height: Int, yuv: (UInt8, UInt8, UInt8)) -> MediaSample {
        let format = VideoFormat(
            codec: .raw(.yuv420p), width: width, height: height, frameRate: FrameRate(30),
            bytesPerRow: [width, width / 2, width / 2])
        let planes = [
            [UInt8](repeating: yuv.0, count: width * height),
            [UInt8](repeating: yuv.1, count: width * height / 4),
            [UInt8](repeating: yuv.2, count: width * height / 4)
        ]
        let timing = SampleTiming(
            presentationTime: MediaTime(value: Int64(index), timescale: 30),
            duration: MediaTime(value: 1, timescale: 30))
        return MediaSample(format: .video(format), planes: planes, timing: timing, frameCount: 1)
    }

    /// A `width`×`height` yuv420p frame at 0 s, its left half the colour `left` (Y, Cb, Cr), its right half
    /// `right`: an edge in luma, in chroma or in both.
    static func edge(width: Int, height: Int, left: (UInt8, UInt8, UInt8), right: (UInt8, UInt8, UInt8))
        -> MediaSample
    {
        let format = VideoFormat(
            codec: .raw(.yuv420p), width: width, height: height, frameRate: FrameRate(30),
            bytesPerRow: [width, width / 2, width / 2])
        func plane(_ columns: Int, _ rows: Int, _ value: KeyPath<(UInt8, UInt8, UInt8), UInt8>) -> [UInt8] {
            (0..<rows).flatMap { _ in
                (0..<columns).map { $0 < columns / 2 ? left[keyPath: value] : right[keyPath: value] }
            }
        }
        let planes = [plane(width, height, \.0), plane(width / 2, height / 2, \.1), plane(width / 2, height / 2, \.2)]
        let timing = SampleTiming(presentationTime: .zero, duration: MediaTime(value: 1, timescale: 30))
        return MediaSample(format: .video(format), planes: planes, timing: timing, frameCount: 1)
    }

    /// Points SDL (this process's `DISPLAY`) at `screen`.
    static func useDisplay(_ screen: XvfbServer) { setenv("DISPLAY", screen.display, 1) }

    /// The `rgb24` pixel at `x`, `y` of a screenshot `width` pixels wide.
    static func pixel(_ shot: Data, _ x: Int, _ y: Int, width: Int) -> (Int, Int, Int) {
        let at = (y * width + x) * 3
        return (Int(shot[at]), Int(shot[at + 1]), Int(shot[at + 2]))
    }

    @Test func aWideFrameInATallWindowIsLetterboxed() throws {
        let screen = try XvfbServer(width: 400, height: 400)
        defer { screen.stop() }
        Self.useDisplay(screen)
        defer { unsetenv("DISPLAY") }
        let preview = try VideoPreviewSink(title: "letterbox", width: 400, height: 400)
        // Pure white (Y 235, neutral chroma) 160×90: 16:9 in a square window, 400×225 centred.
        try preview.write(Self.frame(0, width: 160, height: 90, yuv: (235, 128, 128)))
        var shot = Data()
        try waitUntil("the frame is drawn", timeout: .seconds(10), every: .milliseconds(100)) {
            guard let taken = try? screen.screenshot(), taken.count == 400 * 400 * 3 else { return false }
            shot = taken
            return Self.pixel(taken, 200, 200, width: 400).0 > 200
        }
        let top = 200 - 225 / 2
        for (x, y) in [(200, top - 6), (10, 5), (390, 394)] {
            #expect(Self.pixel(shot, x, y, width: 400) == (0, 0, 0), "(\(x), \(y)) is outside the picture")
        }
        for (x, y) in [(200, top + 6), (5, 200), (394, 200), (200, 400 - top - 6)] {
            #expect(Self.pixel(shot, x, y, width: 400).0 > 230, "(\(x), \(y)) is inside the picture")
        }
        #expect(preview.statistics.shownFrames == 1)
        #expect(preview.statistics.windowWidth == 400 && preview.statistics.windowHeight == 400)
        try preview.finish()
        #expect(preview.statistics.isClosed)
    }

    /// Drawn at its own size, the window is swscale's unscaled conversion of the frame (each chroma sample
    /// over its 2×2 block, not blended with the next: a red/cyan edge stays sharp); scaled 4×, a black/white
    /// edge is smoothed (linear filtering).
    @Test func atItsOwnSizeThePictureIsFFmpegsAndScaledItIsSmoothed() throws {
        let screen = try XvfbServer(width: 256, height: 256)
        defer { screen.stop() }
        Self.useDisplay(screen)
        defer { unsetenv("DISPLAY") }
        let chroma = Self.edge(width: 64, height: 64, left: (81, 90, 240), right: (170, 166, 16))
        var preview = try VideoPreviewSink(title: "own size")
        try preview.write(chroma)
        var shot = Data()
        try waitUntil("the frame is drawn", timeout: .seconds(10), every: .milliseconds(100)) {
            guard let taken = try? screen.screenshot(), taken.count == 256 * 256 * 3 else { return false }
            shot = taken
            return taken.contains { $0 > 200 }
        }
        // Where the window is (SDL places it, centred here): its top left pixel is the first red one.
        let first = try #require(stride(from: 0, to: shot.count, by: 3).first { shot[$0] > 200 }) / 3
        let (left, top) = (first % 256, first / 256)
        try preview.finish()
        let raw = chroma.planes.reduce(Data()) { $0 + Data($1) }
        let reference = try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "64x64", "-i", "-", "-f", "rawvideo",
                "-pix_fmt", "rgb24", "-"
            ],
            stdin: raw
        ).stdout
        for x in [0, 30, 31, 32, 33, 63] {
            let shown = Self.pixel(shot, left + x, top + 32, width: 256)
            let expected = Self.pixel(reference, x, 32, width: 64)
            let apart = max(abs(shown.0 - expected.0), abs(shown.1 - expected.1), abs(shown.2 - expected.2))
            #expect(apart <= 3, "column \(x): the window shows \(shown), ffmpeg \(expected)")
        }

        preview = try VideoPreviewSink(title: "scaled", width: 256, height: 256)
        try preview.write(Self.edge(width: 64, height: 64, left: (16, 128, 128), right: (235, 128, 128)))
        try waitUntil("the frame is drawn", timeout: .seconds(10), every: .milliseconds(100)) {
            guard let taken = try? screen.screenshot() else { return false }
            shot = taken
            return Self.pixel(taken, 250, 128, width: 256).0 > 200 && Self.pixel(taken, 5, 128, width: 256).0 < 20
        }
        try preview.finish()
        let across = (120..<136).map { Self.pixel(shot, $0, 128, width: 256).0 }
        #expect(across.contains { (30...225).contains($0) }, "a hard edge at 4×: \(across)")
    }

    @Test func lateFramesAreDroppedAndAStoppedClockDoesNotHoldTheEnd() throws {
        let screen = try XvfbServer(width: 160, height: 90)
        defer { screen.stop() }
        Self.useDisplay(screen)
        defer { unsetenv("DISPLAY") }
        // The clock stands at 1 s: frames 0...29 (each over by 1 s) are late, frame 30 is due, 31... never.
        let preview = try VideoPreviewSink(
            title: "late", pacing: .custom(now: { MediaTime.seconds(1) }), queueCapacity: 64)
        for index in 0..<40 { preview.submit(Self.frame(index, width: 160, height: 90, yuv: (81, 90, 240))) }
        try waitUntil("frame 30 is shown", timeout: .seconds(10), every: .milliseconds(50)) {
            preview.statistics.shownFrames == 1
        }
        #expect(preview.statistics.lateFrames == 30)
        try preview.finish()  // frames 31...39 never fall due: the end does not wait for them for ever
        let statistics = preview.statistics
        #expect(statistics.isClosed && statistics.shownFrames == 1 && statistics.lateFrames == 30)
        preview.submit(Self.frame(40, width: 160, height: 90, yuv: (81, 90, 240)))
        #expect(preview.statistics.framesAfterClose == 1)
    }

    @Test func aFullQueueDropsItsOldestAndOtherFormatsAreTypedErrors() throws {
        let screen = try XvfbServer(width: 160, height: 90)
        defer { screen.stop() }
        Self.useDisplay(screen)
        defer { unsetenv("DISPLAY") }
        // A clock that has not started: nothing is due, so the queue of 4 only fills.
        let preview = try VideoPreviewSink(title: "full", pacing: .custom(now: { nil }), queueCapacity: 4)
        for index in 0..<10 { preview.submit(Self.frame(index, width: 160, height: 90, yuv: (16, 128, 128))) }
        #expect(preview.statistics.overflowFrames == 6)
        #expect(preview.statistics.shownFrames == 0)
        let packet = MediaSample(
            format: .video(VideoFormat(codec: .h264, width: 160, height: 90)), data: [0, 0, 0, 1, 0x65],
            timing: SampleTiming(presentationTime: .zero, duration: MediaTime(value: 1, timescale: 30)), frameCount: 1)
        let error = #expect(throws: MediaError.self) { try preview.write(packet) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("VideoConverter") == true, "\(String(describing: error))")
        // A second window while this one is open: refused, by name.
        let second = #expect(throws: MediaError.self) { _ = try VideoPreviewSink(title: "second") }
        #expect(second?.code == .unavailable)
        preview.close()
        #expect(preview.statistics.isClosed)
    }
}
