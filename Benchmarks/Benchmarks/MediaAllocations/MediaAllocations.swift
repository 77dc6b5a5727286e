import Benchmark

/// Allocations per sample of every parser, muxer and stage: `make bench-check` compares them with
/// the checked-in thresholds (Thresholds/), `make bench-thresholds` rewrites those.
///
/// Only `mallocCountTotal` is measured: it is deterministic (the same count on every run and machine
/// with the same toolchain and FFmpeg; H264Decoder's frame threads aside, which get some slack), so one
/// warm-up and two measured runs suffice, and a strict threshold (any extra malloc fails) can gate CI.
/// (`memoryLeaked` would need the jemalloc backend: the malloc interposer does not produce it.)
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.mallocCountTotal],
        warmupIterations: 1,
        scalingFactor: .kilo,
        maxDuration: .seconds(30),
        maxIterations: 2
    )
    parserBenchmarks()
    muxerBenchmarks()
    stageBenchmarks()
}
