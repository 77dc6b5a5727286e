import Dispatch
import Logging
import MediaCore
import MediaStreaming
import MediaTestSupport
import Testing

/// LiveStreamSink reports the video it dropped once, at the end, through its `Logger`, and hands the
/// logger to an inner sink that reports (a ReconnectingSink).
@Suite(.timeLimit(.minutes(2))) struct LiveStreamSinkLoggingTests {
    let script = LiveStreamSinkTests()

    @Test func droppedVideoIsOneWarningAtTheEnd() throws {
        let inner = LiveStreamSinkTests.GatedSink()
        let live = try LiveStreamSink(inner, clock: MediaClock(), maxQueueDuration: MediaTime(value: 1, timescale: 2))
        let records = LogRecords()
        live.logger = records.logger()
        try live.begin(tracks: [videoFormat, audioFormat])
        try live.write(script.frame(0, keyint: 4), track: 0)
        #expect(inner.entered.wait(timeout: .now() + 5) == .success)  // the sender holds frame 0
        for i in 1..<12 { try live.write(script.frame(i, keyint: 4), track: 0) }
        #expect(records.all.isEmpty)  // nothing per drop on the writer's path
        inner.gate.signal()
        try live.finish()

        #expect(live.stats.droppedFrames == 7 && live.stats.droppedGOPs == 1)
        let record = try #require(records.all.first)
        #expect(records.all.count == 1)
        #expect(record.level == .warning)
        #expect(record.metadata == ["stage": "LiveStreamSink(GatedSink)", "code": "framesDropped", "count": "7"])
        #expect(record.message.hasPrefix("Dropped 7 video frames in 1 GOP to keep the live queue under "))
    }

    @Test func theLoggerReachesAReconnectingInnerSink() throws {
        let network = ReconnectingSinkTests.Network()
        network.writesUntilOutage = 1  // the second write fails; the first reconnection succeeds
        network.outageRefusals = 0
        let live = try LiveStreamSink(ReconnectingSinkTests().sink(network), clock: MediaClock())
        let records = LogRecords()
        live.logger = records.logger()
        try live.begin(tracks: [videoFormat, audioFormat])
        for i in 0..<6 { try live.write(script.frame(i, keyint: 4), track: 0) }
        try live.finish()
        #expect(records.all.map { $0.metadata["code"] } == ["disconnected", "reconnected", "resumed"])
        #expect(records.all.allSatisfy { $0.metadata["stage"] == "ReconnectingSink(test)" })
    }
}
