import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `audio-player` example without a device (`--render`): its options reach the player, and it
/// exits as documented.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioPlayerExampleTests {
    static let player = TestPaths.executable("audio-player")

    @Test func renderAppliesTheOptions() throws {
        let dir = try TemporaryDirectory()
        let input = try AudioFixture.twoTones(dir, seconds: 2)
        let out = dir.file("out.wav")
        let result = try ExternalTool.run(
            Self.player, [input, "--render", out, "--volume", "0.5", "--loops", "1", "--start", "1", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        // From 1 s: 1 s, then the whole 2 s once more = 3 s, at −6.02 dB.
        let probe = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=duration_ts", "-of", "csv=p=0", out]
        ).output
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "\(3 * 48_000)")
        let reference = try AudioFixture.soxLevels(input), played = try AudioFixture.soxLevels(out)
        #expect(abs(played.rms[0] - reference.rms[0] + 6.02) < 0.2)
    }

    /// `-` plays standard input as it arrives (AudioStreamPlayer): an MP3 piped in renders to what ffmpeg
    /// decodes of it, from `--start` on, sample for sample; `--loops` is refused for a stream.
    @Test func standardInputPlaysAsItArrives() throws {
        let dir = try TemporaryDirectory()
        let mp3 = dir.file("in.mp3"), out = dir.file("out.wav")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2", "-ac", "2",
                "-c:a", "libmp3lame", mp3
            ])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: mp3))
        let result = try ExternalTool.run(
            Self.player, ["-", "--render", out, "--start", "0.5", "--quiet"], stdin: bytes)
        #expect(result.status == 0, "\(result.stderr)")
        let played = RawAudio.floats(try ExternalTool.decode(out))
        let reference = Array(RawAudio.floats(try ExternalTool.decode(mp3)).dropFirst(24_000 * 2))
        #expect(played.count == reference.count, "\(played.count / 2) frames, \(reference.count / 2) expected")
        #expect((zip(played, reference).map { abs($0 - $1) }.max() ?? 1) <= 1e-6)
        let refused = try ExternalTool.run(Self.player, ["-", "--render", out, "--loops", "1"], stdin: bytes)
        #expect(refused.status == 64 && refused.stderr.contains("need a file"), "\(refused.stderr)")
    }

    @Test func badOptionsAreUsageErrors() throws {
        for arguments in [["x.wav", "--volume", "2"], ["x.wav", "--rate", "3"], ["x.wav", "--pan", "-2"]] {
            let result = try ExternalTool.run(Self.player, arguments)
            #expect(result.status == 64, "\(arguments)")
        }
        let missing = try ExternalTool.run(Self.player, ["/nonexistent.wav", "--render", "/tmp/x.wav"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("audio-player: "))
    }

    /// A missing file is named as such, before any device is looked for: with no PulseAudio server
    /// to reach (as here, where the tests start their own), the players used to say the server refused.
    @Test func aMissingFileIsNamedBeforeTheDeviceIsReached() throws {
        for (program, arguments) in [
            (Self.player, ["/nonexistent/song.mp3"]),
            (TestPaths.executable("media-player"), ["/nonexistent/movie.mp4", "--no-display"])
        ] {
            let result = try ExternalTool.run(program, arguments)
            #expect(result.status == 1, "\(program): \(result.stderr)")
            #expect(result.stderr.contains(arguments[0]), "\(program): \(result.stderr)")
            #expect(!result.stderr.lowercased().contains("pulseaudio"), "\(program): \(result.stderr)")
        }
    }
}
