import MediaCore
import MediaTestSupport

/// Samples for graph tests: packets of `duration` ticks at `timescale`, numbered in their first byte
/// (mod 256) and second byte (div 256).
func packets(count: Int, duration: Int64, timescale: Int32, format: MediaFormat, startIndex: Int = 0) -> [MediaSample] {
    (startIndex..<startIndex + count).map { i in
        let start = MediaTime(value: Int64(i) * duration, timescale: timescale)
        return MediaSample(
            format: format, data: [UInt8(i & 0xFF), UInt8(i >> 8 & 0xFF)],
            timing: SampleTiming(
                presentationTime: start, decodeTime: start, duration: MediaTime(value: duration, timescale: timescale)),
            frameCount: format.audio == nil ? 0 : Int(duration))
    }
}

let audioFormat = MediaFormat.audio(
    .aac(sampleRate: 48_000, channelLayout: .default(channelCount: 2), audioSpecificConfig: [0x11, 0x90]))
let videoFormat = MediaFormat.video(.raw(.yuv420p, width: 16, height: 16))

/// AAC-like packets: `seconds` of 1024-frame packets at 48 kHz.
func audioPackets(seconds: Int) -> [MediaSample] {
    packets(count: seconds * 48_000 / 1024, duration: 1024, timescale: 48_000, format: audioFormat)
}

/// Video frames at 30 fps.
func videoFrames(seconds: Int) -> [MediaSample] {
    packets(count: seconds * 30, duration: 1, timescale: 30, format: videoFormat)
}

/// A stage built from closures, counting its calls.
final class ClosureStage: MediaStage, Sendable {
    let counts = CallCounts()
    private let body: @Sendable (MediaSample, Int64) throws -> [MediaSample]
    private let tail: @Sendable () throws -> [MediaSample]
    let name: String

    init(
        _ name: String = "ClosureStage",
        tail: @escaping @Sendable () throws -> [MediaSample] = { [] },
        _ body: @escaping @Sendable (MediaSample, Int64) throws -> [MediaSample]
    ) {
        self.name = name
        self.body = body
        self.tail = tail
    }

    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        let index = counts.process()
        for output in try body(sample, index) { try emit(output) }
    }

    func finish(into emit: (MediaSample) throws -> Void) throws {
        counts.finish()
        for output in try tail() { try emit(output) }
    }
}

/// How often a stage's `process` and `finish` were called; readable from the test.
final class CallCounts: Sendable {
    private let state = LockedCounts()
    func process() -> Int64 { state.bump(0) - 1 }
    func finish() { _ = state.bump(1) }
    var processCalls: Int64 { state.read(0) }
    var finishCalls: Int64 { state.read(1) }
}

/// Two counters under a lock (test-side, so not MediaCore's internal `Locked`).
final class LockedCounts: Sendable {
    private let values = LockedBox<[Int64]>([0, 0])
    func bump(_ index: Int) -> Int64 {
        values.withLock {
            $0[index] += 1; return $0[index]
        }
    }
    func read(_ index: Int) -> Int64 { values.withLock { $0[index] } }
}

/// A source that hands out `samples` and then throws a truncation error.
struct FailingArraySource: MediaSource {
    var samples: [MediaSample]
    mutating func next() throws -> MediaSample? {
        guard !samples.isEmpty else { throw MediaError.truncated("packet", needed: 100, available: 10, at: 4_000) }
        return samples.removeFirst()
    }
}
