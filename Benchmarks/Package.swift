// swift-tools-version:6.1
// Allocation benchmarks (ordo-one/benchmark, laid out as swift-nio's Benchmarks/ package): mallocs per
// sample of every parser, muxer and stage, checked against Thresholds/ by `make bench-check`. A package
// of its own, so that neither the library nor its users build the benchmark tool. See README.md.
import PackageDescription

let package = Package(
    name: "MediaPipelineBenchmarks",
    dependencies: [
        // The library, by path; named, as the folder it is cloned into may have any name.
        .package(name: "MediaPipeline", path: ".."),
        // The malloc interposer counts allocations without jemalloc.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"])
    ],
    targets: [
        .executableTarget(
            name: "MediaAllocations",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                // The modules measured; not the umbrella, so that MediaPulse is not built.
                .product(name: "MediaCore", package: "MediaPipeline"),
                .product(name: "MediaAudio", package: "MediaPipeline"),
                .product(name: "MediaFormats", package: "MediaPipeline"),
                .product(name: "MediaFFmpeg", package: "MediaPipeline")
            ],
            path: "Benchmarks/MediaAllocations",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
