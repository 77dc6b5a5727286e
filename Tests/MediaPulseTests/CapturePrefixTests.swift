import Foundation
import MediaPipeline
import MediaPulse
import MediaTestSupport
import Testing

/// Issue 28's contract: `prefix(duration: 5)` on a PulseAudio capture gives exactly 5 s of frames, at
/// 44.1 kHz and at 48 kHz, and the capture is not read one buffer past the limit. Both rates record at
/// once from one daemon (the server resamples its 48 kHz monitor for the 44.1 kHz stream), as two
/// branches of one graph into two WAV files that sox and ffprobe judge: about 5 s of wall time in all.
@Suite(.tags(.realTime), .timeLimit(.minutes(2)), .ffmpegLeakGate) struct CapturePrefixTests {
    @Test func fiveSecondsAreExactlyFiveSecondsOfFramesAtBothRates() throws {
        let daemon = try PulseDaemon()
        let folder = try TemporaryDirectory()
        let pulse = try PulseConnection(server: daemon.server)
        let rates = [44_100, 48_000]
        let captures = try rates.map { rate in
            try AudioCaptureSource(
                connection: pulse, device: daemon.monitorName, sampleType: .s16, sampleRate: rate,
                latency: .milliseconds(20))
        }
        // Should the limit never be reached, the watchdog ends the captures and the frame counts fail.
        let watchdogFired = LockedBox(false)
        PulseTestSignal.watchdog(after: 30) {
            watchdogFired.value = true
            captures.forEach { $0.stop() }
        }
        let pulls = rates.map { _ in LockedBox<[Pull]>([]) }
        var graph = MediaGraph()
        for index in rates.indices {
            let source = PullRecorder(base: captures[index], pulls: pulls[index])
            let branch = graph.addBranch(source: try source.prefix(duration: .seconds(5)))
            graph.addSink(WAVMuxer(output: try FileOutput(path: folder.file("\(rates[index]).wav"))), input: branch)
        }

        let progress = try graph.runThreaded()
        // The prefix ended the run, not the watchdog.
        #expect(!watchdogFired.value)

        for (index, rate) in rates.enumerated() {
            let expected = 5 * Int64(rate)
            #expect(progress.branches[index].framesRead == expected)
            let wav = folder.file("\(rate).wav")
            let soxFrames = try ExternalTool.check("sox", ["--i", "-s", wav]).output
            #expect(soxFrames.trimmingCharacters(in: .whitespacesAndNewlines) == "\(expected)")
            #expect(try ExternalTool.probeFirstStream(wav)["sample_rate"] as? String == "\(rate)")

            // The last pull was the one that reached the limit, and nothing was read after it.
            let pulled = pulls[index].value
            let total = pulled.reduce(0) { $0 + Int64($1.frames) }
            let last = try #require(pulled.last)
            #expect(total >= expected && total - Int64(last.frames) < expected)
            #expect(captures[index].statistics.framesDelivered == total)
            // Times stay the capture's: 5 s after the first frame falls within the last buffer pulled
            // (unless an overrun left a gap in the timeline, which the frame count does not see).
            if let first = pulled.first, captures[index].statistics.discontinuities == 0 {
                let end = first.timing.presentationTime + .seconds(5)
                #expect(last.timing.presentationTime < end)
                #expect(end <= last.timing.presentationTime + last.timing.duration)
            }
        }
        captures.forEach { $0.stop() }
    }
}

/// One sample as the capture handed it out.
private struct Pull: Sendable {
    var frames: Int
    var timing: SampleTiming
}

/// Passes a capture's samples on, recording each one pulled from it.
private struct PullRecorder: MediaSource {
    let base: AudioCaptureSource
    let pulls: LockedBox<[Pull]>
    var name: String { base.name }

    func next() throws -> MediaSample? {
        guard let sample = try base.next() else { return nil }
        pulls.withLock { $0.append(Pull(frames: sample.frameCount, timing: sample.timing)) }
        return sample
    }
}
