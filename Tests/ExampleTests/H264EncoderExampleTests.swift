import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `h264-encoder` example end to end, judged by ffprobe, ffmpeg and GStreamer: size, profile and frame
/// count, every frame decodes, SPS/PPS before every IDR, a cut at the second IDR still decodes (in ffmpeg
/// and in GStreamer, to the same frames), PSNR against the
/// source, keyframe placement, the same frames as the ffmpeg CLI with the same settings, and one clear
/// line on bad input.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct H264EncoderExampleTests {
    static let encoder = TestPaths.executable("h264-encoder")

    /// Runs the example; returns its status and standard error lines.
    static func encode(_ arguments: [String]) throws -> (status: Int32, lines: [String]) {
        let result = try ExternalTool.run(encoder, arguments)
        return (result.status, result.stderr.split(separator: "\n").map(String.init))
    }

    /// `ffprobe -show_streams` fields of the first video stream, counting frames.
    static func probe(_ path: String) throws -> [String: Any] {
        let json = try ExternalTool.ffprobeJSON(path, ["-count_frames", "-show_streams", "-select_streams", "v:0"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        return try #require(streams.first)
    }

    /// `key_frame` of every decoded frame, in order.
    static func keyFrameFlags(_ path: String) throws -> [Bool] {
        let run = try ExternalTool.check(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0", path])
        return run.output.split(separator: "\n").map { $0.hasPrefix("1") }
    }

    /// The hash column of `ffmpeg -f framemd5`: one per decoded frame.
    static func frameHashes(_ path: String) throws -> [String] {
        let run = try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-f", "framemd5", "-"])
        return run.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Decodes every frame with `-xerror` (any decoding error fails); returns the frame count.
    static func strictDecodeCount(_ path: String) throws -> Int {
        let run = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "framemd5", "-"])
        #expect(run.status == 0, "ffmpeg -xerror failed on \(path): \(run.stderr)")
        #expect(run.stderr.isEmpty, "ffmpeg printed errors for \(path): \(run.stderr)")
        return run.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    }

    /// The frames GStreamer decodes from an Annex-B file (`h264parse ! avdec_h264`), as raw I420.
    static func gstreamerDecode(_ path: String, in dir: TemporaryDirectory) throws -> Data {
        let raw = dir.file(URL(fileURLWithPath: path).lastPathComponent + ".gst.yuv")
        let run = try ExternalTool.run(
            "gst-launch-1.0",
            [
                "-q", "filesrc", "location=\(path)", "!", "h264parse", "!", "avdec_h264", "!", "videoconvert", "!",
                "video/x-raw,format=I420", "!", "filesink", "location=\(raw)"
            ])
        #expect(run.status == 0, "gst-launch-1.0 failed on \(path): \(run.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: raw))
    }

    /// The frames ffmpeg decodes from a file, as raw yuv420p.
    static func ffmpegDecode(_ path: String, in dir: TemporaryDirectory) throws -> Data {
        let raw = dir.file(URL(fileURLWithPath: path).lastPathComponent + ".ff.yuv")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", raw])
        return try Data(contentsOf: URL(fileURLWithPath: raw))
    }

    /// Writes the test pattern's raw yuv420p frames (what the example encodes with `--pattern`).
    static func writePatternYUV(_ path: String, width: Int, height: Int, rate: FrameRate, frames: Int64) throws {
        var generator = try TestPatternGenerator(width: width, height: height, frameRate: rate, length: .frames(frames))
        var bytes = Data()
        while let frame = try generator.next() { for plane in frame.planes { bytes.append(contentsOf: plane) } }
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    @Test func exampleIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.encoder), "build the package first: swift build")
    }

    /// The issue's integration test: pattern → H.264 (4 Mb/s, 720p, keyint 20) → Annex-B, judged by ffprobe/ffmpeg.
    @Test func patternAt720pIsDecodableWithKeyframesEveryKeyintAndPSNRAbove35() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("pattern.h264")
        let run = try Self.encode([
            "--pattern", "--size", "1280x720", "--frames", "60", "--fps", "24", "--bitrate", "4000000",
            "--keyint", "20", "--preset", "veryfast", "--output", out
        ])
        #expect(run.status == 0, "\(run.lines)")
        let summary = try #require(run.lines.last)
        #expect(summary.contains("60 frames out"), "\(summary)")
        #expect(summary.contains("3 keyframes"), "\(summary)")

        let stream = try Self.probe(out)
        #expect(stream["codec_name"] as? String == "h264")
        #expect(stream["width"] as? Int == 1280)
        #expect(stream["height"] as? Int == 720)
        #expect(stream["profile"] as? String == "High")
        #expect(stream["nb_read_frames"] as? String == "60")
        #expect(try Self.strictDecodeCount(out) == 60)

        // Keyframes exactly at 0, 20, 40.
        let keys = try Self.keyFrameFlags(out)
        #expect(keys.count == 60)
        #expect(keys.indices.filter { keys[$0] } == [0, 20, 40])

        // PSNR of the decoded frames against the pattern itself.
        let source = dir.file("source.yuv")
        try Self.writePatternYUV(source, width: 1280, height: 720, rate: FrameRate(24), frames: 60)
        let psnr = try ExternalTool.run(
            "ffmpeg",
            [
                "-v", "info", "-i", out, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "1280x720", "-r", "24", "-i",
                source,
                "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"
            ])
        let line = try #require(
            psnr.stderr.split(separator: "\n").first { $0.contains("PSNR") && $0.contains("average:") })
        let average = try #require(
            line.split(separator: " ").first { $0.hasPrefix("average:") }.flatMap { Double($0.dropFirst(8)) })
        #expect(average >= 35, "PSNR \(average) dB: \(line)")
    }

    /// SPS and PPS come before every IDR, and cutting the file where the second IDR's parameter sets
    /// start leaves a stream that decodes on its own.
    @Test func everyIDRHasParameterSetsAndACutAtTheSecondIDRDecodes() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("p.h264")
        let run = try Self.encode([
            "--pattern", "--size", "320x240", "--frames", "50", "--keyint", "20", "--preset", "veryfast", "--output",
            out
        ])
        #expect(run.status == 0, "\(run.lines)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        let units = try AnnexBScanner.split(bytes)
        let types = units.map { $0.header.nalUnitType }
        let idrStarts = types.indices.filter { types[$0] == .idr && ($0 == 0 || types[$0 - 1] != .idr) }
        #expect(idrStarts.count == 3)  // frames 0, 20, 40
        for index in idrStarts {
            let before = types[..<index].suffix(3)
            #expect(
                before.contains(.sps) && before.contains(.pps),
                "IDR at NAL \(index) is not preceded by SPS and PPS: \(Array(before))")
        }
        // ffmpeg's own count of IDR frames agrees.
        let keys = try Self.keyFrameFlags(out)
        #expect(keys.filter { $0 }.count == idrStarts.count)

        // Cut at the SPS before the second IDR (its start code begins 4 bytes before the NAL).
        let second = idrStarts[1]
        let spsIndex = try #require(types[..<second].lastIndex(of: .sps))
        let cutOffset = Int(units[spsIndex].offset) - 4
        #expect(Array(bytes[cutOffset..<cutOffset + 4]) == [0, 0, 0, 1])
        let cut = dir.file("cut.h264")
        try Data(bytes[cutOffset...]).write(to: URL(fileURLWithPath: cut))
        #expect(try Self.strictDecodeCount(cut) == 30)

        // GStreamer: discovers the stream, and decodes the whole file and the cut to the frames ffmpeg
        // decodes (the cut: the whole file's frames 20 to 49).
        let discovered = try ExternalTool.run("gst-discoverer-1.0", ["file://" + out])
        #expect(discovered.status == 0, "\(discovered.stderr)")
        for fact in ["H.264 (High Profile)", "Width: 320", "Height: 240", "Frame rate: 25/1"] {
            #expect(discovered.output.contains(fact), "gst-discoverer-1.0 did not report \(fact): \(discovered.output)")
        }
        let frameSize = 320 * 240 * 3 / 2
        let whole = try Self.ffmpegDecode(out, in: dir)
        #expect(whole.count == 50 * frameSize)
        let gstWhole = try Self.gstreamerDecode(out, in: dir)
        #expect(gstWhole.count == 50 * frameSize)
        #expect(gstWhole == whole, "GStreamer and ffmpeg decode the file to different frames")
        let gstCut = try Self.gstreamerDecode(cut, in: dir)
        #expect(gstCut.count == 30 * frameSize)
        #expect(gstCut == whole.suffix(30 * frameSize), "GStreamer decodes the cut to other frames than 20...49")
    }

    /// With the same settings, the example's stream decodes to exactly the frames of the ffmpeg CLI's, and
    /// the file is byte-identical.
    @Test func sameFramesAsTheFFmpegCLI() throws {
        let dir = try TemporaryDirectory()
        let y4m = dir.file("in.y4m")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-frames:v", "45", "-pix_fmt",
                "yuv420p",
                "-f", "yuv4mpegpipe", y4m
            ])
        let ours = dir.file("ours.h264")
        let cli = dir.file("cli.h264")
        // One encoder thread on both sides: with a bit-rate target x264's threaded output varies from run to run.
        let run = try Self.encode([
            "--input", y4m, "--preset", "veryfast", "--bitrate", "1500000", "--keyint", "30", "--threads", "1",
            "--output", ours
        ])
        #expect(run.status == 0, "\(run.lines)")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", y4m, "-c:v", "libx264", "-preset", "veryfast", "-b:v", "1500k", "-g", "30",
                "-threads", "1",
                "-f", "h264", cli
            ])
        let ourHashes = try Self.frameHashes(ours)
        #expect(ourHashes.count == 45)
        #expect(ourHashes == (try Self.frameHashes(cli)))
        // And the files themselves: same SPS (the y4m's A and C tags included), same start codes.
        #expect(try Data(contentsOf: URL(fileURLWithPath: ours)) == (try Data(contentsOf: URL(fileURLWithPath: cli))))

        // With --aud, the file is the CLI's with FFmpeg's own delimiter insertion, byte for byte.
        let oursAUD = dir.file("ours-aud.h264")
        let cliAUD = dir.file("cli-aud.h264")
        let audRun = try Self.encode([
            "--input", y4m, "--preset", "veryfast", "--bitrate", "1500000", "--keyint", "30", "--threads", "1", "--aud",
            "--output", oursAUD
        ])
        #expect(audRun.status == 0, "\(audRun.lines)")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", y4m, "-c:v", "libx264", "-preset", "veryfast", "-b:v", "1500k", "-g", "30",
                "-threads", "1",
                "-bsf:v", "h264_metadata=aud=insert", "-f", "h264", cliAUD
            ])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: oursAUD)) == (try Data(contentsOf: URL(fileURLWithPath: cliAUD))))
        #expect(try Self.strictDecodeCount(oursAUD) == 45)
    }

    /// An .h264 input (decoded, re-encoded) gives the CLI's file byte for byte: the source's pixel aspect
    /// ratio and chroma siting reach the new SPS as they do through the CLI.
    @Test func reencodingAnH264FileMatchesTheCLI() throws {
        let dir = try TemporaryDirectory()
        let y4m = dir.file("in.y4m")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "40", "-pix_fmt",
                "yuv420p",
                "-f", "yuv4mpegpipe", y4m
            ])
        let source = dir.file("source.h264")  // its SPS says aspect 1:1 and chroma siting 1 (the y4m's A1:1, C420jpeg)
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-i", y4m, "-c:v", "libx264", "-preset", "veryfast", "-g", "20", "-f", "h264", source])
        let ours = dir.file("ours.h264")
        let cli = dir.file("cli.h264")
        let run = try Self.encode([
            "--input", source, "--preset", "veryfast", "--bitrate", "500000", "--keyint", "20", "--threads", "1",
            "--output", ours
        ])
        #expect(run.status == 0, "\(run.lines)")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", source, "-c:v", "libx264", "-preset", "veryfast", "-b:v", "500k", "-g", "20",
                "-threads", "1",
                "-f", "h264", cli
            ])
        #expect(try Data(contentsOf: URL(fileURLWithPath: ours)) == (try Data(contentsOf: URL(fileURLWithPath: cli))))
        #expect(try Self.strictDecodeCount(ours) == 40)
    }

    /// `--bframes 0` turns reordering off; `--bframes 3` allows it (ffprobe's has_b_frames).
    @Test func bframesOption() throws {
        let dir = try TemporaryDirectory()
        for (bframes, reorders) in [("0", false), ("3", true)] {
            let out = dir.file("b\(bframes).h264")
            let run = try Self.encode([
                "--pattern", "--size", "320x240", "--frames", "30", "--bframes", bframes, "--output", out
            ])
            #expect(run.status == 0, "\(run.lines)")
            let stream = try Self.probe(out)
            let hasB = try #require(stream["has_b_frames"] as? Int)
            #expect((hasB > 0) == reorders, "--bframes \(bframes): has_b_frames \(hasB)")
            #expect(try Self.strictDecodeCount(out) == 30)
        }
    }

    /// Other inputs: an .h264 file is decoded and re-encoded; a raw nv12 .yuv is converted and encoded.
    @Test func h264AndRawInputs() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("source.h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "25", "-c:v",
                "libx264",
                "-preset", "veryfast", "-f", "h264", source
            ])
        let reencoded = dir.file("re.h264")
        var run = try Self.encode(["--input", source, "--keyint", "10", "--output", reencoded])
        #expect(run.status == 0, "\(run.lines)")
        #expect(try Self.strictDecodeCount(reencoded) == 25)
        #expect(try Self.keyFrameFlags(reencoded).filter { $0 }.count == 3)

        let nv12 = dir.file("in.yuv")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "12", "-pix_fmt",
                "nv12",
                "-f", "rawvideo", nv12
            ])
        let fromRaw = dir.file("raw.h264")
        run = try Self.encode(["--input", nv12, "--size", "320x240", "--pix-fmt", "nv12", "--output", fromRaw])
        #expect(run.status == 0, "\(run.lines)")
        let stream = try Self.probe(fromRaw)
        #expect(stream["width"] as? Int == 320)
        #expect(stream["nb_read_frames"] as? String == "12")
    }

    /// Bad input: one line on standard error, a non-zero status, and what was written before stays decodable.
    @Test func badInputGivesOneLineAndKeepsWhatWasWritten() throws {
        let dir = try TemporaryDirectory()
        let y4m = dir.file("good.y4m")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames:v", "10", "-pix_fmt",
                "yuv420p",
                "-f", "yuv4mpegpipe", y4m
            ])
        let whole = try Data(contentsOf: URL(fileURLWithPath: y4m))

        // Truncated in the middle of the 8th frame.
        let truncated = dir.file("truncated.y4m")
        let headerLength = try #require(whole.firstIndex(of: 0x0A)) + 1
        let frameLength = 6 + 176 * 144 * 3 / 2
        try whole.prefix(headerLength + 7 * frameLength + 1000).write(to: URL(fileURLWithPath: truncated))
        let out = dir.file("out.h264")
        var run = try Self.encode(["--input", truncated, "--output", out])
        #expect(run.status != 0)
        #expect(run.lines.count == 1, "\(run.lines)")
        #expect(run.lines.first?.hasPrefix("h264-encoder: ") == true)
        #expect(run.lines.first?.contains("Y4M frame 7") == true, "\(run.lines)")
        #expect(
            try Self.strictDecodeCount(out) == 7, "the frames before the damage are in the file, the encoder drained")

        // Unsupported chroma, an .h264 without SPS, garbage, a missing file.
        let twelveBit = dir.file("twelvebit.y4m")
        try Data(Array("YUV4MPEG2 W176 H144 F25:1 C420p12\nFRAME\n".utf8) + [UInt8](repeating: 0, count: 100)).write(
            to: URL(fileURLWithPath: twelveBit))
        let noSPS = dir.file("nosps.h264")
        let source = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try makeStream(dir))))
        let slicesOnly: [UInt8] = try AnnexBScanner.split(source).filter { $0.header.nalUnitType.isVCL }.flatMap {
            [0, 0, 0, 1] + $0.bytes
        }
        try Data(slicesOnly).write(to: URL(fileURLWithPath: noSPS))
        let garbage = dir.file("garbage.h264")
        var seed: UInt64 = 42
        var noise: [UInt8] = []
        for _ in 0..<10_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            noise.append(UInt8(truncatingIfNeeded: seed >> 33))
        }
        try Data(noise).write(to: URL(fileURLWithPath: garbage))
        // An empty .h264 and one with only its parameter sets: errors, not exit 0 with "0 frames in".
        let empty = dir.file("empty.h264")
        try Data().write(to: URL(fileURLWithPath: empty))
        let headersOnly = dir.file("headers.h264")
        let parameterSets: [UInt8] = try AnnexBScanner.split(source).filter { !$0.header.nalUnitType.isVCL }
            .flatMap { [0, 0, 0, 1] + $0.bytes }
        try Data(parameterSets).write(to: URL(fileURLWithPath: headersOnly))
        for (input, mention) in [
            (twelveBit, "C420p12"), (noSPS, "SPS"), (garbage, "start code"), (dir.file("missing.y4m"), "missing.y4m"),
            (empty, "holds no H.264: it is empty"), (headersOnly, "holds no H.264 picture")
        ] {
            run = try Self.encode(["--input", input, "--output", dir.file("bad.h264")])
            #expect(run.status != 0, "\(input)")
            #expect(run.lines.count == 1, "\(input): \(run.lines)")
            #expect(run.lines.first?.contains(mention) == true, "\(input): \(run.lines)")
        }

        // A bad command line: exit status 64 (EX_USAGE), as every example.
        run = try Self.encode(["--pattern", "--size", "big", "--output", out])
        #expect(run.status == 64)
        #expect(run.lines == ["h264-encoder: --size takes WIDTHxHEIGHT, e.g. 1280x720, not 'big'"])
    }

    /// An .h264 input whose first IDR slice is relabelled as a non-IDR slice: the decoder cannot start
    /// until the next IDR. The example goes on, as the ffmpeg CLI does, encodes the frames ffmpeg
    /// decodes from the same bytes, and says on standard error how many access units gave no frame.
    @Test func damagedH264InputIsReencodedWithAWarning() throws {
        let dir = try TemporaryDirectory()
        let intact = dir.file("intact.h264")
        var run = try Self.encode([
            "--quiet", "--pattern", "--size", "320x240", "--frames", "48", "--keyint", "16", "--preset", "veryfast",
            "--output", intact
        ])
        #expect(run.status == 0, "\(run.lines)")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: intact)))
        let firstIDR = try #require(try AnnexBScanner.split(bytes).first { $0.header.nalUnitType == .idr })
        bytes[Int(firstIDR.offset)] = 0x41  // nal_ref_idc 2, nal_unit_type 1
        let damaged = dir.file("damaged.h264")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))

        let ffmpegFrames = try Self.frameHashes(damaged).count
        #expect(ffmpegFrames < 48)
        let out = dir.file("out.h264")
        run = try Self.encode(["--input", damaged, "--preset", "veryfast", "--output", out])
        #expect(run.status == 0, "\(run.lines)")
        // The decoder's warning through the example's log handler, with its metadata.
        let missing = 48 - ffmpegFrames
        let warning =
            "h264-encoder: warning: \(missing) of 48 H.264 access \(missing == 1 ? "unit" : "units") gave no frame. "
            + "(code=framesMissing, count=\(missing), stage=H264Decoder)"
        #expect(run.lines.contains(warning), "\(run.lines)")
        #expect(try Self.strictDecodeCount(out) == ffmpegFrames)
        // --quiet: errors only, so nothing at all.
        run = try Self.encode([
            "--quiet", "--input", damaged, "--preset", "veryfast", "--output", dir.file("quiet.h264")
        ])
        #expect(run.status == 0 && run.lines.isEmpty, "\(run.lines)")
    }

    /// A short x264 stream for the bad-input cases.
    func makeStream(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("short.h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames:v", "5", "-c:v",
                "libx264", "-f", "h264", path
            ])
        return path
    }
}
