import MediaCore
import Testing

/// Where the API takes a length, a Swift `Duration` works too (`.milliseconds(500)`), and what compiled
/// before still means the same (`.seconds(2)`, `.zero` stay `MediaTime`s).
@Suite(.timeLimit(.minutes(2))) struct DurationOverloadTests {
    @Test func interleavingTakesADuration() {
        let half = Interleaving(maxQueuedDuration: .milliseconds(500))
        #expect(half.maxQueuedDuration == MediaTime(value: 1, timescale: 2))
        #expect(Interleaving(maxQueuedDuration: .seconds(3)).maxQueuedDuration == MediaTime(value: 3, timescale: 1))
        #expect(Interleaving(maxQueuedDuration: .zero).maxQueuedDuration == .zero)
        #expect(Interleaving().maxQueuedDuration == MediaTime(value: 2, timescale: 1))
    }
}

@Suite(.timeLimit(.minutes(2))) struct RealTimeSourceDurationTests {
    @Test func startFromADurationStampsTheFirstSample() throws {
        let sample = MediaSample(
            format: .audio(.pcm(.s16, sampleRate: 8000, channels: 1)), data: [0, 0],
            timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 8000), frameCount: 1)
        let clock = MediaClock(anchor: MediaClock.hostTime - MediaTime(value: 1, timescale: 1))  // 1 s ago
        var live = RealTimeSource(ArraySource([sample]), clock: clock, start: .milliseconds(250))
        let first = try #require(try live.next())
        #expect(first.timing.presentationTime == MediaTime(value: 1, timescale: 4))
    }
}
