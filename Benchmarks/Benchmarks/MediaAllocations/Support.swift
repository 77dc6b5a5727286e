import Benchmark
import MediaCore

/// Samples every benchmark handles in one measured run. With `scalingFactor: .kilo` the tool knows a
/// run is 1000 samples, so `swift package benchmark --scale` prints mallocs per sample.
let samplesPerRun = 1000

/// An output that keeps nothing: a muxer's own allocations are measured, not a growing array's.
final class NullOutput: MediaOutput {
    private(set) var position: Int64 = 0

    var isSeekable: Bool { true }

    func write(_ bytes: UnsafeRawBufferPointer) throws(MediaError) { position += Int64(bytes.count) }

    func overwrite(_ bytes: [UInt8], at offset: Int64) throws(MediaError) {}

    func flush() throws(MediaError) {}

    func close() throws(MediaError) {}
}

/// A stage that passes every sample on: what a graph costs per hop, without any work of its own.
struct IdentityStage: MediaStage {
    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws { try emit(sample) }

    func finish(into emit: (MediaSample) throws -> Void) throws {}
}

/// A sink that counts what it is given and keeps nothing.
struct CountingSink: MediaSink {
    private(set) var count = 0

    mutating func write(_ sample: MediaSample) throws { count += 1 }

    func finish() throws {}
}

/// Runs one benchmark body with the shared inputs; a thrown error fails the benchmark with its text.
///
/// The body prepares what it needs, calls `benchmark.startMeasurement()` right before the 1000
/// samples, `benchmark.stopMeasurement()` right after, and returns how many samples it handled, which
/// must be ``samplesPerRun``.
func run(_ benchmark: Benchmark, _ body: (Inputs) throws -> Int) {
    do {
        let inputs = try sharedInputs.get()
        let handled = try body(inputs)
        if handled != samplesPerRun {
            benchmark.error("handled \(handled) samples in a run, not \(samplesPerRun)")
        }
    } catch {
        benchmark.error("\(error)")
    }
}
