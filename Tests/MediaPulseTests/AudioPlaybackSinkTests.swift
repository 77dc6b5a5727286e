import Foundation
import MediaPulse
import MediaTestSupport
import Testing

/// Playback against a private daemon: what the sink plays into the null sink, `parecord` records from
/// its monitor sample for sample; the position follows the wall clock and stands still when paused.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioPlaybackSinkTests {
    @Test func parecordHearsWhatIsPlayed() throws {
        let daemon = try PulseDaemon()
        let folder = try TemporaryDirectory()
        let signal = try PulseTestSignal.make(in: folder)
        let recorded = folder.file("recorded.raw")
        let recorder = try Self.startRecorder(daemon, into: recorded)

        let sink = try AudioPlaybackSink(
            connection: try PulseConnection(server: daemon.server), device: daemon.sinkName, sampleType: .f32,
            sampleRate: 48_000, channels: 2, latency: .milliseconds(50))
        PulseTestSignal.watchdog(after: 10) { sink.stop() }
        #expect(sink.format == .pcm(.f32, sampleRate: 48_000, channelLayout: .stereo))
        #expect(sink.deviceName == daemon.sinkName)
        var positions: [(played: Double, wall: Double)] = []
        let started = Date()
        for (index, chunk) in Self.chunks(signal.samples, frames: 960).enumerated() {
            try sink.write(chunk)
            if index % 5 == 0 { positions.append((sink.playedTime.s, Date().timeIntervalSince(started))) }
        }
        let latency = sink.latency
        try sink.finish()
        #expect(Date().timeIntervalSince(started) < 5)

        // The position is what was heard: from its first movement on, it keeps pace with the wall
        // clock within the latency the server reports.
        let moving = positions.filter { $0.played > 0.01 }  // from when playback has started
        let first = try #require(moving.first)
        let bound = max(latency.s, sink.bufferLatency.s) + 0.010
        for position in moving {
            #expect(abs((position.played - first.played) - (position.wall - first.wall)) <= bound)
        }

        usleep(100_000)
        recorder.signal(SIGINT)
        #expect(recorder.wait(timeout: 5))
        let recording = RawAudio.floats(try Data(contentsOf: URL(fileURLWithPath: recorded)))
        let found = PulseTestSignal.compare(recording, with: signal.samples)
        let match = try #require(found)
        #expect(match.correlation >= 0.99)
        #expect(abs(match.levelDB) <= 0.5)
    }

    @Test func pauseStopsThePositionAndResumeRestartsIt() throws {
        let daemon = try PulseDaemon()
        let sink = try AudioPlaybackSink(
            connection: try PulseConnection(server: daemon.server), device: daemon.sinkName, latency: .milliseconds(50))
        PulseTestSignal.watchdog(after: 10) { sink.stop() }
        let tone = [Float](repeating: 0.25, count: 2 * 48_000)  // 1 s
        for chunk in Self.chunks(Array(tone.prefix(2 * 24_000)), frames: 960) { try sink.write(chunk) }
        try sink.pause()
        #expect(sink.isPaused)
        let paused = sink.playedTime
        #expect(paused > .zero)
        usleep(300_000)
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
        PulseTestSignal.watchdog(after: 10) { sink.stop() }
        for chunk in Self.chunks([Float](repeating: 0.1, count: 2 * 9_600), frames: 960) { try sink.write(chunk) }
        let deadline = Date(timeIntervalSinceNow: 2)
        while sink.underruns == 0 && Date() < deadline { usleep(10_000) }  // nothing more written: it runs dry
        #expect(sink.underruns >= 1)
        try sink.finish()
    }

    @Test func refusesOtherFormatsAndLostDevices() throws {
        let daemon = try PulseDaemon()
        let sink = try AudioPlaybackSink(
            connection: try PulseConnection(server: daemon.server), device: daemon.sinkName, sampleType: .f32,
            latency: .milliseconds(50))
        PulseTestSignal.watchdog(after: 10) { sink.stop() }
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
        let unloaded = Date()
        #expect {
            for chunk in Self.chunks([Float](repeating: 0, count: 2 * 96_000), frames: 960) { try sink.write(chunk) }
            try sink.finish()
        } throws: { ($0 as? MediaError)?.code == .deviceLost }
        #expect(Date().timeIntervalSince(unloaded) < 2)
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

    /// Starts `parecord` on the monitor (raw float, 48 kHz stereo) and waits until its stream is up.
    static func startRecorder(_ daemon: PulseDaemon, into path: String) throws -> ChildProcess {
        let recorder = try daemon.spawn(
            "parecord",
            [
                "--device=\(daemon.monitorName)", "--raw", "--format=float32le", "--rate=48000", "--channels=2",
                "--latency-msec=20", path
            ])
        let deadline = Date(timeIntervalSinceNow: 5)
        while try daemon.sourceOutputCount() == 0 {
            guard Date() < deadline, recorder.isRunning else {
                throw RecorderDidNotStart(stderr: recorder.result.stderr)
            }
            usleep(10_000)
        }
        return recorder
    }
}

/// `parecord` exited or did not connect in time.
struct RecorderDidNotStart: Error {
    var stderr: String
}

extension MediaTime {
    /// Seconds as a `Double` (NaN when not numeric), for comparisons in tests.
    var s: Double { seconds ?? .nan }
}
