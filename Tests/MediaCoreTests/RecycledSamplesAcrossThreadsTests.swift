import Foundation
@testable import MediaCore
import Synchronization
import Testing

/// The index of the last sample the sink has written: the source waits for it, so that the sample it
/// recycles has just been let go of by the sink's thread (the hand-off under test), not long before.
private final class Written: Sendable {
    let index = Mutex(-1)
}

/// A source that makes its samples with a ``SampleRecycler`` (as the file readers do), each of 1,024 bytes
/// all equal to its index, and counts the samples whose storage is the previous sample's (reused). Before
/// each sample it waits (at most 20 ms) until the sink has written the one before.
private final class RecyclingCounter: MediaSource {
    let count: Int
    let written: Written
    private var index = 0
    private var recycler = SampleRecycler()
    private weak var previousStorage: AnyObject?
    private(set) var reused = 0

    init(count: Int, written: Written) {
        self.count = count
        self.written = written
    }

    func next() throws -> MediaSample? {
        guard index < count else { return nil }
        let deadline = Date(timeIntervalSinceNow: 0.02)
        while written.index.withLock({ $0 }) < index - 1, Date() < deadline { usleep(100) }
        let value = UInt8(truncatingIfNeeded: index)
        let sample = recycler.make(
            format: .audio(.pcm(PCMFormat(.u8), sampleRate: 8000, channels: 1)),
            timing: .audio(startFrame: Int64(index) * 1024, frameCount: 1024, sampleRate: 8000), frameCount: 1024
        ) { $0.append(contentsOf: repeatElement(value, count: 1024)) }
        if let previousStorage, previousStorage === sample.storage { reused += 1 }
        previousStorage = sample.storage
        index += 1
        return sample
    }
}

/// Reads every byte of each sample on its stage thread and passes it on unchanged.
private final class Checksum: MediaStage {
    private(set) var sums: [Int] = []
    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        sums.append(sample.data.reduce(0) { $0 + Int($1) })
        try emit(sample)
    }
    func finish(into emit: (MediaSample) throws -> Void) throws {}
}

/// Keeps each sample's first byte and whether all its bytes equal it.
private final class Uniformity: MediaSink {
    let written: Written
    init(written: Written) { self.written = written }
    private(set) var seen: [(first: UInt8, uniform: Bool)] = []
    func write(_ sample: MediaSample) throws {
        let first = sample.data.first ?? 0
        seen.append((first, sample.data.allSatisfy { $0 == first }))
        let index = seen.count - 1
        written.index.withLock { $0 = index }
    }
    func finish() throws {}
}

/// The hand-off ``SampleRecycler`` relies on, across threads: the source refills the storage of a sample
/// that the stage and sink threads of ``Pipeline/runConcurrently(queueDepth:stop:progress:)`` have let go of,
/// never one still in use. ThreadSanitizer runs this (MediaCore's tests), so a racy refill is a report,
/// and an overwrite of a sample still held shows as a sample whose bytes are not all its index.
@Suite(.timeLimit(.minutes(2))) struct RecycledSamplesAcrossThreadsTests {
    @Test(arguments: [1, 4])
    func aRecycledSampleIsRefilledOnlyOnceEveryThreadLetGo(queueDepth: Int) throws {
        let written = Written()
        let source = RecyclingCounter(count: 500, written: written)
        let stage = Checksum()
        let sink = Uniformity(written: written)
        var pipeline = Pipeline(source: source, stages: [stage], sink: sink)
        _ = try pipeline.runConcurrently(queueDepth: queueDepth)
        #expect(sink.seen.count == 500)
        #expect(sink.seen.indices.allSatisfy { sink.seen[$0].first == UInt8(truncatingIfNeeded: $0) })
        #expect(sink.seen.allSatisfy { $0.uniform })
        #expect(stage.sums.indices.allSatisfy { stage.sums[$0] == Int(UInt8(truncatingIfNeeded: $0)) * 1024 })
        // The path under test was taken: samples came back to the source before it made the next (measured:
        // more than 470 of the 500).
        #expect(source.reused >= 50, "\(source.reused) of 500 samples recycled")
    }
}
