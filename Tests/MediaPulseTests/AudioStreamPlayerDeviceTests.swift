import Foundation
import MediaFormats
import MediaPipeline
import MediaTestSupport
import Testing

/// ``AudioStreamPlayer`` on a private PulseAudio daemon while `parecord` records the null sink's
/// monitor: an MP3 pushed in 1,000-byte chunks starts playing with half a second of its audio arrived,
/// waits for the rest without losing any, and what is heard is what ffmpeg decodes.
@Suite(.tags(.realTime), .timeLimit(.minutes(5)), .ffmpegLeakGate) struct AudioStreamPlayerDeviceTests {
    @Test func anMP3PushedInKilobytesStartsWithHalfASecondArrivedAndPlaysWhatFFmpegDecodes() async throws {
        let daemon = try PulseDaemon()
        let folder = try TemporaryDirectory()
        let signal = try PulseTestSignal.make(in: folder, seconds: 2)
        let mp3 = folder.file("signal.mp3")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", signal.path, "-c:a", "libmp3lame", "-b:a", "128k", mp3])
        let reference = RawAudio.floats(try ExternalTool.decode(mp3))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: mp3)))
        // Where the packets that start at 0.5 s or later begin: the bytes before hold half a second of audio.
        let probe = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "packet=pts_time,pos", "-of", "csv=p=0", mp3])
        let packets = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").compactMap {
            line -> (time: Double, pos: Int)? in
            let fields = line.split(separator: ",")
            guard fields.count == 2, let time = Double(fields[0]), let pos = Int(fields[1]) else { return nil }
            return (time, pos)
        }
        let halfSecond = try #require(packets.first { $0.time >= 0.5 }?.pos)

        let recorder = try MonitorRecording(daemon, into: folder.file("recorded.raw"))
        try await waitUntilAsync("the first audio from the monitor") { recorder.frames > 0 }
        let player = try AudioStreamPlayer(
            output: try .device(daemon.sinkName, server: daemon.server, latency: .milliseconds(200)), fileTypeHint: .mp3
        )
        let log = StreamPlayerDeviceEventLog()
        player.onEvent = { log.append($0) }
        try player.play()
        func push(_ range: Range<Int>) {
            for start in stride(from: range.lowerBound, to: range.upperBound, by: 1_000) {
                player.push(bytes[start..<min(range.upperBound, start + 1_000)])
            }
        }
        push(0..<halfSecond)
        // With only half a second of audio arrived, the device plays most of it (the signal's sweep starts
        // at 0.2 s): the player does not wait for a 64 KiB batch.
        try await waitUntilAsync("0.3 s to be heard with 0.5 s of audio pushed", timeout: .seconds(20)) {
            player.currentTime >= 0.3
        }
        #expect(player.currentTime <= 0.55, "\(player.currentTime) s heard of 0.5 s pushed")
        push(halfSecond..<bytes.count)
        player.finish()
        try await waitUntilAsync("the player to finish") { log.events.contains { $0 == .finished(successfully: true) } }
        #expect(log.events == [.finished(successfully: true)])
        // The wait for bytes is silence the device played, not audio lost: without it the rest lines up.
        let match = try #require(PulseTestSignal.compare(try recorder.stop(), with: reference))
        #expect(match.correlation >= 0.99, "correlation \(match.correlation)")
        #expect(abs(match.levelDB) <= 0.5, "\(match.levelDB) dB")
    }
}

/// The events a player sent, from any thread.
final class StreamPlayerDeviceEventLog: Sendable {
    private let log = LockedBox<[AudioPlayerEvent]>([])
    func append(_ event: AudioPlayerEvent) { log.withLock { $0.append(event) } }
    var events: [AudioPlayerEvent] { log.withLock { $0 } }
}
