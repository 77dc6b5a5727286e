// swift-tools-version:5.3
// libFuzzer targets for every parser (laid out like swift-protobuf's FuzzTesting): one executable per
// parser, each defining `LLVMFuzzerTestOneInput`, which feeds the bytes to the parser's public entry
// point the way a user calls it and ignores the `MediaError`s it throws. A package of its own, so that
// neither the library nor its users build it; `make fuzz` and `make fuzz-replay` build it with
// `swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library`. Tools version 5.3,
// as swift-protobuf's: from 5.5 on SwiftPM renames an executable's `main` (to `<Target>_main`), which a
// fuzzer, whose `main` is libFuzzer's, does not define; a 5.3 `.target` with a main.swift is an executable.
// See Documentation/Reliability.md, "Fuzzing".
import PackageDescription

/// The targets: the folder under Sources/ is `Fuzz<name>`, its corpus `Corpus/<name>/`.
let targetNames = [
    "ADTS", "ADTSReader", "AudioSpecificConfig", "AnnexBScanner", "AnnexBAccessUnits", "H264ParameterSets",
    "AVCDecoderConfigurationRecord", "AVCC", "CAF", "WAV", "Y4M",
    "CAFStream", "WAVStream", "AIFFStream", "AUStream", "MP3Stream", "ADTSStream", "SniffedStream",
    "AMF0", "RTMPChunks", "ContainerOpen"
]

let package = Package(
    name: "MediaPipelineFuzz",
    dependencies: [
        // The library, by path; named, as the folder it is cloned into may have any name.
        .package(name: "MediaPipeline", path: "..")
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "MediaCore", package: "MediaPipeline"),
                .product(name: "MediaBitstream", package: "MediaPipeline"),
                .product(name: "MediaFormats", package: "MediaPipeline"),
                .product(name: "MediaFFmpeg", package: "MediaPipeline")
            ]
        )
    ]
        + targetNames.map { name in
            .target(
                name: "Fuzz\(name)",
                dependencies: [
                    "FuzzSupport",
                    .product(name: "MediaBitstream", package: "MediaPipeline"),
                    .product(name: "MediaFormats", package: "MediaPipeline")
                ]
            )
        }
)
