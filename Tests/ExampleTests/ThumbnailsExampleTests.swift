import Foundation
import MediaTestSupport
import Testing

/// The `thumbnails` example as a user runs it: `--at` writes ffmpeg's `-ss` frame (its pixels),
/// `--keyframe` the keyframe before, `--every` numbered files of the size asked, `--sheet` one picture of
/// the grid's size; each file is judged by ffmpeg and ffprobe. What it cannot do is one line and status 1;
/// a bad command line status 64.
@Suite(.timeLimit(.minutes(5))) struct ThumbnailsExampleTests {
    static let thumbnails = TestPaths.executable("thumbnails")

    /// 8 s of testsrc2 at 320x240, 25 fps, H.264 with B-frames and a keyframe every 1.2 s.
    static func movie(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("movie.mp4")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8", "-c:v", "libx264",
            "-preset", "veryfast", "-bf", "3", "-g", "30", "-pix_fmt", "yuv420p", path
        ])
        return path
    }

    /// A picture file's pixels as ffmpeg decodes them (rgb24).
    static func pixels(_ path: String) throws -> Data {
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdout
    }

    @Test func itWritesTheFramesAskedAsFFmpegSeesThem() throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir)
        let at = try ExternalTool.check(Self.thumbnails, [movie, "--at", "2.345", "--output", dir.file("at.png")])
        #expect(at.output == "2.345 s\t2.36 s\t320x240\t\(dir.file("at.png"))\n", "\(at.output)")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-ss", "2.345", "-i", movie, "-frames:v", "1", dir.file("ref.png")])
        let same = try Self.pixels(dir.file("at.png")) == (try Self.pixels(dir.file("ref.png")))
        #expect(same, "--at 2.345 is not ffmpeg's -ss 2.345 frame")

        let key = try ExternalTool.check(
            Self.thumbnails, [movie, "--at", "0:03.5", "--keyframe", "--output", dir.file("key.jpg")])
        #expect(key.output.hasPrefix("3.5 s\t2.4 s\t320x240\t"), "the keyframe before 3.5 s is at 2.4 s: \(key.output)")

        try FileManager.default.createDirectory(atPath: dir.file("every"), withIntermediateDirectories: false)
        let every = try ExternalTool.check(
            Self.thumbnails, [movie, "--every", "2", "--size", "160x90", "--output", dir.file("every/%03d.jpg")])
        #expect(every.output.split(separator: "\n").count == 4, "\(every.output)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.file("every")).sorted()
        #expect(files == ["001.jpg", "002.jpg", "003.jpg", "004.jpg"], "\(files)")
        let stream = try ExternalTool.probeFirstStream(dir.file("every/004.jpg"))
        #expect(stream["codec_name"] as? String == "mjpeg", "\(stream)")
        #expect(stream["width"] as? Int == 160 && stream["height"] as? Int == 90, "\(stream)")

        try ExternalTool.check(Self.thumbnails, [movie, "--sheet", "3x2", "--output", dir.file("sheet.png")])
        let sheet = try ExternalTool.probeFirstStream(dir.file("sheet.png"))
        #expect(sheet["codec_name"] as? String == "png", "\(sheet)")
        #expect(sheet["width"] as? Int == 960 && sheet["height"] as? Int == 480, "\(sheet)")
    }

    @Test func whatItCannotDoIsOneLine() throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir)
        for (arguments, words, status) in [
            ([movie, "--at", "9", "--output", dir.file("x.png")], "no frame at or after 9 s", Int32(1)),
            ([dir.file("missing.mp4"), "--at", "1", "--output", dir.file("x.png")], "missing.mp4", 1),
            ([movie, "--every", "2", "--output", dir.file("x.png")], "%03d", 64),
            ([movie, "--at", "1", "--every", "2", "--output", dir.file("%d.png")], "--at writes one frame", 64),
            ([movie, "--at", "1", "--output", dir.file("x.gif")], ".png, .jpg or .jpeg", 64),
            ([movie, "--output", dir.file("x.png")], "--at T, --every S or --sheet", 64)
        ] {
            let run = try ExternalTool.run(Self.thumbnails, arguments)
            let lines = run.stderr.split(separator: "\n")
            #expect(run.status == status, "\(arguments): \(run.stderr)")
            #expect(
                lines.count == 1 && lines[0].hasPrefix("thumbnails: ") && run.stderr.contains(words), "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.png")))
    }
}
