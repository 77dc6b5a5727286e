import Dispatch
import MediaCore
import MediaStreaming
import Testing

/// LiveStreamSink's drop policy, exactly: an inner sink that holds its first write until the test
/// opens a gate, so the queue fills deterministically.
@Suite(.timeLimit(.minutes(2))) struct LiveStreamSinkTests {
    /// An inner sink whose writes wait for `gate` (bounded), recording what it got.
    final class GatedSink: MultiTrackSink, @unchecked Sendable {
        // Sendable: `received` is written by the sender thread only while the test waits for `finish`
        // (the LiveStreamSink joins the sender before finish returns) and read after; the semaphores are
        // thread-safe.
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        var received: [Double] = []
        var finished = false
        func begin(tracks: [MediaFormat?]) throws {}
        func write(_ sample: MediaSample, track: Int) throws {
            entered.signal()
            if received.isEmpty { _ = gate.wait(timeout: .now() + 5) }
            received.append((sample.timing.decodeTime.seconds ?? -1) * (sample.format.video == nil ? -1 : 1))
        }
        func finish() throws { finished = true }
    }

    /// Frame `i` at 10 fps, keyframes every `keyint`.
    func frame(_ i: Int, keyint: Int) -> MediaSample {
        let time = MediaTime(value: Int64(i), timescale: 10)
        return MediaSample(
            format: videoFormat, data: [UInt8(i)],
            timing: SampleTiming(
                presentationTime: time, decodeTime: time, duration: MediaTime(value: 1, timescale: 10)),
            frameCount: 0, flags: i % keyint == 0 ? [.keyframe] : [])
    }

    /// An audio packet at `time`, 10 ms long.
    func audioPacket(at time: MediaTime) -> MediaSample {
        MediaSample(
            format: audioFormat, data: [0],
            timing: SampleTiming(
                presentationTime: time, decodeTime: time, duration: MediaTime(value: 1, timescale: 100)),
            frameCount: 1024)
    }

    func run(frames: Range<Int>, keyint: Int, audioAt: Int64? = nil) throws -> (
        received: [Double], stats: LiveStreamSink.Stats
    ) {
        let inner = GatedSink()
        let live = try LiveStreamSink(inner, clock: MediaClock(), maxQueueDuration: MediaTime(value: 1, timescale: 2))
        try live.begin(tracks: [videoFormat, audioFormat])
        try live.write(frame(0, keyint: keyint), track: 0)
        #expect(inner.entered.wait(timeout: .now() + 5) == .success)  // the sender holds frame 0
        for i in frames { try live.write(frame(i, keyint: keyint), track: 0) }
        if let audioAt { try live.write(audioPacket(at: MediaTime(value: audioAt, timescale: 100)), track: 1) }
        inner.gate.signal()
        try live.finish()
        #expect(inner.finished)
        let stats = live.stats
        #expect(stats.sentFrames == inner.received.count)
        return (inner.received, stats)
    }

    @Test func dropsFromTheOldestFrameToTheNextKeyframe() throws {
        // Limit 0.5 s: frame 7 drops 1-3 (up to keyframe 4), frame 10 drops 4-7 (up to keyframe 8).
        let (received, stats) = try run(frames: 1..<12, keyint: 4, audioAt: 115)
        #expect(received == [0, 0.8, 0.9, 1.0, 1.1, -1.15])
        #expect(stats.droppedFrames == 7 && stats.droppedGOPs == 1)
        #expect(stats.maxQueueSeconds <= 0.5)
    }

    @Test func aGOPWithAHoleIsDroppedUntilTheNextKeyframe() throws {
        // Frame 7 finds no keyframe queued: 1-6 go, and 7 too (same GOP); keyframe 8 starts again.
        let (received, stats) = try run(frames: 1..<10, keyint: 8)
        #expect(received == [0, 0.8, 0.9])
        #expect(stats.droppedFrames == 7 && stats.droppedGOPs == 0)
    }

    /// Audio queued among the video when the queue overflows is never dropped: only the video from the
    /// oldest frame up to the next keyframe goes, and every audio packet reaches the inner sink in order.
    @Test func audioQueuedAmongDroppedVideoIsKept() throws {
        let inner = GatedSink()
        let live = try LiveStreamSink(inner, clock: MediaClock(), maxQueueDuration: MediaTime(value: 1, timescale: 2))
        try live.begin(tracks: [videoFormat, audioFormat])
        try live.write(frame(0, keyint: 4), track: 0)
        #expect(inner.entered.wait(timeout: .now() + 5) == .success)  // the sender holds frame 0
        var audioTimes: [Double] = []
        for i in 1..<12 {
            try live.write(frame(i, keyint: 4), track: 0)
            let time = MediaTime(value: Int64(i * 10 + 5), timescale: 100)
            try live.write(audioPacket(at: time), track: 1)
            audioTimes.append(-(time.seconds ?? 0))
        }
        inner.gate.signal()
        try live.finish()
        #expect(live.stats.droppedFrames > 0, "the queue overflowed, so some video was dropped")
        #expect(inner.received.filter { $0 < 0 } == audioTimes, "every audio packet, in order")
        #expect(live.stats.sentAudioFrames == audioTimes.count)
    }

    /// An inner sink that takes everything at once.
    final class InstantSink: MultiTrackSink {
        func begin(tracks: [MediaFormat?]) throws {}
        func write(_ sample: MediaSample, track: Int) throws {}
        func finish() throws {}
    }

    @Test func statsUpdatesEndWithTheStreamAfterItsFinalSnapshot() async throws {
        let live = try LiveStreamSink(InstantSink(), clock: MediaClock())
        let updates = live.statsSource.updates(every: .milliseconds(20))
        try live.begin(tracks: [videoFormat])
        for i in 0..<10 { try live.write(frame(i, keyint: 5), track: 0) }
        try live.finish()
        var snapshots: [LiveStreamSink.Stats] = []
        for await stats in updates { snapshots.append(stats) }  // ends: the sender has ended
        #expect(snapshots.count == 1 && snapshots.last?.sentFrames == 10 && snapshots.last?.sentVideoFrames == 10)
    }

    @Test func refusesANonPositiveLimit() {
        #expect { try LiveStreamSink(GatedSink(), clock: MediaClock(), maxQueueDuration: .zero) } throws: { error in
            (error as? MediaError)?.code == .invalidArgument
        }
    }
}
