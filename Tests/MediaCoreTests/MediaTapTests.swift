import MediaCore
import MediaTestSupport
import Synchronization
import Testing

private func pcm(_ count: Int, bytes: Int = 64) -> [MediaSample] {
    (0..<count).map { index in
        MediaSample(
            format: .audio(.pcm(PCMFormat(.u8), sampleRate: 8000, channels: 1)),
            data: [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: bytes),
            timing: .audio(startFrame: Int64(index * bytes), frameCount: bytes, sampleRate: 8000), frameCount: bytes)
    }
}

/// The address of a sample's bytes: equal addresses mean the bytes were not copied.
private func address(_ sample: MediaSample) -> UInt {
    sample.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
}

/// Throws on the sample whose first byte is `failOn`.
private struct FailOn: MediaStage {
    let byte: UInt8
    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        if sample.data.first == byte { throw MediaError(.invalidData, "refused \(byte)") }
        try emit(sample)
    }
    func finish(into emit: (MediaSample) throws -> Void) throws {}
}

/// Remembers the addresses of what it is given; `Sendable` for a graph's threads.
private final class Addresses: MediaSink, Sendable {
    let seen = Mutex<[UInt]>([])
    func write(_ sample: MediaSample) throws { seen.withLock { $0.append(address(sample)) } }
    func finish() throws {}
}

@Suite(.timeLimit(.minutes(1))) struct MediaTapTests {
    @Test func aClosureTapSeesEverySampleWithoutACopy() throws {
        let observed = Mutex<[UInt]>([])
        let sink = Addresses()
        var pipeline = Pipeline(
            source: ArraySource(pcm(40)),
            stages: [MediaTap { sample in observed.withLock { $0.append(address(sample)) } }],
            sink: sink)
        try pipeline.run()
        let tapped = observed.withLock { $0 }
        #expect(tapped.count == 40)
        #expect(tapped == sink.seen.withLock { $0 })  // the same bytes reached the tap and the sink
        #expect(Set(tapped).count == 40)
    }

    @Test func aStreamThatFallsBehindDropsTheOldestAndSaysSo() async throws {
        let (tap, samples) = MediaTap.stream("Preview", buffering: .dropOldest(keeping: 4))
        var graph = MediaGraph()
        let branch = graph.addBranch(source: ArraySource(pcm(100)), stages: [tap])
        graph.addSink(CollectingSink(), input: branch)
        // Nobody reads while the graph runs: the tap must not make it wait.
        let progress = try await graph.run()
        #expect(progress.sinks[0].samplesWritten == 100)
        var firstBytes: [UInt8] = []
        for await sample in samples { firstBytes.append(sample.data[0]) }
        #expect(firstBytes == [96, 97, 98, 99])
        #expect(samples.droppedCount == 96)
        let drops = progress.warnings.filter { $0[DiagnosticKey.code] == "tapDropped" }
        #expect(
            drops.map(\.message) == [
                "Preview dropped a sample: its reader fell behind",
                "Preview dropped 96 samples in all: its reader fell behind"
            ])
    }

    @Test func aWaitingStreamLosesNothingToASlowReader() async throws {
        let (tap, samples) = MediaTap.stream(buffering: .wait(capacity: 2))
        var graph = MediaGraph()
        let branch = graph.addBranch(source: ArraySource(pcm(200)), stages: [tap])
        graph.addSink(CollectingSink(), input: branch)
        let reader = Task {
            var firstBytes: [UInt8] = []
            for await sample in samples {
                firstBytes.append(sample.data[0])
                if firstBytes.count % 50 == 0 { try? await Task.sleep(for: .milliseconds(20)) }
            }
            return firstBytes
        }
        let progress = try await graph.run()
        #expect(await reader.value == (0..<200).map { UInt8($0) })
        #expect(samples.droppedCount == 0)
        #expect(progress.warningCount == 0)
    }

    @Test func theStreamEndsWhenTheRunFailsAfterTheTap() async throws {
        let (tap, samples) = MediaTap.stream(buffering: .dropNewest(keeping: 1000))
        var graph = MediaGraph()
        let branch = graph.addBranch(source: ArraySource(pcm(50)), stages: [tap, FailOn(byte: 10)])
        graph.addSink(CollectingSink(), input: branch)
        await #expect(throws: MediaError.self) { try await graph.run() }
        var count = 0
        for await _ in samples { count += 1 }  // ends: the run let go of the tap
        #expect(count == 11)  // 0…10 passed the tap; 10 failed after it
    }
}
