import MediaCore
import MediaStreaming
import Testing

/// Where the live sink takes a length, a Swift `Duration` works too (`.milliseconds(500)`), and what
/// compiled before still means the same (`.seconds(2)`, `.zero` stay `MediaTime`s).
@Suite(.timeLimit(.minutes(2))) struct LiveStreamSinkDurationTests {
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
