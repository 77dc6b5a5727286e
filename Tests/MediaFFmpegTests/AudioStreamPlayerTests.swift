import Foundation
import MediaFormats
import MediaPipeline
import MediaTestSupport
import Testing

/// ``AudioStreamPlayer`` into a WAV file (written as fast as it decodes: what the player produces,
/// exactly), judged by the ffmpeg CLI's decoding of the same MP3: a seek in a pushed stream lands on the
/// asked sample, bytes that are no audio end in a typed error, and stop ends a stream that waits. The
/// start after half a second of bytes and what a device plays are `AudioStreamPlayerDeviceTests`'.
@Suite(.timeLimit(.minutes(3)), .ffmpegLeakGate) struct AudioStreamPlayerTests {
    /// A 3 s 48 kHz stereo MP3 (128 kb/s, LAME) of two different sweeps, and ffmpeg's decode of it.
    static func mp3(_ folder: TemporaryDirectory) throws -> (path: String, decoded: [Float]) {
        let wav = folder.file("sweeps.wav"), mp3 = folder.file("sweeps.mp3")
        try ExternalTool.check(
            "sox",
            [
                "-n", "-r", "48000", "-c", "2", "-b", "16", wav, "synth", "3", "sine", "300-3000", "sine",
                "2500-400", "gain", "-6"
            ])
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", wav, "-c:a", "libmp3lame", "-b:a", "128k", mp3])
        return (mp3, RawAudio.floats(try ExternalTool.decode(mp3)))
    }

    /// Plays `bytes` pushed in 1,000-byte chunks (then finished) from `seconds` into a WAV file; returns
    /// what ffmpeg decodes of that file and the events.
    static func play(
        _ bytes: [UInt8], from seconds: Double, in folder: TemporaryDirectory
    ) async throws -> (samples: [Float], events: [AudioPlayerEvent]) {
        let wav = folder.file("played-\(seconds).wav")
        let player = try AudioStreamPlayer(
            output: .sink { _ in WAVMuxer(output: try FileOutput(path: wav)) }, fileTypeHint: .mp3)
        let log = StreamPlayerEventLog()
        player.onEvent = { log.append($0) }
        player.currentTime = seconds
        try player.play()
        for start in stride(from: 0, to: bytes.count, by: 1_000) {
            player.push(bytes[start..<min(bytes.count, start + 1_000)])
        }
        player.finish()
        try await waitUntilAsync("the player to finish") { log.events.contains { $0.isFinished } }
        return (RawAudio.floats(try ExternalTool.decode(wav)), log.events)
    }

    @Test(arguments: [0.0, 1.25, 2.5])
    func aSeekInAPushedStreamLandsOnTheAskedSample(_ seconds: Double) async throws {
        let folder = try TemporaryDirectory()
        let (mp3, reference) = try Self.mp3(folder)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: mp3)))
        let (played, events) = try await Self.play(bytes, from: seconds, in: folder)
        #expect(events == [.finished(successfully: true)])
        // From the asked frame to the end, sample for sample what ffmpeg decodes there.
        let expected = Array(reference[(Int(seconds * 48_000) * 2)...])
        #expect(played.count == expected.count, "\(played.count / 2) frames played, \(expected.count / 2) expected")
        let difference = zip(played, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(difference <= 1e-6, "largest difference \(difference)")
    }

    @Test func bytesThatAreNoAudioEndInATypedError() async throws {
        let player = try AudioStreamPlayer(output: .sink { _ in CollectingSink() }, name: "https://127.0.0.1/x.mp3")
        let log = StreamPlayerEventLog()
        player.onEvent = { log.append($0) }
        try player.play()
        player.push(Array("<html><body>404 Not Found</body></html>".utf8) + [UInt8](repeating: 0x20, count: 5_000))
        player.finish()
        try await waitUntilAsync("the player to finish") { log.events.contains { $0.isFinished } }
        guard case .decodeError(let error) = log.events.first else {
            Issue.record("no decode error: \(log.events)")
            return
        }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("https://127.0.0.1/x.mp3"), "\(error.message)")
        #expect(log.events.last == .finished(successfully: false))
    }

    @Test func stopEndsAStreamThatWaitsForBytes() async throws {
        let folder = try TemporaryDirectory()
        let (mp3, _) = try Self.mp3(folder)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: mp3)))
        for pushed in [0, 20_000] {  // stopped while waiting for the header, and while playing
            let player = try AudioStreamPlayer(output: .sink { _ in CollectingSink() })
            let log = StreamPlayerEventLog()
            player.onEvent = { log.append($0) }
            try player.play()
            player.push(bytes.prefix(pushed))
            if pushed > 0 { try await waitUntilAsync("some audio to play") { player.currentTime > 0.5 } }
            player.stop()
            try await waitUntilAsync("the player to finish") { log.events.contains { $0.isFinished } }
            #expect(log.events == [.finished(successfully: true)], "\(pushed) bytes pushed")
            #expect(!player.isPlaying)
        }
    }
}

/// The events a player sent, from any thread.
final class StreamPlayerEventLog: Sendable {
    private let log = LockedBox<[AudioPlayerEvent]>([])
    func append(_ event: AudioPlayerEvent) { log.withLock { $0.append(event) } }
    var events: [AudioPlayerEvent] { log.withLock { $0 } }
}

extension AudioPlayerEvent {
    /// Whether this is ``finished(successfully:)``.
    var isFinished: Bool { if case .finished = self { true } else { false } }
}
