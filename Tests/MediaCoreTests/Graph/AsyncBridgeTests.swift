import MediaCore
import Testing

@Suite(.timeLimit(.minutes(2))) struct AsyncBridgeTests {
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

@Suite(.timeLimit(.minutes(2))) struct MediaClockTests {
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

    /// A paced source hands samples out no earlier than their time on the clock, counted from its
    /// anchor (asserted on the clock's own readings, not on a timer).
    @Test func realTimeSourceWaitsForEachSamplesTime() throws {
        let clock = MediaClock()
        var source = RealTimeSource(ArraySource(videoFrames(seconds: 1).prefix(6).map { $0 }), clock: clock)
        var last = MediaTime.zero
        while let frame = try source.next() {
            last = clock.now
            #expect(last >= frame.timing.presentationTime + frame.timing.duration)
        }
        #expect(last >= MediaTime(value: 6, timescale: 30))
    }

    /// Two live branches on one clock start at the same media time: an audio source whose own times
    /// start at zero and a video source whose own times start 10 s in (a camera stamping its uptime),
    /// each a RealTimeSource on the clock, in one threaded graph (each branch on its own thread, started
    /// when it happens to be). Both first samples are stamped zero, the clock's anchor; each keeps its
    /// spacing; and no sample reaches the stage after its source before the shared clock has passed
    /// its stamped end: paced from the shared anchor (counted against the clock's own readings, a
    /// lower bound that cannot be flaky, not a timing assertion).
    @Test func twoLiveBranchesOnOneClockStartAtTheSameMediaTime() throws {
        let clock = MediaClock()
        let audio = Array(audioPackets(seconds: 1).prefix(8))
        let video = packets(count: 6, duration: 1, timescale: 30, format: videoFormat, startIndex: 300)
        #expect(video[0].timing.presentationTime == .seconds(10))
        let early = LockedCounts()
        let check = { @Sendable (sample: MediaSample, _: Int64) -> [MediaSample] in
            if clock.now < sample.timing.presentationTime + sample.timing.duration { _ = early.bump(0) }
            return [sample]
        }
        var graph = MediaGraph()
        let audioBranch = graph.addBranch(
            "audio", source: RealTimeSource(ArraySource(audio), clock: clock), stages: [ClosureStage("Check", check)])
        let videoBranch = graph.addBranch(
            "video", source: RealTimeSource(ArraySource(video), clock: clock), stages: [ClosureStage("Check", check)])
        let sink = SampleCollector()
        graph.addSink(sink, tracks: [audioBranch, videoBranch])
        try graph.runThreaded()

        let stampedAudio = sink.samples(track: 0)
        let stampedVideo = sink.samples(track: 1)
        #expect(stampedAudio.count == 8 && stampedVideo.count == 6)
        #expect(stampedAudio.first?.timing.presentationTime == .zero)
        #expect(stampedVideo.first?.timing.presentationTime == stampedAudio.first?.timing.presentationTime)
        #expect(stampedAudio.map(\.timing) == audio.map(\.timing))  // already from zero: as they were
        let frameTimes = (0..<6).map { MediaTime(value: Int64($0), timescale: 30) }
        #expect(stampedVideo.map(\.timing.presentationTime) == frameTimes)
        #expect(stampedVideo.map(\.timing.decodeTime) == frameTimes)
        #expect(stampedVideo.map(\.data) == video.map(\.data))
        #expect(early.read(0) == 0)
    }
}
