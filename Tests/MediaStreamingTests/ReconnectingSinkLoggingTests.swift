import Logging
import MediaCore
import MediaStreaming
import MediaTestSupport
import Testing

/// ReconnectingSink's outages reach its `Logger`: the scripted network of ``ReconnectingSinkTests``
/// goes down, refuses three connections and comes back.
@Suite(.timeLimit(.minutes(2))) struct ReconnectingSinkLoggingTests {
    let script = ReconnectingSinkTests()

    @Test func anOutageLogsTheFailureEachAttemptTheReconnectionAndTheResumption() throws {
        let network = ReconnectingSinkTests.Network()
        let output = script.sink(network)
        let records = LogRecords()
        output.logger = records.logger()
        try output.begin(tracks: [videoFormat, audioFormat])
        for (sample, track) in script.samples(0..<7) { try output.write(sample, track: track) }
        #expect(records.all.isEmpty)  // nothing is logged while all is well
        network.up = false
        // fails, then 3 refusals
        for (sample, track) in script.samples(7..<9) { try output.write(sample, track: track) }
        network.up = true
        for (sample, track) in script.samples(9..<16) { try output.write(sample, track: track) }
        try output.finish()

        let all = records.all
        #expect(
            all.map { $0.metadata["code"] } == [
                "disconnected", "reconnectFailed", "reconnectFailed", "reconnectFailed", "reconnected", "resumed"
            ])
        #expect(all.map(\.level) == [.warning, .warning, .warning, .warning, .info, .info])
        #expect(all.allSatisfy { $0.metadata["stage"] == "ReconnectingSink(test)" })
        #expect(all.map { $0.metadata["attempt"] } == [nil, "1", "2", "3", "4", nil])
        #expect(all[0].message.hasPrefix("The connection failed (connection reset by peer); reconnecting in "))
        #expect(all[1].message.hasPrefix("Reconnection attempt 1 failed (connection refused); retrying in "))
        #expect(all[4].message.hasPrefix("Reconnected at attempt 4 after "))
        #expect(output.discardedSamples == 6)
        #expect(all[5].metadata["count"] == "6")
        #expect(all[5].message.hasSuffix("after discarding 6 samples."))
    }

    @Test func aLoggerGivenToTheGraphReachesTheSinkAndTheWarningsAreInTheProgress() throws {
        let network = ReconnectingSinkTests.Network()
        network.writesUntilOutage = 3
        network.outageRefusals = 1
        let output = script.sink(network)
        let records = LogRecords()
        var graph = MediaGraph(logger: records.logger(level: .warning))
        let video = graph.addBranch(source: Samples(script.samples(0..<10).filter { $0.1 == 0 }.map(\.0)))
        graph.addSink(output, tracks: [video])
        let progress = try graph.runSynchronously()

        #expect(records.all.map { $0.metadata["code"] } == ["disconnected", "reconnectFailed"])  // .info not logged
        #expect(progress.warningCount == 2)
        #expect(progress.warnings.map { $0[DiagnosticKey.code] } == ["disconnected", "reconnectFailed"])
        #expect(progress.warnings.first?[DiagnosticKey.stage] == "ReconnectingSink(test)")
    }
}

/// A source of the given samples.
private final class Samples: MediaSource {
    private var rest: ArraySlice<MediaSample>
    init(_ samples: [MediaSample]) { rest = samples[...] }
    var name: String { "Samples" }
    func next() throws -> MediaSample? { rest.popFirst() }
}
