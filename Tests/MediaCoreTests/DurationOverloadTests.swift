import MediaCore
import Testing

/// Where the API takes a length, a Swift `Duration` works too (`.milliseconds(500)`), and what compiled
/// before still means the same (`.seconds(2)`, `.zero` stay `MediaTime`s).
@Suite struct DurationOverloadTests {
    @Test func interleavingTakesADuration() {
        let half = Interleaving(maxQueuedDuration: .milliseconds(500))
        #expect(half.maxQueuedDuration == MediaTime(value: 1, timescale: 2))
        #expect(Interleaving(maxQueuedDuration: .seconds(3)).maxQueuedDuration == MediaTime(value: 3, timescale: 1))
        #expect(Interleaving(maxQueuedDuration: .zero).maxQueuedDuration == .zero)
        #expect(Interleaving().maxQueuedDuration == MediaTime(value: 2, timescale: 1))
    }

    @Test func liveStreamSinkTakesADuration() throws {
        let live = try LiveStreamSink(SampleCollector(), clock: MediaClock(), maxQueueDuration: .milliseconds(250))
        #expect(live.maxQueueDuration == MediaTime(value: 1, timescale: 4))
        let adaptive = try LiveStreamSink(
            SampleCollector(), clock: MediaClock(), maxQueueDuration: .milliseconds(1500), adaptiveBitRate: nil)
        #expect(adaptive.maxQueueDuration == MediaTime(value: 3, timescale: 2))
        #expect(throws: MediaError.self) {
            try LiveStreamSink(SampleCollector(), clock: MediaClock(), maxQueueDuration: .zero)
        }
        #expect(throws: MediaError.self) {
            try LiveStreamSink(SampleCollector(), clock: MediaClock(), maxQueueDuration: Duration.milliseconds(-1))
        }
    }
}
