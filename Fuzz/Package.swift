// swift-tools-version:6.1
// libFuzzer targets for every parser (laid out like swift-protobuf's FuzzTesting): one executable per
// parser, each defining `LLVMFuzzerTestOneInput`, which feeds the bytes to the parser's public entry
// point the way a user calls it and ignores the `MediaError`s it throws. A package of its own, so that
// neither the library nor its users build it; `make fuzz` and `make fuzz-replay` build it with
// `swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library`.
// See Documentation/Reliability.md, "Fuzzing".
import PackageDescription

/// The targets: the folder under Sources/ is `Fuzz<name>`, its corpus `Corpus/<name>/`.
let targetNames = [
    "ADTS", "ADTSReader", "AudioSpecificConfig", "AnnexBScanner", "AnnexBAccessUnits", "H264ParameterSets",
    "AVCDecoderConfigurationRecord", "AVCC", "CAF", "WAV", "Y4M",
    "CAFStream", "WAVStream", "AIFFStream", "AUStream", "MP3Stream", "ADTSStream", "SniffedStream"
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
                .product(name: "MediaFormats", package: "MediaPipeline")
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
        + targetNames.map { name in
            .executableTarget(
                name: "Fuzz\(name)",
                dependencies: [
                    "FuzzSupport",
                    .product(name: "MediaBitstream", package: "MediaPipeline"),
                    .product(name: "MediaFormats", package: "MediaPipeline")
                ],
                swiftSettings: [.swiftLanguageMode(.v6)]
            )
        }
)
