import MediaCore
import Testing

@testable import MediaStreaming

/// `LiveStreamSink.Stats.sentBitRate` means the rate over the last second: it falls while nothing is
/// sent and is 0 after a second without sending. Issue 33: during a 4-s outage it kept its last value
/// (293 kb/s). The live queue is given the sender's clock times, so no test waits on real time.
@Suite(.timeLimit(.minutes(1))) struct SentBitRateTests {
    /// A live queue whose sender sent 1,000 bytes every 100 ms from 0 to `end` seconds: 80 kb/s.
    static func sending(until end: Double) throws -> LiveQueue {
        let queue = LiveQueue(limit: .seconds(2))
        let sample = MediaSample(
            format: .audio(.pcm(PCMFormat(.s16), sampleRate: 48_000, channels: 1)),
            data: [0, 0], timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 48_000), frameCount: 1)
        let entry = LiveQueueState.Entry(sample: sample, track: 0, isVideo: false, isKeyframe: true, decodeTime: .zero)
        var bytes: Int64 = 0
        for tick in 0...Int((end * 10).rounded()) {
            bytes += 1_000
            queue.didSend(
                entry, latency: nil, bytes: bytes, reconnects: nil, at: MediaTime(value: Int64(tick), timescale: 10))
        }
        return queue
    }

    @Test func theRateIsOverTheLastSecondAndFallsToZeroWhenSendingStops() throws {
        let queue = try Self.sending(until: 1.5)
        let rate = { (seconds: Double) in
            queue.stats(at: MediaTime(value: Int64((seconds * 1000).rounded()), timescale: 1000)).sentBitRate
        }
        let steady = try #require(rate(1.5))
        #expect(abs(steady - 80_000) < 1, "\(steady)")
        // Nothing sent after 1.5 s: half a second later the last second held half as much.
        let later = try #require(rate(2.0))
        #expect(later > 30_000 && later < 60_000, "\(later)")
        #expect(rate(2.6) == 0)
        #expect(rate(6.0) == 0, "an outage of 4 s reads 0")
    }

    @Test func beforeASecondOfSendingThereIsNoRate() throws {
        let queue = try Self.sending(until: 0.5)
        #expect(queue.stats(at: MediaTime(value: 500, timescale: 1000)).sentBitRate == nil)
        let afterASecond = queue.stats(at: MediaTime(value: 1200, timescale: 1000)).sentBitRate ?? 0
        #expect(afterASecond > 0 && afterASecond < 80_000, "a second after the first send: \(afterASecond)")
    }
}
