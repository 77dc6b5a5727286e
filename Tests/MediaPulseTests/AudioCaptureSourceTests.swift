import Foundation
import MediaPulse
import MediaTestSupport
import Testing

/// Capture against a private daemon: what `paplay` plays into the null sink comes back from its
/// monitor sample for sample, stamped on a continuous timeline; a removed device ends the capture.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioCaptureSourceTests {
    @Test func recordsWhatPaplayPlays() throws {
        let daemon = try PulseDaemon()
        let folder = try TemporaryDirectory()
        let signal = try PulseTestSignal.make(in: folder)
        let pulse = try PulseConnection(server: daemon.server)
        let clock = MediaClock()
        let capture = try AudioCaptureSource(
            connection: pulse, device: daemon.monitorName, sampleType: .f32, sampleRate: 48_000, channels: 2,
            latency: .milliseconds(20), clock: clock)
        PulseTestSignal.watchdog(after: 10) { capture.stop() }
        #expect(capture.format == .pcm(.f32, sampleRate: 48_000, channelLayout: .stereo))
        #expect(capture.deviceName == daemon.monitorName)
        #expect(capture.bufferLatency > .zero && capture.bufferLatency <= MediaTime(value: 1, timescale: 10))

        // Wait for the first buffer (an idle null sink delivers late), then play.
        var samples = [try #require(try capture.next())]
        // Stamped with its capture time on our clock: in the past when handed out, after the clock began.
        let handedOut = clock.now
        #expect(samples[0].timing.presentationTime + samples[0].timing.duration <= handedOut)
        #expect(samples[0].timing.presentationTime >= MediaTime(value: -1, timescale: 10))
        let player = try daemon.spawn("paplay", ["--device=\(daemon.sinkName)", signal.path])
        var framesAfterPlayer = 0
        while let sample = try capture.next() {
            samples.append(sample)
            if !player.isRunning { framesAfterPlayer += sample.frameCount }
            if framesAfterPlayer >= 14_400 { break }  // 0.3 s after paplay ended
        }
        capture.stop()
        #expect(try capture.next() == nil)
        #expect(player.result.status == 0)

        // Timestamps advance by exactly the frame count; nothing flagged, nothing lost.
        for (a, b) in zip(samples, samples.dropFirst()) {
            #expect(
                b.timing.presentationTime == a.timing.presentationTime
                    + MediaTime(value: Int64(a.frameCount), timescale: 48_000))
        }
        #expect(samples.allSatisfy { !$0.flags.contains(.discontinuity) })
        let statistics = capture.statistics
        #expect(statistics.lostFrames == 0 && statistics.holeFrames == 0 && statistics.discontinuities == 0)
        #expect(statistics.framesDelivered == Int64(samples.reduce(0) { $0 + $1.frameCount }))
        #expect(statistics.latency.isNumeric)

        let recording = samples.flatMap { sample in sample.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } }
        let found = PulseTestSignal.compare(recording, with: signal.samples)
        let match = try #require(found)

        #expect(match.correlation >= 0.99)
        #expect(abs(match.levelDB) <= 0.5)
    }

    /// The device goes away, whether it was chosen by name or as the default input (issue 33: the
    /// default's loss read "Entity killed (stream state PA_STREAM_FAILED, error 12)"): the capture ends
    /// with deviceLost, and the message says so and names the device, not libpulse's words.
    @Test(arguments: [true, false])
    func removedDeviceEndsWithDeviceLost(byName: Bool) throws {
        let daemon = try PulseDaemon()
        let capture = try AudioCaptureSource(
            connection: try PulseConnection(server: daemon.server), device: byName ? daemon.monitorName : nil,
            latency: .milliseconds(20))
        PulseTestSignal.watchdog(after: 10) { capture.stop() }
        _ = try #require(try capture.next())
        try daemon.unloadNullSink()
        // The outcome, not how fast: the capture ends with deviceLost. Had it missed the loss, only
        // the watchdog's stop() would end it, and next() would return nil without an error.
        let error = #expect(throws: MediaError.self) {
            while try capture.next() != nil {}
        }
        #expect(error?.code == .deviceLost, "\(String(describing: error))")
        let message = error?.message ?? ""
        #expect(message.contains("device lost") && message.contains("\"\(daemon.monitorName)\""), "\(message)")
        #expect(!message.contains("Entity killed"), "\(message)")
    }

    @Test func stopFromAnotherThreadEndsAWaitingNext() throws {
        let daemon = try PulseDaemon()
        let capture = try AudioCaptureSource(
            connection: try PulseConnection(server: daemon.server), device: daemon.monitorName,
            latency: .milliseconds(20))
        // Another thread stops it once the capture is under way; the waiting next() then returns nil.
        // What ended the loop is checked, not when: stop() had been called by then (a capture that
        // ended by itself would end the loop first), and the loop ended (the suite's time limit bounds it).
        let stopping = LockedBox(false)
        _ = try #require(try capture.next())
        PulseTestSignal.watchdog(after: 0.1) {
            stopping.value = true
            capture.stop()
        }
        while try capture.next() != nil {}
        #expect(stopping.value)
    }

    @Test func refusesWhatPulseAudioCannotCarry() throws {
        let daemon = try PulseDaemon()
        let pulse = try PulseConnection(server: daemon.server)
        #expect(throws: MediaError.self) { _ = try AudioCaptureSource(connection: pulse, sampleType: .f64) }
        #expect {
            _ = try AudioCaptureSource(connection: pulse, device: "no-such-source", timeout: .seconds(2))
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return error.code == .unavailable && error.message.contains("no-such-source")
        }
    }
}

