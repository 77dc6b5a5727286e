import MediaCore
import MediaStreaming
import Testing

/// ReconnectingSink's outage handling, exactly: connections that fail when the test says, so every
/// discard, attempt and resume point is known. (The real thing, against a receiver killed and
/// restarted, is in the live-streamer example's streaming tests.)
@Suite(.timeLimit(.minutes(2))) struct ReconnectingSinkTests {
    /// What the "network" lets through, and what each connection received.
    ///
    /// `@unchecked Sendable` because `connect` is `@Sendable`: one thread at a time touches it. The
    /// sink's calls (and so `connect`'s) run on the test's thread, or on a graph's thread that the
    /// test reads it after: a run returns only once its threads have ended.
    final class Network: @unchecked Sendable {
        var up = true
        var connections: [Connection] = []
        var refusals = 0
        /// When set: the network goes down after this many more writes, refuses `outageRefusals`
        /// connections, then comes back (for a sink the test hands away).
        var writesUntilOutage: Int?
        var outageRefusals: Int?
    }

    /// One connection: records its begin and writes; fails writes once the network is down.
    final class Connection: MultiTrackSink, SentByteCounting {
        unowned let network: Network
        var formats: [MediaFormat?] = []
        var received: [(track: Int, decodeTime: Double, keyframe: Bool)] = []
        var finished = false
        var bytesWritten: Int64 = 0
        init(network: Network) { self.network = network }
        func begin(tracks: [MediaFormat?]) throws { formats = tracks }
        func write(_ sample: MediaSample, track: Int) throws {
            if let left = network.writesUntilOutage {
                network.writesUntilOutage = left > 0 ? left - 1 : nil
                if left == 0 { network.up = false }
            }
            guard network.up else { throw MediaError(.io, "connection reset by peer") }
            received.append((track, sample.timing.decodeTime.seconds ?? -1, sample.flags.contains(.keyframe)))
            bytesWritten += Int64(sample.data.count)
        }
        func finish() throws { finished = true }
    }

    /// A sink on `network`: attempts on every write once the network is down (no delay).
    func sink(_ network: Network, attempts: Int = 5, events: EventLog? = nil, keyframes: KeyframeRequest? = nil)
        -> ReconnectingSink
    {
        var onEvent: (@Sendable (ReconnectingSink.Event) -> Void)?
        if let events { onEvent = { event in events.append(event) } }
        return ReconnectingSink(
            name: "test", backoff: .init(maxAttempts: attempts, initialDelay: .zero), keyframeRequest: keyframes,
            onEvent: onEvent
        ) {
            if !network.up, network.writesUntilOutage == nil, let limit = network.outageRefusals,
                network.refusals >= limit
            {
                network.up = true
            }
            guard network.up else {
                network.refusals += 1
                throw MediaError(.io, "connection refused")
            }
            let connection = Connection(network: network)
            network.connections.append(connection)
            return connection
        }
    }

    /// Video at 10 fps (keyframe every 5th, 10 bytes) and audio every 0.1 s (2 bytes), interleaved.
    func samples(_ range: Range<Int>) -> [(MediaSample, Int)] {
        range.flatMap { i -> [(MediaSample, Int)] in
            let time = MediaTime(value: Int64(i), timescale: 10)
            let timing = SampleTiming(
                presentationTime: time, decodeTime: time, duration: MediaTime(value: 1, timescale: 10))
            return [
                (
                    MediaSample(
                        format: videoFormat, data: Array(repeating: 0, count: 10), timing: timing, frameCount: 0,
                        flags: i % 5 == 0 ? [.keyframe] : []), 0
                ),
                (MediaSample(format: audioFormat, data: [0, 0], timing: timing, frameCount: 1024), 1)
            ]
        }
    }

    @Test func resumesAtTheNextKeyframeWithTheSameFormatsAndContinuingTimestamps() throws {
        let network = Network()
        let log = EventLog()
        let keyframes = KeyframeRequest()
        let output = sink(network, events: log, keyframes: keyframes)
        try output.begin(tracks: [videoFormat, audioFormat])
        for (sample, track) in samples(0..<7) { try output.write(sample, track: track) }
        network.up = false
        for (sample, track) in samples(7..<9) { try output.write(sample, track: track) }  // fails, then 3 refusals
        #expect(!keyframes.take())
        network.up = true
        try output.write(samples(9..<10)[0].0, track: 0)  // reconnects: the encoder is asked for a keyframe
        #expect(keyframes.take() && !keyframes.take() && keyframes.taken == 1)
        for (sample, track) in samples(9..<16).dropFirst() { try output.write(sample, track: track) }
        try output.finish()

        #expect(network.connections.count == 2 && network.refusals == 3)
        let (first, second) = (network.connections[0], network.connections[1])
        #expect(first.finished && second.finished)
        #expect(second.formats == [videoFormat, audioFormat])
        #expect(first.received.count == 14)
        // Reconnected at frame 9 (audio 9 discarded), resumed at keyframe 10; audio from 1.0 s on.
        #expect(second.received.first.map { $0.track == 0 && $0.keyframe && $0.decodeTime == 1.0 } == true)
        #expect(second.received.count == 12 && second.received.allSatisfy { $0.decodeTime >= 1.0 })
        #expect(output.reconnects == 1 && output.discardedSamples == 32 - 14 - 12)
        #expect(output.bytesWritten == 7 * 12 + 6 * 12)
        let kinds = log.events.map { event -> String in
            switch event {
            case .disconnected: "down"
            case .attemptFailed(let attempt, _, let retry): "failed \(attempt) \(retry != nil)"
            case .reconnected(let attempt, _): "up \(attempt)"
            case .resumed(let time): "resumed \(time.seconds ?? -1)"
            }
        }
        #expect(kinds == ["down", "failed 1 true", "failed 2 true", "failed 3 true", "up 4", "resumed 1.0"])
    }

    @Test func givesUpAfterTheLastAttemptWithAnIOErrorNamingTheSink() throws {
        let network = Network()
        let output = sink(network, attempts: 2)
        try output.begin(tracks: [videoFormat, audioFormat])
        network.up = false
        var thrown: MediaError?
        for (sample, track) in samples(0..<3) {
            do { try output.write(sample, track: track) } catch let error as MediaError { thrown = error; break }
        }
        #expect(thrown?.code == .io)
        #expect(thrown?.message.contains("ReconnectingSink(test) gave up after 2 reconnection attempts") == true)
        #expect(network.refusals == 2)
        try output.finish()  // nothing left to close: no error
    }

    @Test func withoutAttemptsTheFirstFailureIsThrown() throws {
        let network = Network()
        let output = sink(network, attempts: 0)
        try output.begin(tracks: [videoFormat, audioFormat])
        network.up = false
        #expect { try output.write(samples(0..<1)[0].0, track: 0) } throws: { error in
            (error as? MediaError)?.message == "connection reset by peer"
        }
        #expect(network.refusals == 0)
    }

    @Test func audioOnlyResumesWithTheFirstSampleAfterReconnecting() throws {
        let network = Network()
        let output = sink(network)
        try output.begin(tracks: [audioFormat])
        let audio = samples(0..<6).filter { $0.1 == 1 }.map(\.0)
        try output.write(audio[0], track: 0)
        network.up = false
        try output.write(audio[1], track: 0)  // fails: discarded
        network.up = true
        for sample in audio[2...] { try output.write(sample, track: 0) }
        #expect(network.connections.count == 2)
        #expect(network.connections[1].received.map(\.decodeTime) == [0.2, 0.3, 0.4, 0.5])
    }

    @Test func theFirstConnectionsFailureIsThrownByBegin() {
        let network = Network()
        network.up = false
        let output = sink(network)
        #expect { try output.begin(tracks: [videoFormat]) } throws: { error in
            (error as? MediaError)?.message == "connection refused"
        }
    }

    @Test func backoffDoublesUpToItsLimit() {
        let backoff = ReconnectingSink.Backoff(maxAttempts: 6, initialDelay: .milliseconds(500), maxDelay: .seconds(3))
        #expect(
            (1...5).map { backoff.delay(beforeAttempt: $0) } == [
                .milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3)
            ])
    }

    /// A sink whose network goes down after 6 writes and refuses 2 connections.
    func flakySink() -> ReconnectingSink {
        let network = Network()
        network.writesUntilOutage = 6
        network.outageRefusals = 2
        return sink(network)
    }

    @Test func aLiveStreamSinkReportsReconnectsAndDiscards() throws {
        let live = try LiveStreamSink(flakySink(), clock: MediaClock())
        try live.begin(tracks: [videoFormat, audioFormat])
        for (sample, track) in samples(0..<12) { try live.write(sample, track: track) }
        try live.finish()
        let stats = live.stats
        // 6 sent; write 7 fails, 2 refusals, reconnect on the 10th sample (audio 4), resume at frame 5.
        #expect(stats.reconnects == 1 && stats.droppedWhileReconnecting == 4 && stats.droppedFrames == 0)
        #expect(stats.sentFrames == 20 && stats.sentBytes == 3 * 12 + 7 * 12)
    }

    /// Events heard, in order.
    final class EventLog: @unchecked Sendable {
        // Sendable: appended to and read on the test's own thread only (the sink calls back on the
        // thread that writes).
        var events: [ReconnectingSink.Event] = []
        /// Records `event`.
        func append(_ event: ReconnectingSink.Event) { events.append(event) }
    }
}
