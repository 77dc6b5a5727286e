import MediaCore
import Testing

/// Doubles each sample; fails on the sample whose first byte is `failOn`; holds one sample back until finish.
private struct Repeater: MediaStage {
    var failOn: UInt8?
    var held: MediaSample?
    var finishCalls = 0

    mutating func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        if sample.data.first == failOn {
            throw MediaError(.invalidData, "bad byte", sampleIndex: Int64(sample.data[0]))
        }
        if let held { try emit(held); try emit(held) }
        held = sample
    }

    mutating func finish(into emit: (MediaSample) throws -> Void) throws {
        finishCalls += 1
        if let held { try emit(held); try emit(held) }
        held = nil
    }
}

/// Records what it receives and whether it was finished, into a shared box the test can read.
private final class Record { var samples: [UInt8] = []; var finished = 0 }
private struct RecordingSink: MediaSink {
    let record: Record
    func write(_ sample: MediaSample) throws { record.samples.append(sample.data[0]) }
    func finish() throws { record.finished += 1 }
}

/// Hands out `samples`, then throws a truncation error instead of ending.
private struct FailingSource: MediaSource {
    var samples: [MediaSample]
    mutating func next() throws -> MediaSample? {
        if samples.isEmpty { throw MediaError.truncated("frame 3", needed: 10, available: 4, at: 30) }
        return samples.removeFirst()
    }
}

@Suite(.timeLimit(.minutes(2))) struct PipelineTests {
    func samples(_ bytes: [UInt8]) -> [MediaSample] {
        bytes.enumerated().map { i, b in
            MediaSample(
                format: .audio(.pcm(PCMFormat(.u8), sampleRate: 8000, channels: 1)), data: [b],
                timing: .audio(startFrame: Int64(i), frameCount: 1, sampleRate: 8000), frameCount: 1)
        }
    }

    @Test func runsToTheEndAndDrainsStages() throws {
        let record = Record()
        var pipeline = Pipeline(
            source: ArraySource(samples([1, 2, 3])), stages: [Repeater()], sink: RecordingSink(record: record))
        var reports: [Int64] = []
        let result = try pipeline.run { reports.append($0.samplesRead) }
        #expect(record.samples == [1, 1, 2, 2, 3, 3])
        #expect(record.finished == 1)
        #expect(reports == [1, 2, 3])
        #expect(result.samplesWritten == 6)
        #expect(result.framesRead == 3)
        #expect(result.position == MediaTime(value: 3, timescale: 8000))
    }

    @Test func errorFinishesTheSinkAndNamesTheStage() throws {
        let record = Record()
        var pipeline = Pipeline(
            source: ArraySource(samples([1, 2, 7, 4])), stages: [Repeater(failOn: 7)],
            sink: RecordingSink(record: record))
        do {
            try pipeline.run()
            Issue.record("the run did not fail")
        } catch let error as MediaError {
            #expect(error.stage == "Repeater")
            #expect(error.sampleIndex == 7)
            #expect(error.description == "bad byte (sample 7) in stage Repeater.")
        }
        #expect(record.samples == [1, 1])
        #expect(record.finished == 1, "the sink is finished so its file stays valid")
        #expect { try pipeline.run() } throws: { ($0 as? MediaError)?.code == .stageFinished }
    }

    /// A source cut short: the stages still drain what they hold into the sink, then the source's error comes out.
    @Test func sourceErrorDrainsTheStagesBeforeRethrowing() throws {
        let record = Record()
        var pipeline = Pipeline(
            source: FailingSource(samples: samples([1, 2, 3])), stages: [Repeater()],
            sink: RecordingSink(record: record))
        do {
            try pipeline.run()
            Issue.record("the run did not fail")
        } catch let error as MediaError {
            #expect(error.code == .truncated)
            #expect(error.stage == "FailingSource")
            #expect(error.byteOffset == 30)
        }
        #expect(record.samples == [1, 1, 2, 2, 3, 3], "the sample the stage held back reached the sink")
        #expect(record.finished == 1)
    }

    /// The same with a thread per stage.
    @Test func sourceErrorDrainsTheStagesInAConcurrentRun() throws {
        let record = Record()
        var pipeline = Pipeline(
            source: FailingSource(samples: samples([1, 2, 3])), stages: [Repeater()],
            sink: RecordingSink(record: record))
        #expect { try pipeline.runConcurrently() } throws: { ($0 as? MediaError)?.code == .truncated }
        #expect(record.samples == [1, 1, 2, 2, 3, 3])
        #expect(record.finished == 1)
    }

    @Test func progressCallbackCanCancel() throws {
        struct Cancelled: Error {}
        let record = Record()
        var pipeline = Pipeline(source: ArraySource(samples([1, 2, 3, 4])), sink: RecordingSink(record: record))
        #expect(throws: Cancelled.self) {
            try pipeline.run { if $0.samplesRead == 2 { throw Cancelled() } }
        }
        #expect(record.samples == [1, 2])
        #expect(record.finished == 1)
    }

    @Test func collectingSinkRefusesWritesAfterFinish() throws {
        var sink = CollectingSink()
        try sink.write(samples([1])[0])
        try sink.finish()
        #expect(sink.samples.count == 1)
        #expect { try sink.write(samples([2])[0]) } throws: { ($0 as? MediaError)?.code == .stageFinished }
    }
}
