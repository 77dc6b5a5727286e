import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `aac-encoder` example end to end, judged by ffprobe, ffmpeg, faad and GStreamer.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AACEncoderExampleTests {
    let encoder = TestPaths.executable("aac-encoder")

    /// Runs the example; returns (status, stderr lines).
    func runExample(_ arguments: [String]) throws -> (status: Int32, lines: [String]) {
        let result = try ExternalTool.run(encoder, arguments)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        return (result.status, lines)
    }

    @Test func exampleIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: encoder), "build the package first: swift build")
    }

    /// tone → AAC → ADTS: ffprobe sees AAC-LC 48 kHz stereo with the right packet count; ffmpeg -xerror,
    /// faad and GStreamer decode it; the decoded audio peaks at 440 Hz at the tone's level.
    @Test func toneFileIsAcceptedByEveryDecoder() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("tone.aac")
        let run = try runExample(["--tone", "440", "--frames", "240000", "--output", out])
        #expect(run.status == 0)
        #expect(run.lines.last?.contains("240000 frames in, 236 packets out") == true, "\(run.lines)")

        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["codec_name"] as? String == "aac")
        #expect(stream["profile"] as? String == "LC")
        #expect(stream["sample_rate"] as? String == "48000")
        #expect(stream["channels"] as? Int == 2)
        #expect(stream["nb_read_packets"] as? String == "236")  // ceil((240000 + 1024) / 1024)

        let stereo = RawAudio.floats(try ExternalTool.decode(out))
        #expect(stereo.count == 236 * 1024 * 2)
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        let body = Array(left[4096..<(4096 + 48_000)])
        let peak = RawAudio.spectralPeak(body, sampleRate: 48_000, low: 100, high: 2000)
        #expect(abs(peak.frequency - 440) <= 1, "peak at \(peak.frequency) Hz")
        #expect(abs(peak.amplitude - 0.5) < 0.05, "amplitude \(peak.amplitude)")

        let faad = try ExternalTool.run("faad", ["-w", "-q", out])
        #expect(faad.status == 0, "\(faad.stderr)")
        #expect(faad.stdout.count > 44 + 236 * 1024 * 2 * 2 / 2, "faad decoded \(faad.stdout.count) bytes")
        #expect(!faad.stderr.localizedCaseInsensitiveContains("error"))

        let gst = try ExternalTool.run("gst-discoverer-1.0", ["file://" + out])
        #expect(gst.status == 0, "\(gst.stderr)")
        #expect(gst.output.contains("MPEG-4 AAC"), "\(gst.output)")
        #expect(gst.output.contains("Channels: 2"))
        #expect(gst.output.contains("Sample rate: 48000"))
    }

    /// With the same input and bit rate, our file is byte-identical to the ffmpeg CLI's.
    @Test(arguments: [("s16", 2, 48_000, 128_000), ("s16", 1, 44_100, 96_000), ("s24", 2, 48_000, 160_000)])
    func fileIsByteIdenticalToTheFFmpegCLI(codec: String, channels: Int, rate: Int, bitRate: Int) throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("in.wav")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i",
                "aevalsrc=0.4*sin(2*PI*440*t)+0.05*(random(0)-0.5)|0.3*sin(2*PI*660*t)+0.05*(random(1)-0.5):s=\(rate):d=3.3",
                "-ac", "\(channels)", "-c:a", "pcm_\(codec)le", wav
            ])
        let cli = dir.file("cli.aac")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", wav, "-c:a", "aac", "-b:a", "\(bitRate)", "-f", "adts", cli])
        let ours = dir.file("ours.aac")
        let run = try runExample(["--input", wav, "--bitrate", "\(bitRate)", "--output", ours, "--quiet"])
        #expect(run.status == 0, "\(run.lines)")
        let a = try Data(contentsOf: URL(fileURLWithPath: ours))
        let b = try Data(contentsOf: URL(fileURLWithPath: cli))
        #expect(a.count == b.count)
        #expect(a == b)

        // The same with every stage on its own thread (Pipeline.runConcurrently).
        let threaded = dir.file("threaded.aac")
        let threadedRun = try runExample([
            "--input", wav, "--bitrate", "\(bitRate)", "--output", threaded, "--quiet", "--threads"
        ])
        #expect(threadedRun.status == 0, "\(threadedRun.lines)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: threaded)) == b)

        // The same through the library API into memory.
        let memory = MemoryOutput()
        var pipeline = Pipeline(
            source: try WAVReader(path: wav, framesPerSample: 333), stages: [try AACEncoder(bitRate: bitRate)],
            sink: ADTSMuxer(output: memory))
        try pipeline.run()
        #expect(Data(memory.bytes) == b)
    }

    /// WAV inputs of every supported sample format, made by ffmpeg and by sox, encode to files
    /// ffprobe counts the right packets in.
    @Test(arguments: [
        ["ffmpeg", "pcm_u8", "1"], ["ffmpeg", "pcm_s16le", "2"], ["ffmpeg", "pcm_s24le", "2"],
        ["ffmpeg", "pcm_s32le", "2"], ["ffmpeg", "pcm_f32le", "2"], ["ffmpeg", "pcm_f64le", "1"],
        ["ffmpeg", "pcm_s16le", "6"], ["sox", "16", "2"], ["sox", "24", "1"], ["sox", "32", "2"]
    ])
    func everyWAVFormatEncodes(arguments: [String]) throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("in.wav")
        let frames = 30_000
        if arguments[0] == "ffmpeg" {
            try ExternalTool.check(
                "ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000", "-af", "atrim=end_sample=\(frames)",
                    "-ac", arguments[2], "-c:a", arguments[1], wav
                ])
        } else {
            try ExternalTool.check(
                "sox",
                [
                    "-n", "-b", arguments[1], "-c", arguments[2], "-r", "48000", wav, "synth", "\(frames)s", "sine",
                    "440", "vol", "0.5"
                ])
        }
        let out = dir.file("out.aac")
        let run = try runExample(["--input", wav, "--output", out, "--quiet"])
        #expect(run.status == 0, "\(arguments): \(run.lines)")
        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["channels"] as? Int == Int(arguments[2]))
        #expect(stream["nb_read_packets"] as? String == "\((frames + 1024 + 1023) / 1024)")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", out, "-f", "null", "-"])
    }

    /// 44.1 kHz in, 48 kHz out: the frame count scales by 48000/44100 and every packet is accounted for.
    @Test func resamplesWhenAsked() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("in44.wav")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=f=1000:r=44100", "-af", "atrim=end_sample=44100", "-ac", "2",
                wav
            ])
        let out = dir.file("out48.aac")
        let run = try runExample(["--input", wav, "--output", out, "--sample-rate", "48000", "--channels", "1"])
        #expect(run.status == 0, "\(run.lines)")
        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["sample_rate"] as? String == "48000")
        #expect(stream["channels"] as? Int == 1)
        #expect(stream["nb_read_packets"] as? String == "\((48_000 + 1024 + 1023) / 1024)")
        let pcm = RawAudio.floats(try ExternalTool.decode(out))
        let peak = RawAudio.spectralPeak(Array(pcm[4096..<28_096]), sampleRate: 48_000, low: 500, high: 1500)
        #expect(abs(peak.frequency - 1000) <= 2)
    }

    /// Bad input: one clear line on standard error and a non-zero exit, never a crash or a hang.
    @Test func badInputExitsNonZeroWithOneLine() throws {
        let dir = try TemporaryDirectory()
        let good = dir.file("good.wav")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=1", "-ac", "2", good])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))

        var zeroChannels = bytes
        zeroChannels[22] = 0
        zeroChannels[23] = 0
        let cases: [(String, Data?, [String])] = [
            ("header-only.wav", bytes.prefix(30), []),
            ("zero-channels.wav", zeroChannels, []),
            ("garbage.wav", Data("RIFF\u{0}\u{1}\u{2}\u{3}not a wave file at all".utf8), []),
            ("missing.wav", nil, []),
            ("good.wav", nil, ["--bitrate", "0"]),
            ("good.wav", nil, ["--sample-rate", "44056"]),
            ("good.wav", nil, ["--frobnicate"])
        ]
        for (name, content, extra) in cases {
            let path = dir.file(name)
            if let content { try content.write(to: URL(fileURLWithPath: path)) }
            let run = try runExample(["--input", path, "--output", dir.file("out.aac")] + extra)
            #expect(run.status != 0, "\(name) \(extra) exited 0")
            #expect(run.status < 128, "\(name) \(extra) crashed with status \(run.status)")
            #expect(run.lines.count == 1, "\(name) \(extra): \(run.lines)")
            #expect(run.lines.first?.hasPrefix("aac-encoder: ") == true)
        }
    }

    /// A WAV cut off mid-data still encodes what is there (as ffmpeg does), and the file stays valid.
    @Test func truncatedWAVEncodesTheFramesPresent() throws {
        let dir = try TemporaryDirectory()
        let good = dir.file("good.wav")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=1", "-ac", "2", good])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        // ffmpeg's header has a LIST chunk: find where the samples start.
        let dataTag = try #require(bytes.firstRange(of: Data("data".utf8)))
        let samplesStart = dataTag.upperBound + 4
        let cut = dir.file("cut.wav")
        try bytes.prefix(samplesStart + 4 * 10_000 + 3).write(to: URL(fileURLWithPath: cut))
        let out = dir.file("cut.aac")
        let run = try runExample(["--input", cut, "--output", out])
        #expect(run.status == 0)
        #expect(run.lines.contains { $0.contains("10000 frames in, 11 packets out") }, "\(run.lines)")
        #expect(
            run.lines.contains { $0.hasPrefix("aac-encoder: warning:") && $0.contains("byte offset") }, "\(run.lines)")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", out, "-f", "null", "-"])
    }
}
