import MediaCore
import Testing

/// Counts the calls that reach it; throws `error` on the sample of index `failAt`; emits each sample
/// `copies` times, and `held` samples at finish.
private final class CountingStage: MediaStage {
    let name: String
    var failAt: Int64?
    var error = MediaError(.invalidData, "bad sample")
    var copies = 1
    var held: [MediaSample] = []
    private(set) var processCalls: Int64 = 0
    private(set) var finishCalls = 0

    init(_ name: String, failAt: Int64? = nil) {
        self.name = name
        self.failAt = failAt
    }

    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        defer { processCalls += 1 }
        if processCalls == failAt { throw error }
        for _ in 0..<copies { try emit(sample) }
    }

    func finish(into emit: (MediaSample) throws -> Void) throws {
        finishCalls += 1
        for sample in held { try emit(sample) }
        if failAt == -1 { throw error }
    }
}

@Suite(.timeLimit(.minutes(2))) struct CheckedStageTests {
    @Test func runsTheStageInOrderAndCounts() throws {
        let stage = CountingStage("Doubler")
        stage.copies = 2
        stage.held = [oneByteSample(9)]
        let checked = CheckedStage(stage)
        var out: [UInt8] = []
        for byte: UInt8 in [1, 2, 3] { try checked.process(oneByteSample(byte)) { out.append($0.data[0]) } }
        try checked.finish { out.append($0.data[0]) }
        #expect(out == [1, 1, 2, 2, 3, 3, 9])
        #expect(checked.name == "Doubler")
        #expect(checked.sampleCount == 3)
        #expect(checked.state == .finished)
    }

    @Test func callsAfterFinishThrowStageFinishedAndDoNotReachTheStage() throws {
        let stage = CountingStage("Encoder")
        let checked = CheckedStage(stage)
        try checked.process(oneByteSample(1)) { _ in }
        try checked.finish { _ in }
        let late = try #require(throws: MediaError.self) { try checked.process(oneByteSample(2)) { _ in } }
        #expect(late.code == .stageFinished)
        #expect(late.stage == "Encoder")
        #expect(late.sampleIndex == 1)
        #expect(late.description == "Encoder was called after it finished or failed (sample 1) in stage Encoder.")
        let again = try #require(throws: MediaError.self) { try checked.finish { _ in } }
        #expect(again.code == .stageFinished)
        #expect(stage.processCalls == 1)
        #expect(stage.finishCalls == 1)
    }

    @Test func aThrowStampsNameAndSampleIndexAndEndsTheStage() throws {
        let stage = CountingStage("Exploder", failAt: 2)
        let checked = CheckedStage(stage)
        try checked.process(oneByteSample(0)) { _ in }
        try checked.process(oneByteSample(1)) { _ in }
        let error = try #require(throws: MediaError.self) { try checked.process(oneByteSample(2)) { _ in } }
        #expect(error.code == .invalidData)
        #expect(error.stage == "Exploder")
        #expect(error.sampleIndex == 2)
        #expect(checked.state == .failed)
        // Nothing after a throw: neither process nor finish reaches the stage.
        #expect(
            (try #require(throws: MediaError.self) { try checked.process(oneByteSample(3)) { _ in } }).code
                == .stageFinished)
        #expect((try #require(throws: MediaError.self) { try checked.finish { _ in } }).code == .stageFinished)
        #expect(stage.processCalls == 3)
        #expect(stage.finishCalls == 0)
    }

    @Test func whatTheErrorSaysAlreadyIsKept() throws {
        let stage = CountingStage("Parser", failAt: 0)
        stage.error = MediaError(.truncated, "frame cut short", sampleIndex: 40, stage: "Inner")
        let error = try #require(throws: MediaError.self) { try CheckedStage(stage).process(oneByteSample(0)) { _ in } }
        #expect(error.stage == "Inner")
        #expect(error.sampleIndex == 40)
    }

    @Test func aFinishErrorIsStampedWithTheSamplesGiven() throws {
        let stage = CountingStage("Drainer", failAt: -1)
        let checked = CheckedStage(stage)
        for byte: UInt8 in [0, 1, 2, 3] { try checked.process(oneByteSample(byte)) { _ in } }
        let error = try #require(throws: MediaError.self) { try checked.finish { _ in } }
        #expect(error.stage == "Drainer")
        #expect(error.sampleIndex == 4)
    }

    /// An error from what the stage emits into is the downstream's: it comes out as it is, and the
    /// stage stays open.
    @Test func anErrorFromEmitIsNotTheStages() throws {
        struct Cancelled: Error {}
        let stage = CountingStage("Passer")
        let checked = CheckedStage(stage)
        #expect(throws: Cancelled.self) { try checked.process(oneByteSample(0)) { _ in throw Cancelled() } }
        let downstream = try #require(throws: MediaError.self) {
            try checked.process(oneByteSample(1)) { _ in throw MediaError(.io, "disk full") }
        }
        #expect(downstream.stage == nil)
        #expect(downstream.sampleIndex == nil)
        #expect(checked.state == .open)
        var out: [UInt8] = []
        try checked.process(oneByteSample(2)) { out.append($0.data[0]) }
        try checked.finish { _ in }
        #expect(out == [2])
        #expect(stage.finishCalls == 1)
    }

    /// Two guarded stages in a chain: the second's error names the second, with its own sample index,
    /// and does not end the first.
    @Test func aChainStampsTheStageThatFailed() throws {
        let first = CountingStage("First")
        first.copies = 3
        let second = CountingStage("Second", failAt: 4)
        let upstream = CheckedStage(first)
        let downstream = CheckedStage(second)
        try upstream.process(oneByteSample(0)) { try downstream.process($0) { _ in } }
        let error = try #require(throws: MediaError.self) {
            try upstream.process(oneByteSample(1)) { try downstream.process($0) { _ in } }
        }
        #expect(error.stage == "Second")
        #expect(error.sampleIndex == 4)
        #expect(upstream.state == .open)
        #expect(downstream.state == .failed)
        #expect(upstream.sampleCount == 1)
    }

    @Test func aPipelineStampsTheSampleIndexOfTheFailingStage() throws {
        let failing = CountingStage("Exploder", failAt: 5)
        var pipeline = Pipeline(
            source: ArraySource((0..<9).map { oneByteSample(UInt8($0)) }), stages: [CountingStage("Before"), failing],
            sink: CollectingSink())
        let error = try #require(throws: MediaError.self) { try pipeline.run() }
        #expect(error.stage == "Exploder")
        #expect(error.sampleIndex == 5)
        #expect(failing.processCalls == 6)
        #expect(failing.finishCalls == 0)
    }

    /// A stage given to a driver already guarded is not guarded twice: its state is the driver's.
    @Test func aCheckedStageGivenToAPipelineIsNotWrappedAgain() throws {
        let checked = CheckedStage(CountingStage("Counted"))
        var pipeline = Pipeline(
            source: ArraySource([oneByteSample(1), oneByteSample(2)]), stages: [checked], sink: CollectingSink())
        try pipeline.run()
        #expect(checked.sampleCount == 2)
        #expect(checked.state == .finished)
    }
}