/// A consumer that falls behind by more than the capture's buffer loses audio, and is told so exactly.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioCaptureOverrunTests {
    @Test func overrunIsCountedFlaggedAndKeepsTimeExact() throws {
        let daemon = try PulseDaemon()
        let folder = try TemporaryDirectory()
        let signal = try PulseTestSignal.make(in: folder, seconds: 1.5)
        let reported = LockedBox<[AudioCaptureSource.Discontinuity]>([])
        let capture = try AudioCaptureSource(
            connection: try PulseConnection(server: daemon.server), device: daemon.monitorName,
            latency: .milliseconds(20),
            bufferDuration: .milliseconds(200), onDiscontinuity: { event in reported.value.append(event) })
        PulseTestSignal.watchdog(after: 10) { capture.stop() }
        var samples = [try #require(try capture.next())]
        let player = try daemon.spawn("paplay", ["--device=\(daemon.sinkName)", signal.path])
        // Not reading until the 200 ms ring has overflowed while audio keeps coming (what the capture
        // thread counts as it happens).
        try waitUntil("the capture ring to overflow") { capture.statistics.lostFrames > 0 }
        while samples.count < 200, player.isRunning, let sample = try capture.next() { samples.append(sample) }
        capture.stop()

        let statistics = capture.statistics
        #expect(statistics.lostFrames > 0)
        #expect(statistics.discontinuities >= 1)
        let flagged = samples.indices.dropFirst().filter { samples[$0].flags.contains(.discontinuity) }
        #expect(flagged.count == Int(statistics.discontinuities))
        #expect(reported.value.count == flagged.count)
        // Each gap is exactly the frames lost: the timeline stays the capture's.
        var lost: Int64 = 0
        for (index, event) in zip(flagged, reported.value) {
            let before = samples[index - 1]
            let gap = samples[index].timing.presentationTime - before.timing.presentationTime
            #expect(
                gap
                    == MediaTime(
                        value: Int64(before.frameCount) + event.lostFrames + event.holeFrames, timescale: 48_000))
            #expect(event.time == samples[index].timing.presentationTime)
            lost += event.lostFrames
        }
        #expect(lost == statistics.lostFrames)
    }
}
