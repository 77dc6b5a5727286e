import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `av-mixer` example end to end: its mix of WAV files is sox's (float, and 16-bit within 1 LSB),
/// a picture-in-picture with an image, text, a tone and a file is a valid MP4 that FFmpeg and GStreamer
/// decode, its `.y4m` is the canvas with the text's box where it was put, and bad specs are one-line
/// usage errors that name them.
@Suite(.timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct AVMixerExampleTests {
    static let mixer = TestPaths.executable("av-mixer")

    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let result = try ExternalTool.run(mixer, arguments)
        return (result.status, result.stderr)
    }

    /// The samples of a WAV file as sox reads them (any encoding), as floats.
    static func soxFloats(_ path: String) throws -> [Float] {
        RawAudio.floats(
            try ExternalTool.check("sox", [path, "-t", "raw", "-e", "floating-point", "-b", "32", "-"]).stdout)
    }

    @Test func wavInputsMixedWithGainsAndOffsetsAreSoxsMix() throws {
        let dir = try TemporaryDirectory()
        try ExternalTool.check(
            "sox",
            ["-n", "-r", "48000", "-c", "2", "-b", "16", dir.file("a.wav"), "synth", "2", "sine", "440", "vol", "0.5"])
        try ExternalTool.check(
            "sox",
            ["-n", "-r", "48000", "-c", "2", "-b", "16", dir.file("b.wav"), "synth", "1", "pinknoise", "vol", "0.3"])
        let run = try Self.run([
            "--audio", "\(dir.file("a.wav")),gain=0.5", "--audio", "\(dir.file("b.wav")),gain=0.25,offset=0.5",
            "--output", dir.file("mix.wav"), "--output", dir.file("mix16.wav"), "--bits", "16", "--quiet"
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // sox: b delayed by 0.5 s (pad), both at their gains, summed.
        try ExternalTool.check("sox", [dir.file("b.wav"), dir.file("b-late.wav"), "pad", "0.5"])
        try ExternalTool.check(
            "sox",
            [
                "-m", "-v", "0.5", dir.file("a.wav"), "-v", "0.25", dir.file("b-late.wav"), "-e", "floating-point",
                "-b", "32",
                dir.file("sox.wav")
            ])
        let expected = try Self.soxFloats(dir.file("sox.wav"))
        let ours = try Self.soxFloats(dir.file("mix16.wav"))
        #expect(ours.count == expected.count)
        let largest = zip(ours, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(largest <= 1.0 / 32_768 + 1e-7, "16-bit mix differs from sox by \(largest * 32_768) LSB")
        let info = try ExternalTool.check("soxi", [dir.file("mix16.wav")]).output
        #expect(info.contains("16-bit"), "\(info)")
        // The --bits 16 applies to every .wav: both files are the same mix.
        #expect(try Self.soxFloats(dir.file("mix.wav")) == ours)
    }

    @Test func floatMixIsWithinAMillionthOfSox() throws {
        let dir = try TemporaryDirectory()
        let floatArgs = ["-e", "floating-point", "-b", "32"]
        try ExternalTool.check(
            "sox",
            ["-n", "-r", "48000", "-c", "2"] + floatArgs + [
                dir.file("a.wav"), "synth", "1", "sine", "300", "vol", "0.4"
            ])
        try ExternalTool.check(
            "sox",
            ["-n", "-r", "48000", "-c", "2"] + floatArgs + [
                dir.file("b.wav"), "synth", "1", "sine", "700", "vol", "0.4"
            ])
        let run = try Self.run([
            "--audio", "\(dir.file("a.wav")),gain=0.7", "--audio", "\(dir.file("b.wav")),gain=0.6", "--output",
            dir.file("mix.wav"),
            "--quiet"
        ])
        #expect(run.status == 0, "\(run.stderr)")
        try ExternalTool.check(
            "sox",
            ["-m", "-v", "0.7", dir.file("a.wav"), "-v", "0.6", dir.file("b.wav")] + floatArgs + [dir.file("sox.wav")])
        let expected = try Self.soxFloats(dir.file("sox.wav"))
        let ours = try Self.soxFloats(dir.file("mix.wav"))
        #expect(ours.count == expected.count)
        #expect((zip(ours, expected).map { abs($0 - $1) }.max() ?? 1) <= 1e-6)
    }

    @Test func pictureInPictureWithImageTextToneAndFileIsAValidMP4() throws {
        let dir = try TemporaryDirectory()
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=30", "-frames:v", "30", "-pix_fmt", "yuv420p",
                dir.file("inset.y4m")
            ])
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=c=red@0.5:s=64x32,format=rgba", "-frames:v", "1",
                dir.file("logo.png")
            ])
        try ExternalTool.check(
            "sox",
            [
                "-n", "-r", "44100", "-c", "1", "-b", "16", dir.file("voice.wav"), "synth", "2", "sine", "660", "vol",
                "0.5"
            ])
        let run = try Self.run([
            "--canvas", "320x180@30", "--video", "pattern", "--video",
            "\(dir.file("inset.y4m")),x=224,y=124,w=80,h=45,z=1",
            "--video", "image:\(dir.file("logo.png")),x=16,y=16,z=2,alpha=0.8", "--audio", "tone:440,gain=0.5",
            "--audio", "\(dir.file("voice.wav")),pan=-0.5", "--text", "On air\\, now,x=20,y=120,size=16", "--duration",
            "1",
            "--preset", "veryfast", "--output", dir.file("pip.mp4"), "--output", dir.file("pip.y4m"), "--quiet"
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try ExternalTool.ffprobeJSON(dir.file("pip.mp4"), ["-count_packets", "-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        #expect(
            video["codec_name"] as? String == "h264" && video["width"] as? Int == 320 && video["height"] as? Int == 180)
        #expect(video["nb_read_packets"] as? String == "30")
        #expect(streams.contains { $0["codec_name"] as? String == "aac" })
        let strict = try ExternalTool.run(
            "ffmpeg", ["-v", "error", "-xerror", "-i", dir.file("pip.mp4"), "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(strict.stderr)")
        let gst = try ExternalTool.run(
            "gst-launch-1.0", ["-q", "filesrc", "location=\(dir.file("pip.mp4"))", "!", "decodebin", "!", "fakesink"])
        #expect(gst.status == 0, "\(gst.stderr)")
        // The .y4m is the canvas: 30 frames; the text's black box at (20, 120); the inset's pixels where it was put.
        let frames = try Self.frames(dir.file("pip.y4m"))
        #expect(frames.count == 30)
        let last = try #require(frames.last)
        #expect(last.planes[0][(122 * 320) + 22] == 16, "the text box is not at (20, 120)")
        let reference = try Self.frames(dir.file("inset.y4m"))[29]
        // The inset is the file scaled by half: its top-left luma, roughly.
        #expect(abs(Int(last.planes[0][126 * 320 + 226]) - Int(reference.planes[0][2 * 160 + 4])) < 40)
    }

    static func frames(_ path: String) throws -> [MediaSample] {
        let reader = try Y4MReader(path: path)
        var frames: [MediaSample] = []
        while let frame = try reader.next() { frames.append(frame) }
        return frames
    }

    @Test(arguments: [
        (["--audio", "tone:440,loud=1", "--duration", "1"], "unknown option 'loud'"),
        (["--audio", "tone:440,gain=20", "--duration", "1"], "gain must be 0...16"),
        (["--video", "tone:440", "--duration", "1"], "a tone is audio"),
        (["--audio", "tone:440"], "'tone:440' never ends: give --duration"),
        (["--audio", "tone:99999", "--duration", "1"], "tone:HZ"),
        (["--text", "hi,size=big", "--duration", "1"], "size="),
        (["--audio", "nosuchfile.wav"], "nosuchfile.wav")
    ]) func badSpecsAreOneLineErrorsThatNameThem(arguments: [String], says: String) throws {
        let dir = try TemporaryDirectory()
        let run = try Self.run(arguments + ["--output", dir.file("out.wav")])
        #expect(run.status != 0)
        #expect(run.stderr.contains(says), "\(run.stderr)")
        #expect(!run.stderr.contains("Fatal error"), "\(run.stderr)")
    }
}
