import MediaCore
import Testing

/// Adds one to each sample's first byte; throws on `failOn`; holds one sample back until finish.
private final class Increment: MediaStage {
    let failOn: UInt8?
    var held: MediaSample?
    init(failOn: UInt8? = nil) { self.failOn = failOn }

    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        if sample.data.first == failOn { throw MediaError(.invalidData, "bad byte \(sample.data[0])") }
        if let held { try emit(held) }
        var next = sample
        next.data[0] &+= 1
        held = next
    }

    func finish(into emit: (MediaSample) throws -> Void) throws {
        if let held { try emit(held) }
        held = nil
    }
}

private final class Record { var bytes: [UInt8] = []; var finished = 0 }
private struct RecordingSink: MediaSink {
    let record: Record
    var failOn: UInt8?
    func write(_ sample: MediaSample) throws {
        if sample.data[0] == failOn { throw MediaError(.io, "disk full") }
        record.bytes.append(sample.data[0])
    }
    func finish() throws { record.finished += 1 }
}

/// A source of `count` one-byte samples 0, 1, 2, ... (wrapping), failing at `failAt` if set.
private struct Counter: MediaSource {
    let count: Int
    var failAt: Int?
    var index = 0
    mutating func next() throws -> MediaSample? {
        guard index < count else { return nil }
        if index == failAt { throw MediaError(.truncated, "source ran dry", sampleIndex: Int64(index)) }
        defer { index += 1 }
        return MediaSample(
            format: .audio(.pcm(PCMFormat(.u8), sampleRate: 8000, channels: 1)),
            data: [UInt8(truncatingIfNeeded: index)],
            timing: .audio(startFrame: Int64(index), frameCount: 1, sampleRate: 8000), frameCount: 1)
    }
}

@Suite(.timeLimit(.minutes(2))) struct ConcurrentPipelineTests {
    @Test(arguments: [1, 2, 8, 64])
    func givesTheSameOutputAsTheSynchronousRun(queueDepth: Int) throws {
        let serial = Record()
        var a = Pipeline(
            source: Counter(count: 1000), stages: [Increment(), Increment(), Increment()],
            sink: RecordingSink(record: serial))
        let expected = try a.run()
        let concurrent = Record()
        var b = Pipeline(
            source: Counter(count: 1000), stages: [Increment(), Increment(), Increment()],
            sink: RecordingSink(record: concurrent))
        var reports = 0
        let result = try b.runConcurrently(queueDepth: queueDepth) { _ in reports += 1 }
        #expect(concurrent.bytes == serial.bytes)
        #expect(concurrent.bytes.count == 1000)
        #expect(concurrent.bytes.first == 3)
        #expect(result == expected)
        #expect(reports == 1000)
        #expect(concurrent.finished == 1)
    }

    @Test func stageErrorStopsTheRunFinishesTheSinkAndNamesTheStage() throws {
        let record = Record()
        // The second stage fails on its 11th sample while the source still has thousands to give:
        // with queues of depth 1 this deadlocks unless the other threads keep draining.
        var pipeline = Pipeline(
            source: Counter(count: 5000), stages: [Increment(), Increment(failOn: 11)],
            sink: RecordingSink(record: record))
        do {
            try pipeline.runConcurrently(queueDepth: 1)
            Issue.record("the run did not fail")
        } catch let error as MediaError {
            #expect(error.stage == "Increment")
            #expect(error.message == "bad byte 11")
        }
        #expect(record.finished == 1)
        #expect(record.bytes.count < 5000)
    }

    @Test func sinkAndSourceErrorsAreRethrownNamed() throws {
        let record = Record()
        var failingSink = Pipeline(
            source: Counter(count: 300), stages: [Increment()], sink: RecordingSink(record: record, failOn: 100))
        #expect { try failingSink.runConcurrently(queueDepth: 2) } throws: {
            ($0 as? MediaError)?.stage == "RecordingSink" && ($0 as? MediaError)?.code == .io
        }
        #expect(record.finished == 1)

        let other = Record()
        var failingSource = Pipeline(
            source: Counter(count: 300, failAt: 50), stages: [Increment()], sink: RecordingSink(record: other))
        #expect { try failingSource.runConcurrently() } throws: {
            ($0 as? MediaError)?.stage == "Counter" && ($0 as? MediaError)?.sampleIndex == 50
        }
        #expect(other.finished == 1)
        #expect(other.bytes.count <= 50)
    }

    @Test func progressCallbackCancels() throws {
        struct Stop: Error {}
        let record = Record()
        var pipeline = Pipeline(
            source: Counter(count: 10_000), stages: [Increment()], sink: RecordingSink(record: record))
        #expect(throws: Stop.self) { try pipeline.runConcurrently { if $0.samplesRead == 20 { throw Stop() } } }
        #expect(record.finished == 1)
        #expect(record.bytes.count <= 20)
        #expect { try pipeline.runConcurrently() } throws: { ($0 as? MediaError)?.code == .stageFinished }
    }
}

extension ConcurrentPipelineTests {
    /// The first stage fails at once while the source and the queues are full: every thread still ends.
    @Test func failureAtTheFirstSampleWithFullQueuesEnds() throws {
        for depth in [1, 2, 3] {
            let record = Record()
            var pipeline = Pipeline(
                source: Counter(count: 2000), stages: [Increment(failOn: 0), Increment(), Increment()],
                sink: RecordingSink(record: record))
            #expect(throws: MediaError.self) { try pipeline.runConcurrently(queueDepth: depth) }
            #expect(record.bytes.isEmpty)
            #expect(record.finished == 1)
        }
    }
}
