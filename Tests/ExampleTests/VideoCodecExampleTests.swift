import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `--video-codec` and `--audio-codec` through the examples (issue 32): `transcode` encodes HEVC, AV1
/// and VP9 into the containers that carry them and decodes them as inputs, refuses the containers that
/// cannot carry them without leaving a file. Judged
/// by ffprobe, `ffmpeg -xerror` and ffmpeg's PSNR against the source. (`live-streamer`'s own codecs:
/// LiveStreamerCodecTests.)
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct VideoCodecExampleTests {
    static let transcode = TranscodeExampleTests.transcode

    /// Two seconds of the test pattern (50 frames) and a tone, as H.264 and AAC in MP4, written by ffmpeg.
    static func source(in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("src.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=2", "-c:v", "libx264", "-c:a", "aac", path
            ])
        return path
    }

    /// Each stream's codec name and the frames ffprobe counts, for `path`.
    static func streams(_ path: String) throws -> [(codec: String, frames: Int)] {
        let json = try ExternalTool.ffprobeJSON(path, ["-count_frames", "-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        return streams.map {
            (($0["codec_name"] as? String) ?? "", ($0["nb_read_frames"] as? String).flatMap { Int($0) } ?? -1)
        }
    }

    /// The luma PSNR of `path`'s video against `reference`'s, as ffmpeg's `psnr` filter averages it.
    static func psnr(_ path: String, against reference: String) throws -> Double {
        let run = try ExternalTool.check(
            "ffmpeg", ["-v", "info", "-i", path, "-i", reference, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
        let line = try #require(run.stderr.split(separator: "\n").last { $0.contains("PSNR y:") })
        let value = try #require(line.split(separator: " ").first { $0.hasPrefix("y:") }?.dropFirst(2))
        return try #require(Double(value))
    }

    @Test(arguments: [
        ("hevc", "aac", "mp4", "hevc", "aac"), ("av1", "opus", "mkv", "av1", "opus"),
        ("vp9", "aac", "mp4", "vp9", "aac"),
        ("vp9", "opus", "webm", "vp9", "opus")
    ])
    func transcodeEncodesEachCodec(video: String, audio: String, ext: String, videoName: String, audioName: String)
        throws
    {
        let dir = try TemporaryDirectory()
        let source = try Self.source(in: dir)
        let output = dir.file("out.\(ext)")
        let result = try TranscodeExampleTests.run([
            "--input", source, "--output", output, "--video-codec", video, "--audio-codec", audio, "-q"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let streams = try Self.streams(output)
        #expect(streams.map(\.codec) == [videoName, audioName])
        #expect(streams.first?.frames == 50)
        let decode = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        #expect(try Self.psnr(output, against: source) >= 30)
    }

    /// HEVC, AV1 and VP9 inputs (ffmpeg's) are decoded by VideoDecoder and encoded to H.264: every frame,
    /// close to the input.
    @Test(arguments: [("libx265", "mkv"), ("libsvtav1", "webm"), ("libvpx-vp9", "webm")])
    func transcodeDecodesEachCodec(encoder: String, ext: String) throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("in.\(ext)")
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", encoder, input])
        let output = dir.file("out.mp4")
        let result = try TranscodeExampleTests.run(["--input", input, "--output", output, "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.streams(output).map(\.codec) == ["h264"])
        #expect(try Self.streams(output).first?.frames == 50)
        #expect(try Self.psnr(output, against: input) >= 30)
    }

    /// VP9 cannot go into MPEG-TS (FFmpeg 5.1 would write private data) nor HEVC into FLV: each is
    /// refused by name, with exit status 1 and no file left behind.
    @Test(arguments: [("vp9", "ts", "mpegts cannot carry 'vp09'"), ("hevc", "flv", "flv cannot carry 'hvc1'")])
    func containersThatCannotCarryTheCodecRefuseIt(video: String, ext: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let source = try Self.source(in: dir)
        let output = dir.file("out.\(ext)")
        let result = try TranscodeExampleTests.run(["--input", source, "--output", output, "--video-codec", video])
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// `--hardware` uses a hardware encoder that works here, else the software one (libx265 on a
    /// machine without one); `video-devices --encoders --json` lists what the probe found, with reasons.
    @Test func hardwareFallsBackToSoftwareAndTheProbeIsListed() throws {
        let dir = try TemporaryDirectory()
        let source = try Self.source(in: dir)
        let output = dir.file("out.mp4")
        let result = try TranscodeExampleTests.run([
            "--input", source, "--output", output, "--video-codec", "hevc", "--hardware", "-q"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.streams(output).first?.codec == "hevc")
        let listed = try ExternalTool.check(TestPaths.executable("video-devices"), ["--encoders", "--json"])
        let encoders = try #require(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]])
        let names = encoders.compactMap { $0["encoderName"] as? String }
        #expect(names.contains("libx265") && names.contains("hevc_nvenc") && names.contains("libsvtav1"))
        let x265 = try #require(encoders.first { $0["encoderName"] as? String == "libx265" })
        #expect(x265["works"] as? Bool == true && x265["hardware"] as? Bool == false)
        for encoder in encoders where encoder["works"] as? Bool == false {
            #expect((encoder["reason"] as? String)?.isEmpty == false, "\(encoder)")
        }
    }
}
