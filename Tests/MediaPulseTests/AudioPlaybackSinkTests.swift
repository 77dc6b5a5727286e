import Foundation
import MediaPulse
import MediaTestSupport
import Testing

/// Playback against a private daemon: what the sink plays into the null sink, `parecord` records from
/// its monitor sample for sample; the position follows what was written and stands still when paused.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioPlaybackSinkTests {
    @Test func parecordHearsWhatIsPlayed() throws {
        let daemon = try PulseDaemon()
        let folder = try TemporaryDirectory()
        let signal = try PulseTestSignal.make(in: folder)
        let recorder = try MonitorRecording(daemon, into: folder.file("recorded.raw"))

        // 250 ms of buffer: this test is about the samples arriving whole, not about a short latency. With
        // 50 ms it failed in two fresh-clone runs while the other shards loaded both cores (an underrun
        // logged once; correlation 0.24 the other time): more buffer gives the writer more slack.
        let sink = try AudioPlaybackSink(
            connection: try PulseConnection(server: daemon.server), device: daemon.sinkName, sampleType: .f32,
            sampleRate: 48_000, channels: 2, latency: .milliseconds(250))
        PulseTestSignal.watchdog(after: 60) { sink.stop() }
        #expect(sink.format == .pcm(.f32, sampleRate: 48_000, channelLayout: .stereo))
        #expect(sink.deviceName == daemon.sinkName)
        var positions: [(played: Double, written: Double)] = []
        var written = 0
        for (index, chunk) in Self.chunks(signal.samples, frames: 960).enumerated() {
            try sink.write(chunk)
            written += chunk.frameCount
            if index % 5 == 0 { positions.append((sink.playedTime.s, Double(written) / 48_000)) }
        }
        let total = Double(written) / 48_000
        // The position is what was heard, judged against what was written (not against the wall clock,
        // which a loaded machine stretches): it never runs backwards, never ahead of what was written,
        // and once the buffer has played out it reaches the end of what was written, less at most the
        // latency the server reports.
        #expect(positions.allSatisfy { $0.played <= $0.written }, "\(positions)")
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0.played <= $1.played }, "\(positions)")
        let allowance = max(sink.latency.s, sink.bufferLatency.s) + 0.010
        try waitUntil("the position to reach the end of the \(total) s written") {
            sink.playedTime.s >= total - allowance
        }
        #expect(sink.playedTime.s <= total + 0.001)
        try sink.finish()

        let recording = try recorder.stop()
        let found = PulseTestSignal.compare(recording, with: signal.samples)
        let match = try #require(found)
        #expect(match.correlation >= 0.99)
        #expect(abs(match.levelDB) <= 0.5)
    }

    @Test func pauseStopsThePositionAndResumeRestartsIt() throws {
        let daemon = try PulseDaemon()
        let sink = try AudioPlaybackSink(
            connection: try PulseConnection(server: daemon.server), device: daemon.sinkName, latency: .milliseconds(50))
        PulseTestSignal.watchdog(after: 60) { sink.stop() }
        // The monitor's recording is the clock the paused position is held against: the server's.
        let folder = try TemporaryDirectory()
        let recorder = try MonitorRecording(daemon, into: folder.file("clock.raw"))
        let tone = [Float](repeating: 0.25, count: 2 * 48_000)  // 1 s
        for chunk in Self.chunks(Array(tone.prefix(2 * 24_000)), frames: 960) { try sink.write(chunk) }
        try sink.pause()
        #expect(sink.isPaused)
        let paused = sink.playedTime
        #expect(paused > .zero)
        try recorder.waitFor(seconds: 0.3)  // 0.3 s of the server's time pass
        #expect(abs((sink.playedTime - paused).s) < 0.002)
        try sink.resume()
        // The paused buffer held at most its latency: keep it fed for 0.3 s more.
        for chunk in Self.chunks(Array(tone.prefix(2 * 14_400)), frames: 960) { try sink.write(chunk) }
        #expect((sink.playedTime - paused).s > 0.2)
        try sink.flush()
        try sink.finish()
    }

    @Test func underrunsAreCounted() throws {
        let daemon = try PulseDaemon()
        let sink = try AudioPlaybackSink(
            connection: try PulseConnection(server: daemon.server), device: daemon.sinkName, latency: .milliseconds(30))
        PulseTestSignal.watchdog(after: 60) { sink.stop() }
        for chunk in Self.chunks([Float](repeating: 0.1, count: 2 * 9_600), frames: 960) { try sink.write(chunk) }
        // Nothing more written: it runs dry.
        #expect(poll { sink.underruns >= 1 }, "no underrun counted after the 0.2 s written ran out")
        try sink.finish()
    }

    @Test func refusesOtherFormatsAndLostDevices() throws {
        let daemon = try PulseDaemon()
        let sink = try AudioPlaybackSink(
            connection: try PulseConnection(server: daemon.server), device: daemon.sinkName, sampleType: .f32,
            latency: .milliseconds(50))
        PulseTestSignal.watchdog(after: 60) { sink.stop() }
        let s16 = MediaSample(
            format: .audio(.pcm(.s16, sampleRate: 48_000, channels: 2)), data: [UInt8](repeating: 0, count: 4 * 480),
            timing: .audio(startFrame: 0, frameCount: 480, sampleRate: 48_000), frameCount: 480)
        #expect { try sink.write(s16) } throws: { ($0 as? MediaError)?.code == .formatMismatch }
        #expect {
            _ = try AudioPlaybackSink(
                connection: try PulseConnection(server: daemon.server), device: "no-such-sink", timeout: .seconds(2))
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return error.code == .unavailable && error.message.contains("no-such-sink")
        }

        try sink.write(Self.chunks([Float](repeating: 0, count: 2 * 4_800), frames: 4_800)[0])
        try daemon.unloadNullSink()
        // The outcome, not how fast: the writes of 2 s of audio (or the drain) fail with deviceLost, where
        // a sink that missed the loss would write on, or be ended by the watchdog's stop(), silently.
        let lost = #expect(throws: MediaError.self) {
            for chunk in Self.chunks([Float](repeating: 0, count: 2 * 96_000), frames: 960) { try sink.write(chunk) }
            try sink.finish()
        }
        #expect(lost?.code == .deviceLost, "\(String(describing: lost))")
        #expect(
            lost?.message.contains("device lost: \"\(daemon.sinkName)\" went away") == true,
            "\(String(describing: lost))")
    }

    /// Interleaved stereo float samples cut into PCM samples of `frames` frames.
    static func chunks(_ samples: [Float], frames: Int) -> [MediaSample] {
        let format = MediaFormat.audio(.pcm(.f32, sampleRate: 48_000, channels: 2))
        return stride(from: 0, to: samples.count / 2, by: frames).map { start in
            let end = min(samples.count / 2, start + frames)
            let bytes = samples[(start * 2)..<(end * 2)].withUnsafeBytes { [UInt8]($0) }
            return MediaSample(
                format: format, data: bytes,
                timing: .audio(startFrame: Int64(start), frameCount: end - start, sampleRate: 48_000),
                frameCount: end - start)
        }
    }
}

extension MediaTime {
    /// Seconds as a `Double` (NaN when not numeric), for comparisons in tests.
    var s: Double { seconds ?? .nan }
}
