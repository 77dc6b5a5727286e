import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `transcode` example end to end: remuxing our own .aac and .h264 into MP4 gives the packets the
/// ffmpeg CLI gives; re-encoding and copying between containers decode cleanly in ffmpeg; bad input
/// gives one line naming the file.
@Suite(.timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct TranscodeExampleTests {
    static let transcode = TestPaths.executable("transcode")
    static let avEncoder = TestPaths.executable("av-encoder")

    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let result = try ExternalTool.run(transcode, arguments)
        return (result.status, result.stderr)
    }

    /// A .aac and a .h264 written by av-encoder (our ADTS and Annex-B muxers).
    static func makeElementaryStreams(in dir: TemporaryDirectory) throws -> (aac: String, h264: String) {
        let aac = dir.file("a.aac")
        let h264 = dir.file("v.h264")
        let made = try ExternalTool.run(
            avEncoder,
            [
                "--pattern", "--size", "320x240", "--fps", "25", "--tone", "440", "--duration", "4", "--preset",
                "veryfast",
                "--keyint", "25", "--output", aac, "--output", h264, "-q"
            ])
        #expect(made.status == 0, "\(made.stderr)")
        return (aac, h264)
    }

    /// The issue's test: `transcode --copy` of an .aac and an .h264 into MP4 has the same packets
    /// (sizes, bytes, pts and dts) as `ffmpeg -i a.aac -i v.h264 -c copy out.mp4`.
    @Test func copyOfElementaryStreamsMatchesTheFFmpegCLI() throws {
        let dir = try TemporaryDirectory()
        let (aac, h264) = try Self.makeElementaryStreams(in: dir)
        let ours = dir.file("ours.mp4")
        let theirs = dir.file("theirs.mp4")
        let result = try Self.run(["--input", aac, "--input", h264, "--output", ours, "--copy", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-y", "-i", aac, "-i", h264, "-c", "copy", theirs])
        // (ffmpeg puts the video stream first; the packets are compared stream by stream.)
        let ourAudio = try ExternalTool.packetFingerprints(ours, stream: "a:0")
        let ourVideo = try ExternalTool.packetFingerprints(ours, stream: "v:0")
        #expect(ourAudio.count == 189)  // 4 s at 48 kHz: 187.5 packets, plus priming and the padded last
        #expect(ourVideo.count == 100)
        #expect(ourAudio == (try ExternalTool.packetFingerprints(theirs, stream: "a:0")))
        #expect(ourVideo == (try ExternalTool.packetFingerprints(theirs, stream: "v:0")))
    }

    /// `transcode --copy` of an ffmpeg-made MP4 (H.264 and AAC) into MP4 and Matroska: the demuxer's
    /// samples borrow libavformat's packets and the muxer hands their buffers back by reference (no
    /// copy either way), and the packets written are those of `ffmpeg -i in.mp4 -c copy out.*`: size,
    /// bytes (MD5), pts, dts and flags, stream by stream.
    @Test(arguments: ["mp4", "mkv"])
    func copyBetweenContainersMatchesTheFFmpegCLI(format: String) throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("in.mp4")
        try AVFixture.makeMP4(input, seconds: 3)
        let ours = dir.file("ours.\(format)")
        let theirs = dir.file("theirs.\(format)")
        let result = try Self.run(["--input", input, "--output", ours, "--copy", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-y", "-i", input, "-c", "copy", theirs])
        for stream in ["v:0", "a:0"] {
            let packets = try ExternalTool.packetFingerprints(ours, stream: stream)
            #expect(packets.count >= 75, "\(stream)")  // 3 s: 75 frames at 25 fps, about 131 AAC packets
            #expect(packets == (try ExternalTool.packetFingerprints(theirs, stream: stream)), "\(stream)")
        }
    }

    /// `pts_time` of every decoded frame of the stream `specifier` selects, as ffprobe gives them.
    static func frameTimes(_ path: String, stream specifier: String) throws -> [Double] {
        try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-select_streams", specifier, "-show_entries", "frame=pts_time", "-of", "csv=p=0", path
            ]
        ).output.split(whereSeparator: { $0 == "\n" || $0 == "," }).compactMap { Double($0) }
    }

    /// Re-encoding an .aac and a raw .h264 with B-frames (av-encoder's, like x264's default): the
    /// .h264 has no times, is read in decode order, and its frames leave the decoder in another order.
    /// The output has every frame, at 0, 1/25, 2/25, ... s as the CLI's `ffmpeg -i a.aac -i v.h264
    /// out.mp4` has them, and the same pictures; ffmpeg decodes it without an error. The same for a
    /// re-encode of the `--copy` MP4 of those streams (whose pts are the decode times, as the CLI
    /// copies them).
    @Test func reencodeOfElementaryStreamsWithBFrames() throws {
        let dir = try TemporaryDirectory()
        let (aac, h264) = try Self.makeElementaryStreams(in: dir)
        let reorder = try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "stream=has_b_frames", "-of", "csv=p=0", h264
            ]
        ).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect((Int(reorder) ?? 0) > 0, "the input has B-frames")
        let inputFrames = try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                "-of", "csv=p=0", h264
            ]
        ).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(inputFrames == "100")

        let theirs = dir.file("theirs.mp4")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-y", "-i", aac, "-i", h264, theirs])
        let expected = try Self.frameTimes(theirs, stream: "v:0")
        let ticks: [Double] = (0..<100).map { (i: Int) -> Double in Double(i) / 25 }
        #expect(expected == ticks)
        let theirPictures = try Self.pictureHashes(theirs)

        let copied = dir.file("copied.mp4")
        #expect(try Self.run(["--input", aac, "--input", h264, "--output", copied, "--copy", "-q"]).status == 0)
        for (name, inputs) in [("ours.mp4", [aac, h264]), ("recopied.mp4", [copied])] {
            let output = dir.file(name)
            let result = try Self.run(inputs.flatMap { ["--input", $0] } + ["--output", output, "-q"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let times = try Self.frameTimes(output, stream: "v:0")
            #expect(String(times.count) == inputFrames, "\(name)")
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(name): \(times)")
            #expect(times == expected, "\(name)")
            #expect(try Self.pictureHashes(output) == theirPictures, "\(name)")
            let decode = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", output, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(name): \(decode.stderr)")
        }
    }

    /// The MD5 of each decoded picture of the first video stream, in presentation order (ffmpeg's
    /// `framemd5` without its timestamps).
    static func pictureHashes(_ path: String) throws -> [String] {
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"]).output
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// An MP4 by ffmpeg: H.264 (ultrafast) of `size` at 25 fps and AAC of a 330 Hz tone, `seconds` long.
    static func movie(in dir: TemporaryDirectory, size: String, seconds: Int) throws -> String {
        let input = dir.file("in.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=\(seconds)", "-f", "lavfi", "-i",
                "testsrc2=size=\(size):rate=25", "-t", "\(seconds)", "-c:a", "aac", "-c:v", "libx264", "-preset",
                "ultrafast", input
            ])
        return input
    }

    @Test func reencodeOfAnFFmpegMP4DecodesCleanly() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.movie(in: dir, size: "320x240", seconds: 3)
        let output = dir.file("out.mkv")
        let result = try Self.run(["--input", input, "--output", output, "--preset", "ultrafast", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try ExternalTool.ffprobeJSON(output, ["-count_packets", "-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(Set(streams.compactMap { $0["codec_name"] as? String }) == ["aac", "h264"])
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        #expect(video["nb_read_packets"] as? String == "75")
        let run = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", output, "-f", "null", "-"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
    }

    /// `--export-preset`: 1280x720 fits a 1440×1080 picture in 1280×720 (960×720, the aspect kept), m4a
    /// keeps the audio alone, and an unknown name is a usage error.
    @Test func exportPresetsScaleOrDropAsTheirNamesSay() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.movie(in: dir, size: "1440x1080", seconds: 1)
        let scaled = dir.file("scaled.mp4"), audio = dir.file("audio.m4a")
        let first = try Self.run(
            ["--input", input, "--output", scaled, "--export-preset", "1280x720", "--preset", "ultrafast", "-q"])
        #expect(first.status == 0, "\(first.stderr)")
        let video = try ExternalTool.ffprobeJSON(scaled, ["-show_streams", "-select_streams", "v"])
        let stream = try #require((video["streams"] as? [[String: Any]])?.first)
        #expect(stream["width"] as? Int == 960 && stream["height"] as? Int == 720, "\(stream)")
        let second = try Self.run(["--input", input, "--output", audio, "--export-preset", "m4a", "-q"])
        #expect(second.status == 0, "\(second.stderr)")
        let streams = try ExternalTool.ffprobeJSON(audio, ["-show_streams"])["streams"] as? [[String: Any]]
        #expect(streams?.compactMap { $0["codec_name"] as? String } == ["aac"])
        let refused = try Self.run(["--input", input, "--output", audio, "--export-preset", "480p"])
        #expect(refused.status == 64 && refused.stderr.contains("passthrough, h264, 1280x720"), "\(refused.stderr)")
    }

    @Test func copyOutOfAContainerIntoOurOwnFormats() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("in.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=2", "-f", "lavfi", "-i",
                "testsrc2=size=160x120:rate=25", "-t", "2", "-c:a", "aac", "-c:v", "libx264", "-preset", "ultrafast",
                input
            ])
        for (name, stream) in [
            ("out.aac", "a"), ("out.h264", "v"), ("out.wav", "a"), ("out.y4m", "v"), ("out.caf", "a")
        ] {
            let output = dir.file(name)
            let result = try Self.run(["--input", input, "--output", output, "--copy", "-q"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let run = try ExternalTool.run(
                "ffmpeg", ["-v", "error", "-xerror", "-i", output, "-map", "0:\(stream)", "-f", "null", "-"])
            #expect(run.status == 0 && run.stderr.isEmpty, "\(name): \(run.stderr)")
        }
        let frames = try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                dir.file("out.y4m")
            ]
        ).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(frames == "50")
    }

    /// Decoding H.264 to Y4M writes the bytes `ffmpeg -i x.h264 -f yuv4mpegpipe` writes, with groups of
    /// pictures decoded in parallel (the default) and with `--no-parallel` (one decoder, frame threads),
    /// from a stream with B-frames and IDRs at irregular places (x264's scene cuts), long enough for
    /// several groups to be in flight at once.
    @Test func decodingToY4MGivesTheCLIsBytesWithAndWithoutParallel() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("in.h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25,noise=alls=8:allf=t+u", "-t", "6",
                "-c:v", "libx264", "-preset", "veryfast", "-g", "12", "-bf", "3", "-f", "h264", input
            ])
        let cli = try ExternalTool.check("ffmpeg", ["-v", "error", "-i", input, "-f", "yuv4mpegpipe", "-"]).stdout
        for flag in ["--parallel", "--no-parallel"] {
            let output = dir.file("out\(flag).y4m")
            let result = try Self.run(["--input", input, "--output", output, flag, "-q"])
            #expect(result.status == 0, "\(flag): \(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == cli, "\(flag)")
        }
    }

    /// The summary gives the size of what was written (headers, index and start codes included, as
    /// the other examples' summaries do), not the packets' bytes: the file's size on disk, or the
    /// bytes that went to standard output.
    @Test func summaryGivesTheOutputsSize() throws {
        let dir = try TemporaryDirectory()
        let (aac, h264) = try Self.makeElementaryStreams(in: dir)
        let path = dir.file("out.mp4")
        let result = try Self.run(["--input", aac, "--input", h264, "--output", path, "--copy"])
        #expect(result.status == 0, "\(result.stderr)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let summary = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.hasPrefix("transcode: "))
        #expect(summary.hasSuffix("→ \(path) (\(size) bytes)"), "\(summary)")

        let streamed = try ExternalTool.run(
            Self.transcode, ["--input", aac, "--output", "-", "--format", "aac", "--copy"])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        #expect(streamed.stderr.hasSuffix("→ standard output (\(streamed.stdout.count) bytes)\n"), "\(streamed.stderr)")
    }

    /// `--output -` is standard output for the formats that can be written as a stream: the bytes are
    /// those the same command writes to a file (MPEG-TS, fragmented MP4, ADTS, Annex-B), and ffprobe
    /// decodes every frame of them without an error. Formats that must seek back (MP4 without --fragmented, AAC in CAF), or `-` without
    /// --format, are refused with one line and exit status 64, nothing written.
    @Test func standardOutputForStreamableFormatsOnly() throws {
        let dir = try TemporaryDirectory()
        let (aac, h264) = try Self.makeElementaryStreams(in: dir)
        let inputs = ["--input", aac, "--input", h264, "--copy", "-q"]
        let both: Set = ["audio,189", "video,100"]
        for (format, ext, extra, streams) in [
            ("mpegts", "ts", [String](), both), ("mp4", "mp4", ["--fragmented"], both),
            ("aac", "aac", [], ["audio,189"]),
            ("h264", "h264", [], ["video,100"])
        ] {
            let file = dir.file("file.\(ext)")
            let written = try Self.run(inputs + extra + ["--output", file])
            #expect(written.status == 0, "\(format): \(written.stderr)")
            let streamed = try ExternalTool.run(Self.transcode, inputs + extra + ["--output", "-", "--format", format])
            #expect(streamed.status == 0 && streamed.stderr.isEmpty, "\(format): \(streamed.stderr)")
            #expect(!streamed.stdout.isEmpty, "\(format)")
            #expect(streamed.stdout == (try Data(contentsOf: URL(fileURLWithPath: file))), "\(format)")
            let piped = dir.file("piped.\(ext)")
            try streamed.stdout.write(to: URL(fileURLWithPath: piped))
            let decode = try ExternalTool.run(
                "ffprobe",
                [
                    "-v", "error", "-count_frames", "-show_entries", "stream=codec_type,nb_read_frames", "-of",
                    "csv=p=0", piped
                ])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(format): \(decode.stderr)")
            #expect(
                Set(decode.output.split(separator: "\n").map(String.init)) == streams, "\(format): \(decode.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: "-"), "no file named '-' was written")

        for (arguments, mention) in [
            (inputs + ["--output", "-", "--format", "mp4"], "--fragmented"),
            (inputs + ["--output", "-"], "--format"),
            (["--input", aac, "--output", "-", "--format", "caf", "--copy"], "CAF")
        ] {
            let refused = try ExternalTool.run(Self.transcode, arguments)
            #expect(refused.status == 64, "\(arguments)")
            #expect(refused.stdout.isEmpty, "\(arguments)")
            #expect(
                refused.stderr.hasPrefix("transcode: ") && refused.stderr.split(separator: "\n").count == 1,
                "\(refused.stderr)")
            #expect(refused.stderr.contains(mention), "\(refused.stderr)")
        }
    }

    @Test func badInputIsOneLineNamingTheFile() throws {
        let dir = try TemporaryDirectory()
        let garbage = dir.file("garbage.mp4")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: garbage))
        let result = try Self.run(["--input", garbage, "--output", dir.file("out.mp4")])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("transcode: "))
        #expect(result.stderr.contains("garbage.mp4"))
        #expect(result.stderr.split(separator: "\n").count == 1)

        // An MP4 cut before its moov (written without fast start, so the moov is at the end).
        let whole = dir.file("whole.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "2", "-c:v", "libx264",
                "-preset", "ultrafast", whole
            ])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.file("cut.mp4")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let cutResult = try Self.run(["--input", cut, "--output", dir.file("out2.mp4")])
        #expect(cutResult.status == 1)
        #expect(cutResult.stderr.contains("cut.mp4"))
        #expect(cutResult.stderr.contains("moov"))
    }

    /// A codec the codec table does not know (Nellymoser, in MOV as `'nmos'`) can be neither re-encoded
    /// nor copied: both are refused naming it, and the copy is not offered as the way out. (HEVC, AV1,
    /// VP9 and DTS, once refused this way, are decoded since issue 32: VideoCodecExampleTests.)
    @Test func aCodecTheTableDoesNotKnowIsRefusedBothWays() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("speech.mov")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050:duration=1", "-c:a",
                "nellymoser", input
            ])
        let refused = try Self.run(["--input", input, "--output", dir.file("out.mp4")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no decoder for nellymoser"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nor can it be copied"), "\(refused.stderr)")
        let copied = try Self.run(["--input", input, "--output", dir.file("copy.mkv"), "--copy"])
        #expect(copied.status == 1)
        #expect(copied.stderr.contains("'nmos' is not one this muxer knows"), "\(copied.stderr)")
    }
}
