import MediaCore
import Testing

/// Records the calls that reach it; refuses the sample of index `failAt`.
private final class RecordingSink: MediaSink, MultiTrackSink {
    let name = "Recorder"
    var failAt: Int?
    private(set) var written: [UInt8] = []
    private(set) var calls: [String] = []
    private var writeCalls = 0

    init(failAt: Int? = nil) { self.failAt = failAt }

    func begin(tracks: [MediaFormat?]) throws { calls.append("begin") }

    func write(_ sample: MediaSample) throws {
        defer { writeCalls += 1 }
        calls.append("write")
        if writeCalls == failAt {
            calls.append("refused")
            throw MediaError(.invalidArgument, "cannot carry this")
        }
        written.append(sample.data[0])
    }

    func write(_ sample: MediaSample, track: Int) throws { try write(sample) }

    func finish() throws { calls.append("finish") }
}

@Suite(.timeLimit(.minutes(2))) struct CheckedSinkTests {
    @Test func aRefusedWriteEndsWritingButNotFinishing() throws {
        let recorder = RecordingSink(failAt: 2)
        let sink = CheckedSink(recorder)
        try sink.write(oneByteSample(0))
        try sink.write(oneByteSample(1))
        let error = try #require(throws: MediaError.self) { try sink.write(oneByteSample(2)) }
        #expect(error.stage == "Recorder")
        #expect(error.sampleIndex == 2)
        #expect(sink.state == .failed)
        let late = try #require(throws: MediaError.self) { try sink.write(oneByteSample(3)) }
        #expect(late.code == .stageFinished)
        try sink.finish()  // what was written stays a valid file
        #expect((try #require(throws: MediaError.self) { try sink.finish() }).code == .stageFinished)
        #expect(recorder.calls == ["write", "write", "write", "refused", "finish"])
        #expect(recorder.written == [0, 1])
    }

    @Test func callsAfterFinishThrowStageFinished() throws {
        let recorder = RecordingSink()
        let sink = CheckedSink(recorder)
        try sink.write(oneByteSample(0))
        try sink.finish()
        let late = try #require(throws: MediaError.self) { try sink.write(oneByteSample(1)) }
        #expect(late.code == .stageFinished)
        #expect(late.stage == "Recorder")
        #expect(late.sampleIndex == 1)
        #expect(recorder.calls == ["write", "finish"])
    }

    @Test func aMultiTrackSinkBeginsOnceBeforeItsWrites() throws {
        let recorder = RecordingSink()
        let sink = CheckedMultiTrackSink(recorder)
        let early = try #require(throws: MediaError.self) { try sink.write(oneByteSample(0), track: 0) }
        #expect(early.code == .invalidArgument)
        #expect(early.stage == "Recorder")
        try sink.begin(tracks: [oneByteSample(0).format])
        #expect((try #require(throws: MediaError.self) { try sink.begin(tracks: []) }).code == .invalidArgument)
        try sink.write(oneByteSample(0), track: 0)
        try sink.finish()
        #expect(
            (try #require(throws: MediaError.self) { try sink.write(oneByteSample(1), track: 0) }).code
                == .stageFinished)
        #expect((try #require(throws: MediaError.self) { try sink.finish() }).code == .stageFinished)
        #expect(recorder.calls == ["begin", "write", "finish"])
    }

    @Test func aMultiTrackSinkFinishesWithoutBegin() throws {
        let recorder = RecordingSink()
        let sink = CheckedMultiTrackSink(recorder)
        try sink.finish()
        #expect(recorder.calls == ["finish"])
    }
}
