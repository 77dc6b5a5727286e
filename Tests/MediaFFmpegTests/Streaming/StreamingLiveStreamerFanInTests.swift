import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `live-streamer` with a picture-in-picture, an image and text drawn on the video and a second audio
/// input mixed in, changed by standard-input commands while it streams (to an HLS playlist and a
/// recording): the text moves where it is told, the muted input leaves the mix and the other plays at
/// its new gain, and everything decodes.
@Suite(.tags(.realTime), .timeLimit(.minutes(3)), .ffmpegLeakGate) struct StreamingLiveStreamerFanInTests {
    /// The luma of the frame at `seconds` of `file`, 320x240.
    static func luma(_ file: String, at seconds: Double) throws -> [UInt8] {
        [UInt8](
            try ExternalTool.check(
                "ffmpeg",
                [
                    "-v", "error", "-ss", "\(seconds)", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt",
                    "gray", "-"
                ]
            ).stdout)
    }

    /// The amplitude of `hertz` in `values` (mono, 48 kHz), by projection on a whole number of cycles.
    static func amplitude(_ values: ArraySlice<Float>, hertz: Double) -> Double {
        var re = 0.0
        var im = 0.0
        for (offset, value) in values.enumerated() {
            let phase = 2 * Double.pi * hertz * Double(offset) / 48_000
            re += Double(value) * cos(phase)
            im += Double(value) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(values.count)
    }

    @Test func overlaysAndASecondInputChangedByCommandsWhileStreaming() throws {
        let dir = try TemporaryDirectory()
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25", "-frames:v", "200", "-pix_fmt",
                "yuv420p", dir.file("pip.y4m")
            ])
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=c=red@0.5:s=40x20,format=rgba", "-frames:v", "1",
                dir.file("logo.png")
            ])
        try ExternalTool.check(
            "sox",
            [
                "-n", "-r", "48000", "-c", "2", "-b", "16", dir.file("music.wav"), "synth", "8", "sine", "1000", "vol",
                "0.5"
            ])
        let fifo = dir.file("commands")
        #expect(mkfifo(fifo, 0o600) == 0)
        let commands = try #require(FileHandle(forUpdatingAtPath: fifo))
        defer { try? commands.close() }
        let streamer = try ChildProcess(
            TestPaths.executable("live-streamer"),
            [
                "--pattern", "--size", "320x240", "--fps", "25", "--tone", "440", "--preset", "ultrafast", "--duration",
                "5",
                "--to", dir.file("hls/live.m3u8"), "--hls-list-size", "0", "--record", dir.file("main.mp4"),
                "--pip", dir.file("pip.y4m"), "--overlay-image", dir.file("logo.png"), "--overlay-text", "Hello",
                "--mix-input", dir.file("music.wav")
            ], environment: ProcessInfo.processInfo.environment, outputBase: dir.file("streamer"), standardInput: fifo)
        defer { streamer.kill() }
        let started = Date()
        func send(_ line: String, at seconds: Double) {
            Thread.sleep(forTimeInterval: max(0, seconds - Date().timeIntervalSince(started)))
            commands.write(Data((line + "\n").utf8))
        }
        send("overlay text 100 100", at: 1.5)
        send("mute main", at: 1.5)
        send("gain mix 0.5", at: 1.5)
        send("overlay pip hide", at: 1.5)
        send("overlay logo 1 1", at: 1.5)
        #expect(streamer.wait(timeout: 60), "live-streamer did not end")
        let stderr = streamer.result.stderr
        #expect(streamer.exitStatus == 0, "\(stderr)")
        for answer in [
            "text at 100,100", "main muted", "mix gain 0.5", "pip hidden", "no overlay 'logo' (image, pip, text)"
        ] {
            #expect(stderr.contains(answer), "no '\(answer)' in: \(stderr)")
        }
        for file in [dir.file("main.mp4"), dir.file("hls/live.m3u8")] {
            let decode = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", file, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(file): \(decode.stderr)")
        }
        // The text's black box: not at (100, 100) at first, there after the command.
        let early = try Self.luma(dir.file("main.mp4"), at: 0.5)
        let late = try Self.luma(dir.file("main.mp4"), at: 4)
        #expect(early.count == 320 * 240 && late.count == 320 * 240)
        #expect(late[103 * 320 + 103] < 20, "no text box at (100, 100) after the command")
        #expect(early[103 * 320 + 103] > 20, "a text box at (100, 100) before the command")
        // The pip (bottom right, 80x60 at 224,164), hidden: testsrc2's picture varies down a column, the
        // pattern's bars do not.
        func columnVaries(_ frame: [UInt8]) -> Bool {
            let column: [UInt8] = (170..<220).map { (row: Int) -> UInt8 in frame[row * 320 + 260] }
            return Set(column).count > 3
        }
        #expect(columnVaries(early), "no picture-in-picture at first")
        #expect(!columnVaries(late), "the hidden picture-in-picture is still drawn")
        // Audio (the left channel): the tone (440 Hz) muted after the command, the music (1 kHz, 0.5) at gain 0.5.
        let audio = RawAudio.floats(
            try ExternalTool.check(
                "ffmpeg",
                ["-v", "error", "-i", dir.file("main.mp4"), "-af", "pan=mono|c0=FL", "-ar", "48000", "-f", "f32le", "-"]
            ).stdout)
        #expect(audio.count > 4 * 48_000)
        // Before the command (sent 1.5 s after the start, by the test's clock): the tone at its level in
        // some 100 ms window (a loaded machine may start the live mix with a few late buffers).
        let before = stride(from: 0, to: 48_000 * 14 / 10, by: 4_800).map {
            Self.amplitude(audio[$0..<($0 + 4_800)], hertz: 440)
        }
        let after = audio[(3 * 48_000)..<(4 * 48_000)]
        #expect((before.max() ?? 0) > 0.45, "the tone is not in the mix at first: \(before)")
        #expect(Self.amplitude(after, hertz: 440) < 0.01, "the muted tone is still in the mix")
        let music = Self.amplitude(after, hertz: 1000)
        #expect(abs(20 * log10(music / 0.25)) < 1, "the music at gain 0.5 is at \(music), not 0.25")
    }
}
