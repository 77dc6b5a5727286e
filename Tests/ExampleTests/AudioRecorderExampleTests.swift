import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `audio-recorder` example from its generated input (`--tone`), end to end: exact durations, Ctrl-C,
/// and what SIGKILL leaves in each container, judged by ffprobe, ffmpeg -xerror and libsndfile.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioRecorderExampleTests {
    static let recorder = TestPaths.executable("audio-recorder")

    static func seconds(_ path: String) throws -> Double {
        let out = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=duration", "-of", "csv=p=0", path]
        ).output
        return Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    static func strictDecode(_ path: String) throws -> ExternalTool.Result {
        try ExternalTool.run("ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
    }

    static func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: recorder)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func aDurationIsExact() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("one.wav")
        let result = try ExternalTool.run(
            Self.recorder, ["--output", path, "--tone", "1000", "--duration", "1", "--rate", "44100", "--channels", "1"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels,duration_ts", "-of", "csv=p=0",
                path
            ]
        ).output
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_s16le,44100,1,44100")
    }

    /// SIGKILL once at least a second is on disk: every container but AAC-in-CAF plays what was written
    /// (AAC-in-CAF has no packet table until the recording is stopped: documented, and checked here).
    @Test func whatSIGKILLLeavesInEachContainer() throws {
        let dir = try TemporaryDirectory()
        let cases: [(file: String, format: String, bytesPerSecond: Int)] = [
            ("k.wav", "lpcm", 192_000), ("k.caf", "lpcm", 192_000), ("k.aif", "lpcm", 192_000),
            ("k.aac", "aac", 16_000), ("k.m4a", "aac", 16_000), ("kaac.caf", "aac", 16_000)
        ]
        var running: [(path: String, process: Process)] = []
        for c in cases {
            let path = dir.file(c.file)
            running.append(
                (path, try Self.start(["--output", path, "--format", c.format, "--tone", "440", "--bitrate", "128000"]))
            )
        }
        defer { for r in running where r.process.isRunning { kill(r.process.processIdentifier, SIGKILL) } }
        // Killed once each has written 1.5 s of audio (by its size), however long that takes here.
        for (c, r) in zip(cases, running) {
            try waitUntil("\(c.file) to reach 1.5 s of audio", every: .milliseconds(50)) {
                fileSize(r.path) >= c.bytesPerSecond * 3 / 2
            }
        }
        for r in running {
            kill(r.process.processIdentifier, SIGKILL)
            r.process.waitUntilExit()
            #expect(r.process.terminationReason == .uncaughtSignal)
        }
        for (c, r) in zip(cases, running) where c.file != "kaac.caf" {
            #expect(try Self.seconds(r.path) >= 0.9, "\(c.file)")
            let decode = try Self.strictDecode(r.path)
            #expect(decode.status == 0, "\(c.file): \(decode.stderr)")
        }
        // libsndfile opens what SIGKILL left (sndfile-info exits 0, prints no error) as 16-bit PCM in that
        // container (SF_FORMAT_WAV, SF_ENDIAN_LITTLE | _CAF, _AIFF; | SF_FORMAT_PCM_16), 48 kHz stereo,
        // with at least the 0.9 s ffprobe saw and no more frames than the file has bytes for.
        for (file, format) in [("k.wav", "0x00010002"), ("k.caf", "0x10180002"), ("k.aif", "0x00020002")] {
            let output = try ExternalTool.check("sndfile-info", [dir.file(file)]).output
            #expect(!output.contains("Error"), "\(file): \(output)")
            let info = try ExternalTool.sndfileSummary(dir.file(file))
            #expect(info["Format"] == format, "\(file): \(info)")
            #expect(info["Channels"] == "2" && info["Sample Rate"] == "48000", "\(file): \(info)")
            let frames = info["Frames"].flatMap { Int($0) } ?? -1
            #expect(frames >= 43_200 && frames * 4 <= fileSize(dir.file(file)), "\(file): \(frames) frames")
        }
        let aacCAF = try ExternalTool.run("ffprobe", ["-v", "error", dir.file("kaac.caf")])
        // as documented: record AAC to .aac or .m4a if the process may die
        #expect(aacCAF.stderr.contains("packet table"))
    }

    @Test func ctrlCFinishesTheFileAndExits130() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("take.caf")
        let process = try Self.start(["--output", path, "--tone", "440"])
        try waitUntil("the recording to reach 8000 bytes", every: .milliseconds(50)) { fileSize(path) >= 8_000 }
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let summary = try AudioFileSummary(path: path)  // AAC in CAF: the packet table was written
        #expect(summary.primingFrames == 1024 && summary.validFrames > 0)
        #expect(try Self.strictDecode(path).status == 0)
    }

    /// `--meter-json`: one object per 100 ms with `peak` and `average` per channel; a 0.5-amplitude sine
    /// reads −6.02 dB peak and −9.03 dB average (RMS) once the 300 ms window is full.
    @Test func meterJSONPrintsApplesDBFS() throws {
        let dir = try TemporaryDirectory()
        let result = try ExternalTool.run(
            Self.recorder, ["--output", dir.file("m.caf"), "--tone", "440", "--duration", "1.2", "--meter-json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.output.split(separator: "\n")
        #expect((9...13).contains(lines.count), "\(lines.count) lines in 1.2 s")
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let peak = try #require(object["peak"] as? [Double]), average = try #require(object["average"] as? [Double])
            #expect(peak.count == 2 && average.count == 2)
            guard let time = object["time"] as? Double, time >= 0.4 else { continue }
            #expect(peak.allSatisfy { abs($0 + 6.02) < 0.05 }, "\(line)")
            #expect(average.allSatisfy { abs($0 + 9.03) < 0.05 }, "\(line)")
        }
    }

    @Test func usageErrorsAreOneLineWithStatus64() throws {
        let unknown = try ExternalTool.run(Self.recorder, ["--output", "/tmp/x.ogg", "--tone", "440"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.split(separator: "\n").count == 1 && unknown.stderr.contains("x.ogg"))
        let wrong = try ExternalTool.run(Self.recorder, ["--output", "/tmp/x.wav", "--format", "aac", "--tone", "440"])
        #expect(wrong.status == 64)
    }
}
