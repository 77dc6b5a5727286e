import MediaCore
import Testing

@Suite struct AsyncBridgeTests {
    @Test func aSourceIsAnAsyncSequence() async throws {
        var seen: [MediaSample] = []
        for try await sample in ArraySource(audioPackets(seconds: 1)).samples { seen.append(sample) }
        #expect(seen == audioPackets(seconds: 1))
    }

    @Test func anAsyncSequenceSourceErrorEndsTheLoop() async throws {
        var count = 0
        await #expect(throws: MediaError.self) {
            for try await _ in FailingArraySource(samples: videoFrames(seconds: 1)).samples { count += 1 }
        }
        #expect(count == 30)
    }

    @Test func anAsyncSequenceFeedsAGraphBranch() async throws {
        let (stream, continuation) = AsyncThrowingStream<MediaSample, any Error>.makeStream()
        let produced = videoFrames(seconds: 2)
        Task {
            for frame in produced {
                continuation.yield(frame)
                try? await Task.sleep(for: .microseconds(100))
            }
            continuation.finish()
        }
        var graph = MediaGraph()
        let video = graph.addBranch(source: AsyncSequenceSource(stream))
        let sink = SampleCollector()
        graph.addSink(sink, input: video)
        try await graph.run()
        #expect(sink.samples == produced)
    }

    @Test func anAsyncSequenceErrorReachesTheGraphAsTheBranchsSourceError() async throws {
        let (stream, continuation) = AsyncThrowingStream<MediaSample, any Error>.makeStream()
        for frame in videoFrames(seconds: 1) { continuation.yield(frame) }
        continuation.finish(throwing: MediaError(.io, "connection reset"))
        var graph = MediaGraph()
        let video = graph.addBranch("network", source: AsyncSequenceSource(stream))
        let sink = SampleCollector()
        graph.addSink(sink, input: video)
        let error = await #expect(throws: MediaError.self) { try await graph.run() }
        #expect(error?.code == .io)
        #expect(error?.sampleIndex == 30)
        #expect(sink.samples.count == 30)
        #expect(sink.finishCount == 1)
    }
}

@Suite struct MediaClockTests {
    @Test func hostAndMediaTimeConvertBothWays() {
        let clock = MediaClock(anchor: MediaTime(value: 5_000_000_000, timescale: 1_000_000_000))
        #expect(clock.mediaTime(forHostTime: MediaTime(value: 7, timescale: 1)) == .seconds(2))
        #expect(clock.hostTime(for: .seconds(2)) == .seconds(7))
    }

    @Test func nowAdvancesMonotonically() {
        let clock = MediaClock()
        let first = clock.now
        clock.sleep(until: first + MediaTime(value: 20, timescale: 1000))
        let second = clock.now
        #expect(second >= first + MediaTime(value: 20, timescale: 1000))
        #expect(first >= .zero)
    }

    @Test func durationConversions() {
        #expect(MediaTime(.milliseconds(1500)) == MediaTime(value: 3, timescale: 2))
        #expect(MediaTime(value: 1, timescale: 3).duration == .nanoseconds(333_333_333))
        #expect(MediaTime(value: 3, timescale: 2).seconds == 1.5)
        #expect(MediaTime.invalid.duration == nil)
    }

    /// Two live branches on one clock start at the same media time, and a paced source hands samples
    /// out no earlier than their time (asserted on the clock's own readings, not on a timer).
    @Test func realTimeSourceWaitsForEachSamplesTime() throws {
        let clock = MediaClock()
        var source = RealTimeSource(ArraySource(videoFrames(seconds: 1).prefix(6).map { $0 }), clock: clock)
        let start = clock.now
        var last = start
        while let frame = try source.next() {
            last = clock.now
            #expect(last - start >= frame.timing.presentationTime + frame.timing.duration)
        }
        #expect(last - start >= MediaTime(value: 6, timescale: 30))
    }
}
