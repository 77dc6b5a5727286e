import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ``AudioRecorder`` and `audio-recorder` on a real PulseAudio daemon (private, headless, a null sink):
/// what `paplay` plays into the sink is recorded from its monitor at the right level and pitch; a
/// device that goes away ends the recording with "device lost" and a playable file.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioRecorderDeviceTests {
    /// A 1 kHz sine at 0.5 (−6.02 dBFS peak, −9.03 dB RMS), `seconds` long, 48 kHz stereo 16-bit.
    static func tone(_ dir: TemporaryDirectory, seconds: Int) throws -> String {
        let path = dir.file("tone.wav")
        try ExternalTool.check(
            "sox",
            ["-n", "-r", "48000", "-c", "2", "-b", "16", path, "synth", "\(seconds)", "sine", "1000", "vol", "0.5"])
        return path
    }

    /// The recorder's events up to its finished event, waited for at most `seconds` (a hang guard).
    static func events(_ recorder: AudioRecorder, within seconds: Double = 30) async throws -> [AudioRecorderEvent] {
        let collected = EventLog()
        let task = Task {
            for await event in recorder.events {
                collected.append(event)
                if case .finished = event { return }
            }
        }
        _ = await pollAsync(timeout: .seconds(seconds), every: .milliseconds(20)) {
            collected.events.contains { if case .finished = $0 { true } else { false } }
        }
        task.cancel()
        return collected.events
    }

    @Test func recordsTheMonitorAtTheRightLevelAndPitch() async throws {
        let daemon = try PulseDaemon()
        let dir = try TemporaryDirectory()
        let tone = try Self.tone(dir, seconds: 4)
        let player = try daemon.spawn("paplay", ["--device=\(daemon.sinkName)", tone])
        defer { player.kill() }
        let path = dir.file("monitor.wav")
        let recorder = try AudioRecorder(
            path: path, settings: .init(format: .linearPCM), input: .device(daemon.monitorName, server: daemon.server))
        try recorder.record(forDuration: 1.5)
        #expect(try await Self.events(recorder) == [.finished(successfully: true)])
        let probe = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=duration_ts", "-of", "csv=p=0", path]
        ).output
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "72000")  // 1.5 s exactly
        // The last second (the null sink's idle start and paplay's start are before it): the tone's level.
        let tail = dir.file("tail.wav")
        try ExternalTool.check("sox", [path, tail, "trim", "0.5"])
        let stats = try ExternalTool.run("sox", [tail, "-n", "stats"]).stderr
        let rms = stats.split(separator: "\n").first { $0.hasPrefix("RMS lev dB") }.flatMap {
            $0.split(separator: " ").last
        }.flatMap { Double($0) }
        #expect(abs((rms ?? 0) + 9.03) < 0.5, "\(stats)")
        // sox's rough frequency is per channel
        let frequency = try ExternalTool.run("sox", [tail, "-n", "remix", "1", "stat"]).stderr
        let rough = try #require(try Self.roughFrequency(frequency), "\(frequency)")
        #expect(abs(rough - 1000) < 10)
    }

    static func roughFrequency(_ text: String) throws -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix("Rough   frequency:") }.flatMap {
            $0.split(separator: " ").last
        }.flatMap { Double($0) }
    }

    @Test func aDeviceThatGoesAwayEndsWithDeviceLostAndAPlayableFile() async throws {
        let daemon = try PulseDaemon()
        let dir = try TemporaryDirectory()
        let tone = try Self.tone(dir, seconds: 6)
        let player = try daemon.spawn("paplay", ["--device=\(daemon.sinkName)", tone])
        defer { player.kill() }
        let path = dir.file("lost.caf")
        let recorder = try AudioRecorder(
            path: path, settings: .init(format: .aac), input: .device(daemon.monitorName, server: daemon.server))
        try recorder.record()
        try await waitUntilAsync("the recording to reach 0.5 s") { recorder.currentTime >= 0.5 }
        try daemon.unloadNullSink()
        let events = try await Self.events(recorder)
        #expect(events.count == 2)
        if case .error(let error) = events.first {
            #expect(error.code == .deviceLost, "\(error)")
        } else {
            Issue.record("\(events)")
        }
        #expect(events.last == .finished(successfully: false))
        let decode = try ExternalTool.run(
            "ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
        #expect(decode.status == 0, "\(decode.stderr)")
        #expect(try AudioFileSummary(path: path).validFrames >= 24_000)
    }
}
