import MediaCore
import Testing

/// Adds `amount` to each sample's first byte; throws on `failOn`; holds one sample back until finish.
private final class Add: MediaStage {
    let amount: UInt8
    let failOn: UInt8?
    var held: MediaSample?
    var finishes = 0
    init(_ amount: UInt8, failOn: UInt8? = nil) {
        self.amount = amount
        self.failOn = failOn
    }

    var name: String { "Add\(amount)" }

    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        if sample.data.first == failOn { throw MediaError(.invalidData, "bad byte \(sample.data[0])") }
        if let held { try emit(held) }
        var next = sample
        next.data[0] &+= amount
        held = next
    }

    func finish(into emit: (MediaSample) throws -> Void) throws {
        finishes += 1
        if let held { try emit(held) }
        held = nil
    }
}

private func bytes(_ count: Int) -> [MediaSample] {
    (0..<count).map { index in
        MediaSample(
            format: .audio(.pcm(PCMFormat(.u8), sampleRate: 8000, channels: 1)), data: [UInt8(index)],
            timing: .audio(startFrame: Int64(index), frameCount: 1, sampleRate: 8000), frameCount: 1)
    }
}

/// Remembers the formats it began with and the first byte of every sample, per track.
private final class TrackLog: MultiTrackSink, @unchecked Sendable {
    // Unchecked: used on the test's thread only (a synchronous pipeline run).
    var formats: [MediaFormat?] = []
    var written: [(track: Int, byte: UInt8)] = []
    var finishes = 0
    func begin(tracks: [MediaFormat?]) throws { formats = tracks }
    func write(_ sample: MediaSample, track: Int) throws { written.append((track, sample.data[0])) }
    func finish() throws { finishes += 1 }
}

@Suite(.timeLimit(.minutes(1))) struct MediaBinTests {
    @Test func aBinWritesWhatItsStagesWriteInARow() throws {
        var row = Pipeline(source: ArraySource(bytes(50)), stages: [Add(1), Add(10)], sink: CollectingSink())
        try row.run()
        var binned = Pipeline(
            source: ArraySource(bytes(50)), stages: [MediaBin("Add11", stages: [Add(1), Add(10)])],
            sink: CollectingSink())
        let progress = try binned.run()
        let expected = try #require(row.finishedSink as? CollectingSink).samples.map(\.data)
        let got = try #require(binned.finishedSink as? CollectingSink).samples.map(\.data)
        #expect(got == expected)
        #expect(got.count == 50)  // both held-back samples drained at the end
        #expect(got.first == [11])
        #expect(progress.samplesWritten == 50)
    }

    @Test func binsNestAndDrainInOrder() throws {
        let inner = Add(2)
        let bin = MediaBin("Outer", stages: [Add(1), MediaBin("Inner", stages: [inner])])
        #expect(bin.stageNames == ["Add1", "Inner"])
        var out: [UInt8] = []
        let checked = CheckedStage(bin)
        for sample in bytes(5) { try checked.process(sample) { out.append($0.data[0]) } }
        #expect(out == [3, 4, 5])  // each Add holds one back
        try checked.finish { out.append($0.data[0]) }
        #expect(out == [3, 4, 5, 6, 7])
        #expect(inner.finishes == 1)
        #expect(throws: MediaError.self) { try checked.finish { _ in } }
        #expect(inner.finishes == 1)
    }

    @Test func aChildsErrorNamesTheChildAndItsSample() throws {
        var pipeline = Pipeline(
            source: ArraySource(bytes(20)), stages: [MediaBin("Bin", stages: [Add(1), Add(1, failOn: 8)])],
            sink: CollectingSink())
        let error = try #require(throws: MediaError.self) { try pipeline.run() }
        #expect(error.stage == "Add1")
        #expect(error.sampleIndex == 7)  // the second Add got 1…7 before 8: the eighth sample
        #expect(error.message == "bad byte 8")
    }

    @Test func anErrorFromDownstreamLeavesTheChildrenOpen() throws {
        struct Full: Error {}
        let bin = MediaBin(stages: [Add(1)])
        let samples = bytes(3)
        try bin.process(samples[0]) { _ in throw Full() }  // held back: nothing emitted yet
        #expect(throws: Full.self) { try bin.process(samples[1]) { _ in throw Full() } }
        // Not stamped as the child's failure: the child takes the next sample.
        var out: [UInt8] = []
        try bin.process(samples[2]) { out.append($0.data[0]) }
        try bin.finish { out.append($0.data[0]) }
        #expect(out == [1, 3])  // the sample whose emit failed is still held, then 2 + 1
    }

    @Test(arguments: [false, true])
    func aMultiTrackSinkEndsAPipeline(concurrently: Bool) throws {
        let log = TrackLog()
        var pipeline = Pipeline(source: ArraySource(bytes(30)), stages: [Add(1)], sink: log)
        let progress = concurrently ? try pipeline.runConcurrently(queueDepth: 2) : try pipeline.run()
        #expect(log.formats == [.audio(.pcm(PCMFormat(.u8), sampleRate: 8000, channels: 1))])
        #expect(log.written.map(\.track) == Array(repeating: 0, count: 30))
        #expect(log.written.map(\.byte) == (1...30).map(UInt8.init))
        #expect(log.finishes == 1)
        #expect(progress.samplesWritten == 30)
        #expect(pipeline.finishedMultiTrackSink is TrackLog)
    }
}
