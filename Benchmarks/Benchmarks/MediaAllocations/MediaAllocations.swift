import Benchmark

/// Allocations per sample of every parser, muxer and stage: `make bench-check` compares them with
/// the checked-in thresholds (Thresholds/), `make bench-thresholds` rewrites those.
///
/// Only `mallocCountTotal` is measured: it is deterministic (the same count on every run and machine
/// with the same toolchain and FFmpeg; H264Decoder's frame threads aside, which get some slack), so one
/// warm-up and two measured runs suffice, and a near-strict threshold can gate CI: every benchmark
/// may differ from its checked-in count by at most 4 mallocs per run of 1000 samples, so that one extra
/// malloc per sample (+1000) fails, while the once-per-stream allocations that were seen to vary by one
/// between runs (Y4MParser: 26 or 27) do not fail the build either way.
/// (`memoryLeaked` would need the jemalloc backend: the malloc interposer does not produce it.)
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.mallocCountTotal],
        warmupIterations: 1,
        scalingFactor: .kilo,
        maxDuration: .seconds(30),
        maxIterations: 2,
        thresholds: [.mallocCountTotal: BenchmarkThresholds(absolute: [.p90: 4])]
    )
    parserBenchmarks()
    muxerBenchmarks()
    stageBenchmarks()
    fanInBenchmarks()
}
