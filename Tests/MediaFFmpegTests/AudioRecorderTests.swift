import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ``AudioRecorder`` from generated input (no device): exact durations, every container judged by
/// ffprobe/ffmpeg/sox, pauses without a gap or a click, deleting, refusals.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioRecorderTests {
    static func tone(realTime: Bool, seconds: Double = 30, rate: Int = 48_000) -> AudioRecorderInput {
        .source {
            let tone = try ToneGenerator(
                .sine(frequency: 440, amplitude: 0.5), sampleRate: rate, channels: 2, sampleType: .f32,
                length: .frames(Int64(seconds * Double(rate))), framesPerSample: 480)
            return realTime ? RealTimeSource(tone) : tone
        }
    }

    /// Waits (bounded) for the recorder's finished event.
    static func finished(_ recorder: AudioRecorder) async throws -> [AudioRecorderEvent] {
        var seen: [AudioRecorderEvent] = []
        for await event in recorder.events {
            seen.append(event)
            if case .finished = event { break }
        }
        return seen
    }

    static func probe(_ path: String) throws -> [String: Any] {
        let out = try ExternalTool.check("ffprobe", ["-v", "error", "-show_streams", "-of", "json", path]).stdout
        let json = try JSONSerialization.jsonObject(with: out) as? [String: Any]
        return try #require((json?["streams"] as? [[String: Any]])?.first)
    }

    /// The file decoded by ffmpeg (which must not complain) as interleaved float.
    static func decoded(_ path: String) throws -> [Float] {
        let raw = path + ".f32"
        try ExternalTool.check(
            "ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-y", "-i", path, "-f", "f32le", "-c:a", "pcm_f32le", raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test(arguments: ["caf", "wav", "aiff"])
    func aDurationIsExactInEveryPCMContainer(_ ext: String) async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("take.\(ext)")
        let recorder = try AudioRecorder(
            path: path, settings: .init(format: .linearPCM), input: Self.tone(realTime: false))
        try recorder.record(forDuration: 1.25)
        let events = try await Self.finished(recorder)
        #expect(events == [.finished(successfully: true)])
        #expect(!recorder.isRecording)
        let stream = try Self.probe(path)
        #expect(stream["codec_name"] as? String == (ext == "aiff" ? "pcm_s16be" : "pcm_s16le"))
        #expect(stream["sample_rate"] as? String == "48000")
        #expect(stream["channels"] as? Int == 2)
        #expect(try Self.decoded(path).count == 60_000 * 2)  // 1.25 s × 48 kHz, exactly
        let stats = try ExternalTool.run("sox", [path, "-n", "stats"]).stderr
        #expect(stats.contains("Pk lev dB      -6.02"))  // the 0.5-amplitude tone, as sox measures it
    }

    @Test(arguments: ["m4a", "aac", "caf"])
    func aacRecordingsDecodeWithoutErrors(_ ext: String) async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("take.\(ext)")
        let recorder = try AudioRecorder(
            path: path, settings: .init(format: .aac, bitRate: 96_000), input: Self.tone(realTime: false))
        try recorder.record(forDuration: 1)
        #expect(try await Self.finished(recorder) == [.finished(successfully: true)])
        #expect(try Self.probe(path)["codec_name"] as? String == "aac")
        let frames = try Self.decoded(path).count / 2
        // ffmpeg decodes every packet (priming and remainder included: at most 2048 more frames); CAF's
        // packet table says which 48 000 are the recording.
        #expect((48_000...50_048).contains(frames))
        if ext == "caf" {
            let summary = try AudioFileSummary(path: path)
            #expect(summary.validFrames == 48_000 && summary.primingFrames == 1024)
        }
    }

    @Test func pausingLeavesNoGapAndNoClick() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("paused.wav")
        let recorder = try AudioRecorder(
            path: path, settings: .init(format: .linearPCM, bitDepth: 24), input: Self.tone(realTime: true))
        try recorder.record()
        try await waitUntilAsync("the recording to reach 0.4 s") { recorder.currentTime >= 0.4 }
        recorder.pause()
        #expect(!recorder.isRecording)
        let paused = recorder.currentTime
        try await Task.sleep(for: .milliseconds(300))
        #expect(recorder.currentTime - paused < 0.02)  // nothing written while paused but the fade
        try recorder.record()
        #expect(recorder.isRecording)
        try await waitUntilAsync("the recording to reach 0.9 s") { recorder.currentTime >= 0.9 }
        let before = recorder.currentTime
        recorder.stop()
        #expect(recorder.currentTime == 0)  // as AVAudioRecorder's, once stopped
        let samples = try Self.decoded(path)
        let frames = samples.count / 2
        #expect(Double(frames) >= before * 48_000 && Double(frames) <= (before + 0.1) * 48_000)
        // A 440 Hz sine at 0.5 moves at most 0.5 × 2π × 440 / 48000 ≈ 0.029 a frame; a cut without the fades
        // would jump by up to 1.
        var largest: Float = 0
        for i in stride(from: 2, to: samples.count, by: 1) { largest = max(largest, abs(samples[i] - samples[i - 2])) }
        #expect(largest < 0.032)
        // The fades: somewhere in the middle the level dips to silence and comes back.
        let quietFrames = (0..<frames).filter { abs(samples[2 * $0]) < 0.001 && $0 > 4800 && $0 < frames - 4800 }
        #expect(!quietFrames.isEmpty)
    }

    @Test func stopFinishesTheFileAndDeleteRemovesIt() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("take.caf")
        let recorder = try AudioRecorder(
            path: path, settings: .init(format: .linearPCM), input: Self.tone(realTime: true))
        let seen = EventLog()
        recorder.onEvent = { seen.append($0) }
        try recorder.record()
        try await waitUntilAsync("the recording to reach 0.3 s") { recorder.currentTime >= 0.3 }
        #expect(throws: MediaError.self) { try recorder.deleteRecording() }
        recorder.stop()
        #expect(seen.events == [.finished(successfully: true)])
        #expect(try Self.decoded(path).count >= 2 * 14_400)
        try recorder.deleteRecording()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func metersReadOnlyWhenEnabledAndUpdated() async throws {
        let dir = try TemporaryDirectory()
        let recorder = try AudioRecorder(
            path: dir.file("m.wav"), settings: .init(format: .linearPCM), input: Self.tone(realTime: false, seconds: 1))
        try recorder.record(forDuration: 1)
        _ = try await Self.finished(recorder)
        recorder.updateMeters()
        #expect(recorder.peakPower(forChannel: 0) == -160)  // metering off
        recorder.isMeteringEnabled = true
        #expect(recorder.peakPower(forChannel: 0) == -160)  // not updated yet
        recorder.updateMeters()
        #expect(abs(recorder.peakPower(forChannel: 1) + 6.02) < 0.05)
        #expect(abs(recorder.averagePower(forChannel: 0) + 9.03) < 0.05)
        #expect(recorder.averagePower(forChannel: 2) == -160)
    }

    @Test func containersRefuseWhatTheyCannotHold() throws {
        let input = Self.tone(realTime: false)
        for (path, format) in [
            ("x.wav", AudioRecorderSettings.Format.aac), ("x.aac", .linearPCM), ("x.m4a", .linearPCM), ("x.ogg", .aac)
        ] {
            #expect(throws: MediaError.self, "\(path)") {
                try AudioRecorder(path: path, settings: .init(format: format), input: input)
            }
        }
        #expect(throws: MediaError.self) {
            try AudioRecorder(path: "x.wav", settings: .init(format: .linearPCM, bitDepth: 12), input: input)
        }
        #expect(throws: MediaError.self) {
            try AudioRecorder(path: "x.caf", settings: .init(sampleRate: 1000), input: input)
        }
    }
}

/// Events collected from a callback on another thread.
final class EventLog: Sendable {
    private let log = LockedBox<[AudioRecorderEvent]>([])
    func append(_ event: AudioRecorderEvent) { log.withLock { $0.append(event) } }
    var events: [AudioRecorderEvent] { log.withLock { $0 } }
}
