import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `audio-convert` example end to end, judged by ffmpeg and ffprobe.
@Suite(.timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct AudioConvertExampleTests {
    static let convert = TestPaths.executable("audio-convert")

    static func make(_ path: String, _ arguments: [String], seconds: Double = 2) throws {
        try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                "aevalsrc=0.4*sin(2*PI*440*t)|0.3*sin(2*PI*660*t):s=44100:d=\(seconds)"
            ] + arguments + [path])
    }

    static func raw(_ path: String, _ format: String = "s16le") throws -> Data {
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-f", format, "-"]).stdout
    }

    /// `--input x.mp3 --output x.wav` is the decoded PCM at the file's rate and channels: what ffmpeg's
    /// gapless decode of the same file gives, sample for sample.
    @Test func anMP3BecomesItsDecodedPCM() throws {
        let dir = try TemporaryDirectory()
        let mp3 = dir.file("in.mp3")
        try Self.make(mp3, ["-c:a", "libmp3lame", "-b:a", "160k"])
        let wav = dir.file("out.wav")
        let result = try ExternalTool.run(Self.convert, ["--input", mp3, "--output", wav])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("audio-convert: MP3"))
        let probe = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels", "-of", "csv=p=0", wav]
        ).output
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_s16le,44100,2")
        #expect(try Self.raw(wav) == (try Self.raw(mp3)))
    }

    /// Lossless stays lossless (issue 33: an Apple Lossless CAF became 16-bit WAV): a 24-bit ALAC CAF, as
    /// ffmpeg writes it (the depth only in the magic cookie, mFormatFlags 0), converts to a 24-bit WAV
    /// holding ffmpeg's decode sample for sample, and MediaPipeline's AudioFile reads it as s24 too.
    @Test func a24BitAppleLosslessCAFBecomesA24BitWAV() throws {
        let dir = try TemporaryDirectory()
        let caf = dir.file("in.caf")
        try Self.make(caf, ["-c:a", "alac", "-sample_fmt", "s32p"])
        let bits = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=bits_per_raw_sample", "-of", "csv=p=0", caf]
        ).output
        #expect(bits.trimmingCharacters(in: .whitespacesAndNewlines) == "24", "the fixture is 24-bit ALAC")
        let wav = dir.file("out.wav")
        let result = try ExternalTool.run(Self.convert, ["--input", caf, "--output", wav])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", wav]
        ).output
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_s24le")
        #expect(try Self.raw(wav, "s24le") == (try Self.raw(caf, "s24le")))
        #expect(try AudioFile(path: caf).outputFormat.sampleType == .s24)
    }

    /// PCM stays as it is unless asked: a 24-bit AIFF to WAV keeps 24 bits and every sample.
    @Test func pcmIsUnchangedUnlessAsked() throws {
        let dir = try TemporaryDirectory()
        let aif = dir.file("in.aif")
        try Self.make(aif, ["-c:a", "pcm_s24be", "-f", "aiff"])
        let wav = dir.file("out.wav")
        #expect(try ExternalTool.run(Self.convert, ["-q", "--input", aif, "--output", wav]).status == 0)
        let codec = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", wav]
        ).output
        #expect(codec.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_s24le")
        #expect(try Self.raw(wav, "s24le") == (try Self.raw(aif, "s24le")))
        // And back to AIFF: the bytes ffmpeg -f aiff writes for the same PCM.
        let back = dir.file("back.aif")
        let theirs = dir.file("theirs.aif")
        #expect(try ExternalTool.run(Self.convert, ["-q", "--input", wav, "--output", back]).status == 0)
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", wav, "-c:a", "pcm_s24be", "-fflags", "+bitexact", "-map_metadata", "-1", "-f",
                "aiff", theirs
            ])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: back)) == (try Data(contentsOf: URL(fileURLWithPath: theirs))))
    }

    @Test func rateChannelsAndSampleTypeAreConvertedWhenAsked() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("in.wav")
        try Self.make(wav, ["-c:a", "pcm_s16le"])
        let au = dir.file("out.au")
        let result = try ExternalTool.run(
            Self.convert, ["-q", "--input", wav, "--output", au, "--rate", "22050", "--channels", "1", "--float"])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels", "-of", "csv=p=0", au]
        ).output
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_f32be,22050,1")
        let frames = try Self.raw(au, "f32le").count / 4
        #expect(abs(frames - 44_100) <= 64, "\(frames) frames")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", au, "-f", "null", "-"])
    }

    /// AAC into M4A is gapless: the decoded length is the input's frame count.
    @Test func aacIntoM4AKeepsEveryFrame() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("in.wav")
        try Self.make(wav, ["-c:a", "pcm_s16le"], seconds: 1.5)
        let m4a = dir.file("out.m4a")
        let result = try ExternalTool.run(Self.convert, ["-q", "--input", wav, "--output", m4a, "--bitrate", "96000"])
        #expect(result.status == 0, "\(result.stderr)")
        let codec = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", m4a]
        ).output
        #expect(codec.trimmingCharacters(in: .whitespacesAndNewlines) == "aac")
        let tag = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "format_tags=iTunSMPB", "-of", "csv=p=0", m4a]
        ).output
        #expect(tag.contains(String(66_150, radix: 16, uppercase: true)), "\(tag)")  // 1.5 s × 44100 valid frames
    }

    @Test func usageErrorsAreOneLineWithStatus64() throws {
        for arguments in [
            ["--input", "a.wav", "--output", "b.xyz"], ["--input", "a.wav", "--output", "b.wav", "--bits", "20"],
            ["--input", "a.wav", "--output", "b.wav", "--format", "aac"], ["--output", "b.wav"]
        ] {
            let result = try ExternalTool.run(Self.convert, arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(
                result.stderr.hasPrefix("audio-convert: ") && result.stderr.split(separator: "\n").count == 1,
                "\(result.stderr)")
        }
        let missing = try ExternalTool.run(Self.convert, ["--input", "/nonexistent.wav", "--output", "/tmp/x.wav"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent.wav"))
    }
}
