import Foundation
import MediaTestSupport
import Testing

/// The main path of the examples ``MemoryCheckTests`` does not cover, under valgrind's memcheck with
/// small inputs: no definite leak, no invalid read or write. (`audio-recorder` and `audio-devices` need a
/// PulseAudio daemon: ``AudioRecorderMemoryCheckTests``.)
@Suite(.tags(.valgrind), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct MemoryCheckExampleTests {
    let check = MemoryCheckTests()

    /// WAV → AudioConverter → AACEncoder → ContainerMuxer (M4A): `audio-convert`'s encode path.
    @Test func audioConvertLeaksNothing() throws {
        let dir = try TemporaryDirectory()
        let wav = try AudioFixture.twoTones(dir, seconds: 0.5)
        let out = dir.file("out.m4a")
        _ = try check.memcheck(["--input", wav, "--output", out, "--rate", "44100"], example: "audio-convert")
        #expect(try ExternalTool.probeFirstStream(out)["codec_name"] as? String == "aac")
    }

    /// WAV → decoder → gain, pan and time-stretch stages → WAV (`--render`): `audio-player`'s path
    /// without the device.
    @Test func audioPlayerRenderLeaksNothing() throws {
        let dir = try TemporaryDirectory()
        let wav = try AudioFixture.twoTones(dir, seconds: 0.5)
        let out = dir.file("out.wav")
        _ = try check.memcheck(
            [wav, "--render", out, "--volume", "0.5", "--pan", "0.3", "--rate", "1.5"],
            example: "audio-player")
        // The render is a float WAV (the README's --render).
        #expect(try ExternalTool.probeFirstStream(out)["codec_name"] as? String == "pcm_f32le")
    }

    /// An MP3 through `media-info`'s probe (AudioFileStreamParser: media-info reads audio files, as afinfo
    /// does), and a CAF through `caf-info`'s parser.
    @Test func mediaInfoAndCAFInfoLeakNothing() throws {
        let dir = try TemporaryDirectory()
        let mp3 = dir.file("in.mp3")
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=0.3", "-c:a", "libmp3lame", "-b:a", "64k", mp3])
        let caf = dir.file("in.caf")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=0.3", "-c:a", "pcm_s16le", caf])
        let info = try check.memcheck([mp3, "--json"], example: "media-info")
        #expect(info.contains("ERROR SUMMARY: 0 errors"))
        _ = try check.memcheck([caf, "--json"], example: "caf-info")
    }

    /// Pattern + tone → encoders → HLS segments, paced in real time: `live-streamer`'s path.
    @Test func liveStreamerLeaksNothing() throws {
        let dir = try TemporaryDirectory()
        let playlist = dir.file("live.m3u8")
        _ = try check.memcheck(
            [
                "--to", playlist, "--pattern", "--size", "96x64", "--fps", "10", "--tone", "440", "--duration", "1",
                "--bitrate", "200000", "--hls-list-size", "0", "--preset", "ultrafast"
            ], example: "live-streamer")
        let json = try ExternalTool.ffprobeJSON(playlist, ["-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(Set(streams.compactMap { $0["codec_name"] as? String }) == ["h264", "aac"])
    }
}
