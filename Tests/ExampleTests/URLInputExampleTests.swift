import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `transcode` and `media-info` read URLs: files served over HTTP on loopback by Python's `http.server`,
/// judged against the same files read from disk (ffprobe's packet counts, media-info's own report).
@Suite(.timeLimit(.minutes(2))) struct URLInputExampleTests {
    /// Serves `dir` on a free loopback port until the returned process is killed.
    static func serve(_ dir: TemporaryDirectory) throws -> (ChildProcess, Int) {
        let port = try LoopbackPort.free()
        let server = try ChildProcess(
            "/usr/bin/python3", ["-m", "http.server", "--bind", "127.0.0.1", "--directory", dir.path, "\(port)"],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("http"))
        try waitUntil("the HTTP server listens", timeout: .seconds(10), every: .milliseconds(50)) {
            !LoopbackPort.isFree(port, udp: false) || !server.isRunning
        }
        return (server, port)
    }

    /// `seconds` of testsrc2 (H.264, a keyframe a second) and a sine (AAC) in MPEG-TS at `path`.
    static func makeTS(_ path: String, seconds: Int) throws {
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine",
                "-t", "\(seconds)", "-c:v", "libx264", "-g", "25", "-c:a", "aac", path
            ])
    }

    /// `transcode --input http://…/in.ts --copy` writes every packet of both streams; `media-info
    /// http://…/song.mp3 --json` reports what it reports for the file on disk; a missing URL is an error
    /// naming it, exit 1, from both.
    @Test func transcodeAndMediaInfoReadURLs() throws {
        let dir = try TemporaryDirectory()
        let ts = dir.file("in.ts")
        try Self.makeTS(ts, seconds: 2)
        let mp3 = dir.file("song.mp3")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=2", "-c:a", "libmp3lame", mp3])
        let (server, port) = try Self.serve(dir)
        defer { server.kill() }
        let base = "http://127.0.0.1:\(port)"

        let output = dir.file("out.mp4")
        let transcoded = try ExternalTool.run(
            TestPaths.executable("transcode"), ["--input", base + "/in.ts", "--output", output, "--copy"])
        #expect(transcoded.status == 0, "\(transcoded.stderr)")
        for stream in ["v:0", "a:0"] {
            #expect(
                try ExternalTool.packetCount(output, stream: stream)
                    == (try ExternalTool.packetCount(ts, stream: stream)),
                "\(stream)")
        }

        let mediaInfo = TestPaths.executable("media-info")
        let fromURL = try ExternalTool.run(mediaInfo, [base + "/song.mp3", "--json"])
        let fromFile = try ExternalTool.run(mediaInfo, [mp3, "--json"])
        #expect(fromURL.status == 0, "\(fromURL.stderr)")
        let urlReport = fromURL.output.replacingOccurrences(of: base + "/song.mp3", with: mp3)
        #expect(urlReport == fromFile.output && fromFile.output.contains("\"packets\""), "\(fromURL.output)")

        for (tool, arguments) in [
            (mediaInfo, [base + "/missing.mp3"]),
            (TestPaths.executable("transcode"), ["--input", base + "/missing.ts", "--output", dir.file("x.mp4")])
        ] {
            let failed = try ExternalTool.run(tool, arguments)
            #expect(
                failed.status == 1 && failed.stderr.contains("/missing.") && failed.stderr.contains("404"),
                "\(failed.stderr)")
        }
    }
}
