import Foundation
import MediaTestSupport
import Testing

/// The example under valgrind's memcheck: every FFmpeg allocation freed (no definite leak) and no
/// invalid read or write in the interop, through the encoder and through the resampler.
@Suite(.tags(.valgrind), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct MemoryCheckTests {
    /// valgrind's arguments for `example` (before the example's own): a full leak check in which a
    /// definite leak is an error.
    static func valgrind(_ example: String) -> [String] {
        ValgrindCheck.require()
        return [
            "--leak-check=full", "--errors-for-leak-kinds=definite", "--error-exitcode=9",
            TestPaths.executable(example), "--quiet"
        ]
    }

    /// Records an issue unless valgrind's run was clean: exit 0, no error, no definite leak.
    static func expectClean(_ result: ExternalTool.Result) {
        #expect(result.status == 0, "valgrind: \(result.stderr.suffix(3000))")
        #expect(result.stderr.contains("ERROR SUMMARY: 0 errors"))
        #expect(result.stderr.contains("definitely lost: 0 bytes") || result.stderr.contains("no leaks are possible"))
    }

    func memcheck(_ arguments: [String], example: String = "aac-encoder") throws -> String {
        let result = try ExternalTool.run("valgrind", Self.valgrind(example) + arguments)
        Self.expectClean(result)
        return result.stderr
    }

    @Test func toneThroughTheEncoderLeaksNothing() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("tone.aac")
        _ = try memcheck(["--tone", "440", "--frames", "30000", "--output", out])
        #expect(try ExternalTool.probeFirstStream(out)["nb_read_packets"] as? String == "31")
    }

    @Test func resamplingAndRemixingLeakNothing() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("in.wav")
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=0.5", "-ac", "2", "-c:a", "pcm_s24le", wav])
        let out = dir.file("out.aac")
        _ = try memcheck(["--input", wav, "--sample-rate", "48000", "--channels", "1", "--output", out])
        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["sample_rate"] as? String == "48000")
        #expect(stream["channels"] as? Int == 1)
    }

    /// ADTS → AACDecoder (to s16, through the decoder's converter) → CAF: the decode path.
    @Test func decodingLeaksNothing() throws {
        let dir = try TemporaryDirectory()
        let aac = dir.file("in.aac")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=0.5", "-ac", "2", "-c:a", "aac", aac])
        let out = dir.file("out.caf")
        _ = try memcheck(["--input", aac, "--format", "lpcm", "--output", out], example: "caf-recorder")
        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["codec_name"] as? String == "pcm_s16le")
        #expect(stream["channels"] as? Int == 2)
    }

    /// MP3 → ContainerDemuxer → AudioDecoder → AudioConverter (s16) → WAV: the decode path of the
    /// codecs other than AAC. The WAV holds what `ffmpeg -i in.mp3 -f s16le` prints.
    @Test func decodingMP3LeaksNothing() throws {
        let dir = try TemporaryDirectory()
        let mp3 = dir.file("in.mp3")
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=0.5", "-ac", "2", "-c:a", "libmp3lame", mp3])
        let out = dir.file("out.wav")
        _ = try memcheck(["--input", mp3, "--output", out], example: "transcode")
        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["codec_name"] as? String == "pcm_s16le")
        #expect(try ExternalTool.decode(out, format: "s16le") == ExternalTool.decode(mp3, format: "s16le"))
    }

    /// Raw rgb24 → VideoConverter (swscale) → H264Encoder (libx264) → AnnexBMuxer: the video encode path.
    @Test func convertingAndEncodingVideoLeakNothing() throws {
        let dir = try TemporaryDirectory()
        let rgb = dir.file("in.rgb")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25", "-frames:v", "8", "-pix_fmt",
                "rgb24", "-f", "rawvideo", rgb
            ])
        let out = dir.file("out.h264")
        _ = try memcheck(
            [
                "--input", rgb, "--size", "96x64", "--pix-fmt", "rgb24", "--preset", "ultrafast", "--threads", "1",
                "--output", out
            ],
            example: "h264-encoder")
        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["width"] as? Int == 96)
        #expect(stream["nb_read_packets"] as? String == "8")
    }

    /// Annex-B → AnnexBReader → H264Decoder → H264Encoder: the video decode path.
    @Test func decodingVideoLeaksNothing() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("in.h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25", "-frames:v", "8", "-c:v", "libx264",
                "-preset", "ultrafast", "-f", "h264", source
            ])
        let out = dir.file("out.h264")
        _ = try memcheck(
            ["--input", source, "--preset", "ultrafast", "--threads", "1", "--output", out], example: "h264-encoder")
        #expect(try ExternalTool.probeFirstStream(out)["nb_read_packets"] as? String == "8")
    }

    /// Pattern + tone → H264Encoder + AACEncoder → ContainerMuxer (MP4 with fast start, gapless M4A
    /// rewritten with its iTunSMPB, MPEG-TS), on the graph's threads: the container write path.
    @Test func writingContainersLeaksNothing() throws {
        let dir = try TemporaryDirectory()
        let mp4 = dir.file("av.mp4")
        _ = try memcheck(
            [
                "--pattern", "--size", "96x64", "--fps", "10", "--tone", "440", "--duration", "1", "--preset",
                "ultrafast",
                "--output", mp4, "--output", dir.file("av.m4a"), "--output", dir.file("av.ts")
            ], example: "av-encoder")
        let json = try ExternalTool.ffprobeJSON(mp4, ["-count_packets", "-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(Set(streams.compactMap { $0["codec_name"] as? String }) == ["h264", "aac"])
    }

    /// An MP4 → ContainerDemuxer → decoders → encoders → ContainerMuxer (Matroska), and a --copy remux:
    /// the container read path.
    @Test func readingContainersLeaksNothing() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("in.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.5", "-f", "lavfi", "-i",
                "testsrc2=size=96x64:rate=10",
                "-t", "0.5", "-c:a", "aac", "-c:v", "libx264", "-preset", "ultrafast", input
            ])
        let out = dir.file("out.mkv")
        _ = try memcheck(["--input", input, "--output", out, "--preset", "ultrafast"], example: "transcode")
        _ = try memcheck(["--input", input, "--output", dir.file("copy.mp4"), "--copy"], example: "transcode")
        let json = try ExternalTool.ffprobeJSON(out, ["-count_packets", "-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(streams.count == 2)
    }
}
