import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The codecs of the one codec table through `transcode` (issue 32): a copy of an Opus, FLAC, ALAC or
/// HEVC, AV1, VP9 or DTS track (into MP4, Matroska, WebM and MPEG-TS) writes the packets `ffmpeg -c copy` writes (size, MD5, pts, dts, flags, and the Matroska
/// end trim), where the demuxer's names (`'opus'`, `'flac'`) were once refused by the muxer's table
/// (`'Opus'`, `'fLaC'`); HEVC in MP4 is tagged `hvc1`; and Opus, FLAC, Vorbis and AC-3 decode to the
/// samples ffmpeg decodes.
@Suite(.timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct TranscodeCodecTableTests {
    /// A case: how ffmpeg writes the input (codec arguments, extension), and the output's extension.
    struct Copy: Sendable, CustomStringConvertible {
        var codec: [String]
        var input: String
        var output: String
        var ffmpegExtra: [String] = []
        var description: String { "\(codec.last ?? "?") \(input) → \(output)" }
    }

    /// ALAC from Matroska into MP4 is left out: Matroska gives the last packet no duration and the
    /// ffmpeg CLI writes it with none, so that ffprobe then reads one packet fewer (ours keeps its 4096
    /// frames). HEVC comes from MP4: Matroska's B-frames have no decode times, which the CLI makes up.
    static let copies: [Copy] = [
        Copy(codec: ["-c:a", "libopus"], input: "mkv", output: "mkv"),
        Copy(codec: ["-c:a", "libopus"], input: "ogg", output: "webm"),
        Copy(codec: ["-c:a", "flac"], input: "flac", output: "mkv"),
        Copy(codec: ["-c:a", "alac"], input: "m4a", output: "mkv"),
        Copy(codec: ["-c:a", "alac"], input: "m4a", output: "mp4"),
        Copy(
            codec: ["-c:v", "libx265", "-x265-params", "log-level=none"], input: "mp4", output: "mp4",
            ffmpegExtra: ["-tag:v", "hvc1"]),
        Copy(codec: ["-c:v", "libx265", "-x265-params", "log-level=none"], input: "mp4", output: "mkv"),
        Copy(codec: ["-c:a", "dca", "-strict", "-2"], input: "mov", output: "mkv"),
        // MPEG-TS as the CLI writes it (its -muxdelay 0.7: timestamps from 1.4 s, audio PES of up to 0.35 s).
        Copy(codec: ["-c:v", "libx265", "-x265-params", "log-level=none"], input: "mp4", output: "ts"),
        Copy(codec: ["-c:a", "libopus"], input: "mkv", output: "ts"),
        Copy(codec: ["-c:v", "libsvtav1", "-preset", "12"], input: "mp4", output: "mkv"),
        Copy(codec: ["-c:v", "libsvtav1", "-preset", "12"], input: "mkv", output: "mp4"),
        Copy(codec: ["-c:v", "libsvtav1", "-preset", "12"], input: "mp4", output: "webm"),
        // VP9 into MP4 needs the demuxer's vpcC (VP9 has no extradata): libavformat refuses an empty one.
        Copy(codec: ["-c:v", "libvpx-vp9", "-cpu-used", "8"], input: "webm", output: "mp4"),
        Copy(codec: ["-c:v", "libvpx-vp9", "-cpu-used", "8"], input: "mp4", output: "mkv")
    ]

    /// Two seconds of a tone (or, for video, a test pattern) written by ffmpeg with `codec`.
    static func input(_ codec: [String], ext: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("in.\(ext)")
        let source =
            codec.first == "-c:v"
            ? ["-f", "lavfi", "-i", "testsrc2=size=128x96:rate=25:duration=2"]
            : ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2"]
        try ExternalTool.check("ffmpeg", ["-v", "error"] + source + codec + [path])
        return path
    }

    /// The end trims (`discard_padding`) of every packet that has one, as ffprobe reads them.
    static func discardPaddings(_ path: String) throws -> [String] {
        try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "packet_side_data=discard_padding", "-of", "csv=p=0", path]
        ).output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    @Test(arguments: copies)
    func aCopyWritesThePacketsFFmpegCopyWrites(_ copy: Copy) throws {
        let dir = try TemporaryDirectory()
        let input = try Self.input(copy.codec, ext: copy.input, in: dir)
        let ours = dir.file("ours.\(copy.output)")
        let theirs = dir.file("theirs.\(copy.output)")
        let result = try TranscodeExampleTests.run(["--input", input, "--output", ours, "--copy", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-y", "-i", input, "-c", "copy"] + copy.ffmpegExtra + [theirs])
        let stream = copy.codec.first == "-c:v" ? "v:0" : "a:0"
        let packets = try ExternalTool.packetFingerprints(ours, stream: stream)
        #expect(packets.count >= 20)  // 2 s: 50 frames, 100 Opus packets, 21 to 24 FLAC or ALAC packets
        #expect(packets == (try ExternalTool.packetFingerprints(theirs, stream: stream)))
        #expect(try Self.discardPaddings(ours) == (try Self.discardPaddings(theirs)))
        if copy.output == "mp4", stream == "v:0" {
            let tag = try ExternalTool.check(
                "ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0", ours]
            ).output.trimmingCharacters(in: .whitespacesAndNewlines)
            let expected = ["libx265": "hvc1", "libsvtav1": "av01", "libvpx-vp9": "vp09"][copy.codec[1]]
            #expect(tag == expected)
            let decode = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", ours, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        }
    }

    @Test(arguments: [
        (["-c:a", "libopus"], "mkv"), (["-c:a", "libopus"], "ogg"), (["-c:a", "flac"], "flac"),
        (["-c:a", "ac3"], "mkv"),
        (["-c:a", "dca", "-strict", "-2"], "mov")
    ])
    func aTrackDecodesToTheSamplesFFmpegDecodes(codec: [String], ext: String) throws {
        let dir = try TemporaryDirectory()
        let input = try Self.input(codec, ext: ext, in: dir)
        let wav = dir.file("ours.wav")
        let result = try TranscodeExampleTests.run(["--input", input, "--output", wav, "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let pcm = ["-f", "s16le", "-ac", "1", "-"]
        let ours = try ExternalTool.check("ffmpeg", ["-v", "error", "-i", wav] + pcm).stdout
        let theirs = try ExternalTool.check("ffmpeg", ["-v", "error", "-i", input] + pcm).stdout
        #expect(ours.count >= 2 * 90_000)  // about 2 s at 48 kHz
        #expect(ours.count == theirs.count)
        #expect(ours == theirs)
    }

    /// `--audio-codec opus` (issue 32's flag): the audio of an H.264 + AAC movie re-encoded to Opus in
    /// Matroska beside the H.264, and alone in Ogg (`.opus`) with the audio-only preset; ffmpeg decodes
    /// both without an error, and the Ogg holds the movie's 2 s of audio at 48 kHz, frame for frame.
    @Test func audioCodecOpusWritesOpusThatFFmpegDecodes() throws {
        let dir = try TemporaryDirectory()
        let movie = dir.file("in.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i",
                "sine=duration=2:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                "-shortest",
                movie
            ])
        let mkv = dir.file("out.mkv")
        let opus = dir.file("out.opus")
        let both = try TranscodeExampleTests.run(["--input", movie, "--output", mkv, "--audio-codec", "opus", "-q"])
        #expect(both.status == 0, "\(both.stderr)")
        let alone = try TranscodeExampleTests.run([
            "--input", movie, "--output", opus, "--export-preset", "m4a", "--audio-codec", "opus", "-q"
        ])
        #expect(alone.status == 0, "\(alone.stderr)")
        for path in [mkv, opus] {
            let codecs = try ExternalTool.check(
                "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,sample_rate", "-of", "csv=p=0", path]
            ).output
            #expect(codecs.contains("opus,48000"), "\(path): \(codecs)")
            try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
        }
        // 2 s at 48 kHz exactly: the AAC's priming and padding trimmed by our decoder, Opus's pre-skip and
        // end by ffmpeg's reading of the Ogg (ffmpeg's own decoding of the MP4 keeps AAC's end padding).
        let decoded = try ExternalTool.check("ffmpeg", ["-v", "error", "-i", opus, "-f", "s16le", "-ac", "1", "-"])
        #expect(decoded.stdout.count / 2 == 96_000)
    }
}
