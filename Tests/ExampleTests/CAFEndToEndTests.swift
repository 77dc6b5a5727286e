#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// caf-recorder's files judged by ffprobe, ffmpeg and libsndfile, and by our own reader and decoder;
/// Apple's AAC CAF read and decoded by ours.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct CAFEndToEndTests {
    let recorder = TestPaths.executable("caf-recorder")
    let info = TestPaths.executable("caf-info")

    func record(_ arguments: [String]) throws -> (status: Int32, lines: [String]) {
        let result = try ExternalTool.run(recorder, arguments)
        return (result.status, result.stderr.split(separator: "\n").map(String.init))
    }

    func infoJSON(_ path: String) throws -> [String: Any] {
        let run = try ExternalTool.run(info, [path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    }

    /// Frames our CAFReader + AACDecoder give for `path` (trims honoured).
    func decodedFrames(_ path: String) throws -> Int {
        let sink = CollectingSink()
        var pipeline = Pipeline(source: try CAFReader(path: path), stages: [AACDecoder()], sink: sink)
        try pipeline.run()
        let samples = try #require(pipeline.finishedSink as? CollectingSink).samples
        return samples.reduce(0) { $0 + $1.frameCount }
    }

    /// N = 100000 frames of the tone → AAC CAF: pakt says N valid, 1024 priming and the right remainder;
    /// ffprobe and ffmpeg -xerror accept it; ffmpeg's decode minus pakt's priming lines up with the sine at
    /// lag 0; our reader + decoder give exactly N frames.
    @Test func aacRecordingIsSampleExact() throws {
        let n = 100_000
        let dir = try TemporaryDirectory()
        let out = dir.file("tone.caf")
        let run = try record(["--tone", "440", "--frames", "\(n)", "--output", out])
        #expect(run.status == 0, "\(run.lines)")
        let packets = (n + 1024 + 1023) / 1024
        #expect(run.lines.last?.contains("\(n) frames in, \(packets) packets out") == true, "\(run.lines)")

        let json = try infoJSON(out)
        #expect(json["formatID"] as? String == "aac ")
        #expect(json["packets"] as? Int == packets)
        #expect(json["validFrames"] as? Int == n)
        #expect(json["primingFrames"] as? Int == 1024)
        #expect(json["remainderFrames"] as? Int == packets * 1024 - 1024 - n)

        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["codec_name"] as? String == "aac")
        #expect(stream["sample_rate"] as? String == "48000")
        #expect(stream["channels"] as? Int == 2)
        try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", out, "-f", "null", "-"])

        // ffmpeg's decode, left channel, with pakt's priming dropped.
        let stereo = RawAudio.floats(try ExternalTool.decode(out))
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        #expect(left.count == packets * 1024)
        let decoded = Array(left.dropFirst(1024))
        #expect(decoded.count >= n)
        let reference = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        if decoded.count >= n {
            var best = (lag: Int.min, value: -Double.infinity)
            for lag in -40...40 {
                var sum = 0.0
                for i in 2048..<(n - 2048) { sum += Double(decoded[i + lag]) * Double(reference[i]) }
                if sum > best.value { best = (lag, sum) }
            }
            #expect(best.lag == 0, "cross-correlation peaks at lag \(best.lag)")
            let error = (2048..<(n - 2048)).reduce(0.0) { max($0, Double(abs(decoded[$1] - reference[$1]))) }
            #expect(error < 0.05, "largest difference from the sine: \(error)")
        }

        #expect(try decodedFrames(out) == n)
    }

    /// Apple's AAC CAF: our reader gives what its SOURCES.tsv line says and our decoder decodes every
    /// packet, giving the valid frames exactly.
    @Test func appleFileDecodesToItsValidFrames() throws {
        let path = TestPaths.fixture("mattetti-audio_ring.caf")
        let reader = try CAFReader(path: path)
        #expect(reader.format.codec == .aac)
        #expect(reader.format.sampleRate == 44_100)
        #expect(reader.format.channelCount == 2)
        #expect(reader.packetCount == 89)
        #expect(reader.packetTable?.primingFrames == 2112)
        #expect(reader.packetTable?.remainderFrames == 960)
        #expect(try decodedFrames(path) == 88_064)
    }

    /// An s16 stereo WAV → lpcm CAF: sndfile-info sees 16-bit PCM with the right frame count and ffmpeg
    /// decodes exactly the WAV's samples.
    @Test func pcmRecordingIsBitExact() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("x.wav")
        let frames = 77_777
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i",
                "aevalsrc=0.4*sin(2*PI*440*t)+0.05*(random(0)-0.5)|0.3*sin(2*PI*660*t)+0.05*(random(1)-0.5):s=48000",
                "-af", "atrim=end_sample=\(frames)", "-ac", "2", "-c:a", "pcm_s16le", wav
            ])
        let out = dir.file("x.caf")
        let run = try record(["--format", "lpcm", "--input", wav, "--output", out])
        #expect(run.status == 0, "\(run.lines)")
        #expect(run.lines.last?.contains("\(frames) frames in, \(frames) packets out") == true, "\(run.lines)")

        let sndfile = try ExternalTool.check("sndfile-info", [out]).output
        #expect(sndfile.contains("Frames      : \(frames)\n"), "\(sndfile)")
        #expect(sndfile.contains("Channels    : 2\n"))
        #expect(sndfile.contains("Sample Rate : 48000\n"))
        #expect(sndfile.contains("Format      : 0x10180002\n"), "CAF, little-endian, PCM 16: \(sndfile)")

        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["codec_name"] as? String == "pcm_s16le")
        let ours = try ExternalTool.decode(out, format: "s16le")
        let theirs = try ExternalTool.decode(wav, format: "s16le")
        #expect(ours.count == frames * 4)
        #expect(ours == theirs)
    }

    /// An ffmpeg-written ADTS file remuxed into CAF: the same packets byte for byte, accepted by ffprobe
    /// and ffmpeg -xerror; no trims known, so priming and remainder are 0.
    @Test func adtsIsRemuxedWithoutReencoding() throws {
        let dir = try TemporaryDirectory()
        let adts = dir.file("in.aac")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=f=1000:r=44100:d=2", "-ac", "2", "-c:a", "aac", "-b:a",
                "128000",
                "-f", "adts", adts
            ])
        let out = dir.file("remux.caf")
        let run = try record(["--input", adts, "--output", out])
        #expect(run.status == 0, "\(run.lines)")

        let adtsReader = try ADTSReader(path: adts)
        var expected: [[UInt8]] = []
        while let packet = try adtsReader.next() { expected.append(packet.data) }
        let cafReader = try CAFReader(path: out)
        var actual: [[UInt8]] = []
        while let packet = try cafReader.next() { actual.append(packet.data) }
        #expect(expected.count > 80)
        #expect(actual.count == expected.count)
        #expect(actual == expected)
        #expect(cafReader.format.sampleRate == 44_100)
        #expect(cafReader.packetTable?.primingFrames == 0)
        #expect(cafReader.packetTable?.remainderFrames == 0)

        let stream = try ExternalTool.probeFirstStream(out)
        #expect(stream["codec_name"] as? String == "aac")
        #expect(stream["sample_rate"] as? String == "44100")
        #expect(stream["channels"] as? Int == 2)
        try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", out, "-f", "null", "-"])
    }

    /// An AAC CAF (Apple's) remuxed into CAF keeps packets and trims; decoded to lpcm it gives the valid frames.
    @Test func aacCAFIsRemuxedOrDecoded() throws {
        let dir = try TemporaryDirectory()
        let apple = TestPaths.fixture("mattetti-audio_ring.caf")
        let remux = dir.file("remux.caf")
        #expect(try record(["--input", apple, "--output", remux, "--quiet"]).status == 0)
        let json = try infoJSON(remux)
        #expect(json["packets"] as? Int == 89)
        #expect(json["validFrames"] as? Int == 88_064)
        #expect(json["primingFrames"] as? Int == 2112)
        #expect(json["remainderFrames"] as? Int == 960)
        let original = try CAFReader(path: apple)
        let copy = try CAFReader(path: remux)
        while let a = try original.next() {
            let b = try copy.next()
            #expect(b?.data == a.data)
        }
        #expect(try copy.next() == nil)

        let pcm = dir.file("pcm.caf")
        #expect(try record(["--input", apple, "--format", "lpcm", "--output", pcm, "--quiet"]).status == 0)
        let pcmJSON = try infoJSON(pcm)
        #expect(pcmJSON["formatID"] as? String == "lpcm")
        #expect(pcmJSON["bitsPerChannel"] as? Int == 16)
        #expect(pcmJSON["validFrames"] as? Int == 88_064)
    }

    /// Examples/caf-recorder/README.md, "The same pipeline in code": WAV → AAC → CAF, sample-exact.
    @Test func readmePipelineInCode() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("in.wav")
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000", "-af", "atrim=end_sample=30000", "-ac", "2", wav]
        )
        let source = try WAVReader(path: wav)
        var pipeline = Pipeline(
            source: source, stages: [try AACEncoder(bitRate: 96_000)],
            sink: CAFMuxer(output: try FileOutput(path: dir.file("rec.caf"))))
        let result = try pipeline.run()
        #expect(result.framesRead == 30_000)
        #expect(result.samplesWritten == 31)  // ceil((30000 + 1024) / 1024)
        let json = try infoJSON(dir.file("rec.caf"))
        #expect(json["validFrames"] as? Int == 30_000)
        #expect(try decodedFrames(dir.file("rec.caf")) == 30_000)
    }

    /// PCM CAF inputs written by ffmpeg (s24, big-endian s16, f32) and libsndfile: caf-info counts their
    /// frames, and caf-recorder --format lpcm copies their samples bit for bit (ffmpeg decodes both the same).
    @Test(arguments: [["ffmpeg", "pcm_s24le"], ["ffmpeg", "pcm_s16be"], ["ffmpeg", "pcm_f32le"], ["sndfile", "-pcm16"]])
    func pcmCAFInputsAreCopied(arguments: [String]) throws {
        let dir = try TemporaryDirectory()
        let frames = 23_456
        let input = dir.file("in.caf")
        if arguments[0] == "ffmpeg" {
            try ExternalTool.check(
                "ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100", "-af", "atrim=end_sample=\(frames)",
                    "-ac", "2", "-c:a", arguments[1], "-f", "caf", input
                ])
        } else {
            let wav = dir.file("in.wav")
            try ExternalTool.check(
                "ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100", "-af", "atrim=end_sample=\(frames)",
                    "-ac", "2", wav
                ])
            try ExternalTool.check("sndfile-convert", [arguments[1], wav, input])
        }
        #expect(try infoJSON(input)["validFrames"] as? Int == frames)
        let out = dir.file("out.caf")
        let run = try record(["--format", "lpcm", "--input", input, "--output", out, "--quiet"])
        #expect(run.status == 0, "\(arguments): \(run.lines)")
        let json = try infoJSON(out)
        #expect(json["validFrames"] as? Int == frames)
        #expect(json["sampleRate"] as? Int == 44_100)
        let raw = arguments[1] == "pcm_f32le" ? "f32le" : "s32le"
        #expect(try ExternalTool.decode(out, format: raw) == ExternalTool.decode(input, format: raw), "\(arguments)")
    }
}
