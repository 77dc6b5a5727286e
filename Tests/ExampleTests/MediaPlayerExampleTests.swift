import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `media-player` as a user runs it: a private PulseAudio daemon's null sink for the audio (what it plays
/// is recorded from the sink's monitor) and a private Xvfb for the window (judged by `xwd` screenshots and
/// by ffmpeg's decoding of the same file), keys sent to the window as a keyboard sends them (XTest, from
/// python3-xlib).
@Suite(.tags(.realTime), .timeLimit(.minutes(3))) struct MediaPlayerExampleTests {
    static let player = TestPaths.executable("media-player")

    /// The monitor of `daemon`'s sink, recorded by `parec` (mono float, 48 kHz, 10-ms fragments) on a thread
    /// of the test's until ``stop()``: each read from its pipe stamped with the host time it arrived, so the
    /// frames it ends with were rendered by then. (Not ``AudioCaptureSource``: it stamps the first fragment
    /// with the server's latency estimate, which for a null sink's monitor depends on the latency of the
    /// streams playing into it, and every later one by frame count from there.)
    final class MonitorRecording: @unchecked Sendable {
        // @unchecked: `chunks` is written by the reading thread only until `stop()` joins it, and read only
        // after that.
        private let parec: Process
        private var chunks: [(arrived: Double, frames: [Float])] = []
        private let done = DispatchSemaphore(value: 0)
        private let stopping = Locked(false)

        init(_ daemon: PulseDaemon) throws {
            parec = Process()
            parec.executableURL = URL(fileURLWithPath: "/usr/bin/parec")
            parec.arguments = [
                "--device=\(daemon.monitorName)", "--raw", "--format=float32le", "--channels=1", "--rate=48000",
                "--latency-msec=10"
            ]
            parec.environment = daemon.environment
            let pipe = Pipe()
            parec.standardOutput = pipe
            try parec.run()
            try pipe.fileHandleForWriting.close()  // else the pipe never ends
            let descriptor = pipe.fileHandleForReading.fileDescriptor
            Thread.detachNewThread { [self] in
                var carry: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                // Polls (100 ms at a time) until stop() asks the thread to end.
                while !stopping.withLock({ $0 }) {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&ready, 1, 100) > 0 else { continue }
                    let count = read(descriptor, &buffer, buffer.count)
                    let arrived = MediaClock.hostTime.seconds ?? 0
                    if count <= 0 { break }
                    carry += buffer[0..<count]
                    let whole = carry.count / 4 * 4
                    let frames = carry[0..<whole].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
                    carry.removeFirst(whole)
                    chunks.append((arrived, frames))
                }
                done.signal()
            }
        }

        /// Ends the recording; its reads, each with the host time it arrived at.
        func stop() -> [(arrived: Double, frames: [Float])] {
            stopping.withLock { $0 = true }
            done.wait()
            parec.terminate()
            return chunks
        }
    }

    /// When each click reached the monitor: the arrival of the read holding its first loud frame (above
    /// 0.2) after half a second of quiet. (A null sink renders a block at a time, so a read's frames were
    /// all rendered by its arrival, not spread before it; PulseAudio counts a frame *heard* the sink's
    /// latency after that, 5 to 20 ms here, and so does the player's clock.)
    static func clicks(in recording: [(arrived: Double, frames: [Float])], sampleRate: Double = 48_000) -> [Double] {
        var onsets: [Double] = []
        var lastLoud = -Double.infinity
        var position = 0.0
        for (arrived, frames) in recording {
            for (index, value) in frames.enumerated() where abs(value) > 0.2 {
                let time = position + Double(index) / sampleRate
                if time - lastLoud > 0.5 { onsets.append(arrived) }
                lastLoud = time
            }
            position += Double(frames.count) / sampleRate
        }
        return onsets
    }

    /// `--frame-log`'s lines: each frame's presentation time and the host time it appeared.
    static func frameLog(_ path: String) throws -> [(pts: Double, shown: Double, clock: Double)] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Double], "\(line)")
            return (try #require(object["pts"]), try #require(object["shown"]), try #require(object["clock"]))
        }
    }

    /// Sends the keys argv[3...] (X keysym names) to the window: it is given the focus, then each key is
    /// pressed and released through XTest, as a keyboard does.
    static let sendKeys =
        CameraRecorderScreenTests.findWindow + """
            import time
            from Xlib import XK
            from Xlib.ext import xtest
            w.set_input_focus(X.RevertToParent, X.CurrentTime)
            d.sync()
            time.sleep(0.1)
            for name in sys.argv[3:]:
                code = d.keysym_to_keycode(XK.string_to_keysym(name))
                xtest.fake_input(d, X.KeyPress, code)
                xtest.fake_input(d, X.KeyRelease, code)
                d.sync()
                time.sleep(0.05)
            """

    static func press(_ keys: [String], on screen: XvfbServer, in dir: TemporaryDirectory) throws {
        let script = dir.file("keys.py")
        try sendKeys.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try ExternalTool.run("/usr/bin/python3", [script, screen.display, "media-player"] + keys)
        #expect(result.status == 0, "no media-player window to press \(keys) in: \(result.stderr)")
    }

    /// PSNR in dB of two rgb24 pictures of the same size, over every channel.
    static func psnr(_ a: Data, _ b: Data) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0.0
        for (x, y) in zip(a, b) { sum += (Double(x) - Double(y)) * (Double(x) - Double(y)) }
        let mean = sum / Double(a.count)
        return mean == 0 ? .infinity : 10 * log10(255 * 255 / mean)
    }

    /// Starts media-player with both the daemon's and the screen's environment.
    static func start(
        _ arguments: [String], daemon: PulseDaemon, screen: XvfbServer?, in dir: TemporaryDirectory
    ) throws -> ChildProcess {
        var environment = daemon.environment
        environment["DISPLAY"] = screen?.display
        return try ChildProcess(player, arguments, environment: environment, outputBase: dir.file("media-player"))
    }

    /// A 30-s file with a white frame and a click every second, at once (1, 2, … 29 s): each white frame is
    /// shown when its click is heard, within 20 ms (the host times of the flash
    /// frames in `--frame-log` against those of the clicks recorded from the sink's monitor), but for at
    /// most two the player itself reports drawn late, which are judged at the time they were due.
    @Test func eachFlashIsShownWhenItsClickIsHeard() throws {
        let dir = try TemporaryDirectory()
        let file = dir.file("flash-click.mkv")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=160x120:r=30:d=30", "-f", "lavfi", "-i",
            "aevalsrc=0.8*sin(2*PI*2000*t)*lt(mod(t\\,1)\\,0.01):s=48000:d=30", "-vf",
            "drawbox=c=white:t=fill:enable='lt(mod(t,1),0.02)'", "-c:v", "libx264", "-g", "30", "-c:a", "pcm_s16le",
            file
        ])
        let daemon = try PulseDaemon()
        defer { daemon.stop() }
        let screen = try XvfbServer(width: 320, height: 240)
        defer { screen.stop() }
        let recording = try MonitorRecording(daemon)
        let log = dir.file("frames.jsonl")
        let player = try Self.start([file, "--frame-log", log, "--quiet"], daemon: daemon, screen: screen, in: dir)
        defer { player.kill() }
        #expect(player.wait(timeout: 60), "media-player did not end")
        let heard = Self.clicks(in: recording.stop())
        #expect(player.result.status == 0, "\(player.result.stderr)")
        let frames = try Self.frameLog(log)
        let flashes = frames.filter { $0.pts >= 0.5 && abs($0.pts - $0.pts.rounded()) < 0.005 }
        #expect(heard.count >= 26, "\(heard.count) clicks heard")
        #expect(flashes.count >= 28, "\(flashes.count) flash frames shown of \(frames.count) frames")
        // A flash drawn late because the window's thread did not run in time (this machine is loaded on
        // purpose: other suites run beside this one) is no sync error if the player says so: its log gives
        // its clock when the frame appeared, so `clock - pts` is how late it was drawn. A flash more than
        // 20 ms from its click that the player reports drawn late (by over 5 ms) is judged at the time it was
        // due, and there may be two of them; every other is judged as it appeared. (Two fresh-clone runs
        // under load: one flash at 119 ms, every other within 14; one at 23 ms, every other within 16.)
        var differences: [Double] = []
        var drawnLate: [Int] = []
        for flash in flashes {
            guard let click = heard.min(by: { abs($0 - flash.shown) < abs($1 - flash.shown) }),
                abs(click - flash.shown) < 0.5
            else { continue }
            let lateness = flash.clock - flash.pts
            if abs(flash.shown - click) > 0.020 && lateness > 0.005 {
                drawnLate.append(Int((lateness * 1000).rounded()))
                differences.append(flash.shown - lateness - click)
            } else {
                differences.append(flash.shown - click)
            }
        }
        #expect(differences.count >= 26, "\(differences.count) flashes matched a click")
        let worst = differences.map(abs).max() ?? .infinity
        #expect(worst <= 0.020, "video − audio per flash, ms: \(differences.map { Int(($0 * 1000).rounded()) })")
        #expect(drawnLate.count <= 2, "flashes drawn late, ms: \(drawnLate)")
    }

    /// Space pauses both (the window keeps its picture, the monitor hears silence); the right arrow, paused,
    /// seeks exactly 10 s on: the window shows the frame at that time (an `xwd` screenshot of it is ffmpeg's
    /// decoding of that frame, RGB PSNR ≥ 40 dB); q quits with status 0.
    @Test func keysPauseAndSeekAndTheWindowShowsTheFrame() throws {
        let dir = try TemporaryDirectory()
        let file = dir.file("pattern.mp4")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i",
            "sine=frequency=440:sample_rate=48000", "-t", "20", "-c:v", "libx264", "-bf", "2", "-g", "50",
            "-pix_fmt", "yuv420p", "-c:a", "aac", file
        ])
        let daemon = try PulseDaemon()
        defer { daemon.stop() }
        let screen = try XvfbServer(width: 320, height: 240)
        defer { screen.stop() }
        let log = dir.file("frames.jsonl")
        let player = try Self.start([file, "--frame-log", log], daemon: daemon, screen: screen, in: dir)
        defer { player.kill() }
        _ = try CameraRecorderScreenTests.waitForPicture("the window shows the movie", on: screen)
        Thread.sleep(forTimeInterval: 1.5)
        try Self.press(["space"], on: screen, in: dir)
        Thread.sleep(forTimeInterval: 0.5)
        let recording = try MonitorRecording(daemon)
        let pausedAt = MediaClock.hostTime.seconds ?? 0
        let before = try screen.screenshot()
        Thread.sleep(forTimeInterval: 1)
        let after = try screen.screenshot()
        let heard = recording.stop().flatMap(\.frames)
        #expect(before == after, "the picture moved while paused")
        #expect(!heard.isEmpty && heard.allSatisfy { abs($0) < 0.001 }, "the monitor heard sound while paused")
        try Self.press(["Right"], on: screen, in: dir)
        var seeked = after
        do {
            try waitUntil(
                "the window shows another frame after the seek", timeout: .seconds(10), every: .milliseconds(200)
            ) {
                seeked = try screen.screenshot()
                return seeked != after
            }
        } catch {
            player.kill()
            Issue.record("\(error): \(player.result.stderr.suffix(300))")
            return
        }
        Thread.sleep(forTimeInterval: 0.3)
        seeked = try screen.screenshot()  // the first frame after the seek may not have been whole
        try Self.press(["q"], on: screen, in: dir)
        #expect(player.wait(timeout: 20), "media-player went on after q")
        #expect(player.result.status == 0, "\(player.result.stderr)")

        let frames = try Self.frameLog(log)
        let paused = try #require(frames.last { $0.shown < pausedAt }, "no frame before the pause")
        let shown = try #require(frames.last, "no frame shown")
        #expect(shown.shown > pausedAt, "no frame shown after the seek: \(frames.suffix(3))")
        #expect(abs(shown.pts - (paused.pts + 10)) <= 0.08, "paused at \(paused.pts), seeked to \(shown.pts)")
        let reference = try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-ss", String(format: "%.3f", shown.pts), "-i", file, "-frames:v", "1", "-f", "rawvideo",
                "-pix_fmt", "rgb24", "-"
            ]
        ).stdout
        // Drawn at its own size the window replicates each chroma sample over its 2×2 block, as swscale's
        // unscaled conversion does: about 49 dB for the same frame (27.5 when the window filtered the
        // chroma linearly), 12.6 for the frame before the seek.
        let similarity = Self.psnr(seeked, reference)
        #expect(similarity >= 40, "the window is \(similarity) dB from ffmpeg's frame at \(shown.pts) s")
    }

    /// Without a display (and without `--no-display`) one line says so, status 1; with `--no-display` the
    /// audio plays to the end alone, status 0.
    @Test func withoutADisplay() throws {
        let dir = try TemporaryDirectory()
        let file = dir.file("short.mp4")
        try AVFixture.makeMP4(file, seconds: 1)
        let daemon = try PulseDaemon()
        defer { daemon.stop() }
        let headless = try Self.start([file], daemon: daemon, screen: nil, in: dir)
        defer { headless.kill() }
        #expect(headless.wait(timeout: 20), "media-player did not end")
        let refused = headless.result
        #expect(refused.status == 1, "\(refused.stderr)")
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1 && refused.stderr.contains("no display"), "\(refused.stderr)")
        let audioOnly = try Self.start([file, "--no-display"], daemon: daemon, screen: nil, in: dir)
        defer { audioOnly.kill() }
        #expect(audioOnly.wait(timeout: 20), "media-player --no-display did not end")
        #expect(audioOnly.result.status == 0, "\(audioOnly.result.stderr)")
        #expect(audioOnly.result.stderr.contains("played to the end"), "\(audioOnly.result.stderr)")
    }
}
