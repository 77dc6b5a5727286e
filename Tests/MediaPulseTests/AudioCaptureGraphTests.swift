import Foundation
import MediaPulse
import MediaTestSupport
import Testing

/// A capture is a source like any other: a `MediaGraph` runs it on its own thread, and `stop()` from
/// elsewhere ends the branch, so the graph finishes its sinks and returns.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioCaptureGraphTests {
    @Test func graphRunsACaptureUntilItIsStopped() throws {
        let daemon = try PulseDaemon()
        let capture = try AudioCaptureSource(
            connection: try PulseConnection(server: daemon.server), device: daemon.monitorName, sampleType: .s16,
            latency: .milliseconds(10))
        let collector = SampleCollector()
        var graph = MediaGraph()
        let branch = graph.addBranch(source: capture)
        graph.addSink(collector, input: branch)
        // Another thread stops the capture once audio has reached the sink (the idle null sink may take
        // 2 s to start); the graph then returns. Whether samples arrived first is checked, not how long
        // it took; the suite's time limit bounds a graph that would not stop.
        let sawAudio = LockedBox(false)
        Thread.detachNewThread {
            sawAudio.value = poll { !collector.samples.isEmpty }
            capture.stop()
        }
        try graph.runThreaded()
        #expect(sawAudio.value, "no audio reached the sink within the wait")
        #expect(collector.finishCount == 1)
        let samples = collector.samples
        #expect(!samples.isEmpty)
        #expect(samples.allSatisfy { $0.format == .audio(.pcm(.s16, sampleRate: 48_000, channelLayout: .stereo)) })
        for (a, b) in zip(samples, samples.dropFirst()) {
            #expect(
                b.timing.presentationTime == a.timing.presentationTime
                    + MediaTime(value: Int64(a.frameCount), timescale: 48_000))
        }
    }
}
