// swift-tools-version:6.0
import PackageDescription

/// Settings every target of ours shares: Swift 6 language mode (strict concurrency) and the upcoming
/// features that keep module boundaries honest.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility")
]

/// What the test targets and their helpers add: in a release build (the sanitized builds,
/// Scripts/sanitized-build.sh, are optimised so that the library's code runs fast and as users run it), the
/// tests' own code stays unoptimised: optimising it cost more build time than it saved test time.
let testStrict: [SwiftSetting] = strict + [.unsafeFlags(["-Onone"], .when(configuration: .release))]

let package = Package(
    name: "MediaPipeline",
    products: [
        .library(name: "MediaPipeline", targets: ["MediaPipeline"]),
        .library(name: "MediaCore", targets: ["MediaCore"]),
        .library(name: "MediaBitstream", targets: ["MediaBitstream"]),
        .library(name: "MediaFormats", targets: ["MediaFormats"]),
        .library(name: "MediaStreaming", targets: ["MediaStreaming"]),
        .library(name: "MediaFFmpeg", targets: ["MediaFFmpeg"]),
        .library(name: "MediaAudio", targets: ["MediaAudio"]),
        .library(name: "MediaPulse", targets: ["MediaPulse"]),
        .library(name: "MediaDisplay", targets: ["MediaDisplay"]),
        .library(name: "MediaIngest", targets: ["MediaIngest"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` (`make docs`, `make docs-check`); a plugin only, so
        // nothing of it is linked into the library.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // Diagnostics (resynchronisation, concealment, reconnects) go to a `Logger` the user passes in.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        // The ingest server's event loops and sockets (MediaIngest only).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0")
    ],
    targets: [
        // FFmpeg's C API, found through pkg-config. Only MediaFFmpeg imports it.
        .systemLibrary(
            name: "CMediaFFmpeg",
            pkgConfig: "libavcodec libavdevice libavfilter libavformat libavutil libswresample libswscale",
            providers: [
                .apt([
                    "libavcodec-dev", "libavdevice-dev", "libavfilter-dev", "libavformat-dev", "libavutil-dev",
                    "libswresample-dev", "libswscale-dev"
                ])
            ]
        ),
        // libpulse's asynchronous C API. Only MediaPulse imports it.
        .systemLibrary(
            name: "CPulseAudio",
            // No pkgConfig: libpulse's pkg-config cflags (-D_REENTRANT -pthread) are flags SwiftPM
            // refuses with a warning on every build, and the headers are in /usr/include, the library
            // in the default path (the module map links "pulse"). `make deps` installs libpulse-dev.
            providers: [.apt(["libpulse-dev"])]
        ),
        // SDL2's video API, for MediaDisplay's preview window. Only MediaDisplay imports it. No pkgConfig, as
        // for libpulse: sdl2's cflags carry -D_REENTRANT, which SwiftPM refuses with a warning on every build.
        .systemLibrary(name: "CSDL2", providers: [.apt(["libsdl2-dev"])]),
        // libsrt's C API (the GnuTLS build Debian's FFmpeg links, so one libsrt is loaded). Only MediaIngest
        // imports it, for its SRT listener.
        .systemLibrary(name: "CSRT", pkgConfig: "srt", providers: [.apt(["libsrt-gnutls-dev"])]),
        // Pure Swift: time, samples, formats, errors, stage protocols, pipeline and graph drivers, byte I/O.
        .target(
            name: "MediaCore",
            dependencies: [
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        // Pure Swift bitstream facts both MediaFormats and MediaFFmpeg use: H.264 NAL units, AVCC and
        // Annex-B framing, the avcC record, SPS, AudioSpecificConfig, FourCC. Only MediaCore below it.
        .target(name: "MediaBitstream", dependencies: ["MediaCore"], swiftSettings: strict),
        // Pure Swift containers and byte streams: reading (the push parsers and AudioFileReader for WAV,
        // AIFF, CAF, AU, MP3 and ADTS; Annex-B H.264; Y4M) and writing (ADTS, WAV, AIFF, AU, CAF, Annex-B, Y4M),
        // and the tone and test-pattern generators.
        .target(
            name: "MediaFormats",
            dependencies: ["MediaCore", "MediaBitstream", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // Pure Swift live-streaming policy on top of MediaCore's sinks: the live queue with its sender
        // thread, reconnection, adaptive bit rate, and the network URL and HLS options a muxer is given.
        .target(
            name: "MediaStreaming",
            dependencies: [
                "MediaCore", .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        // Everything backed by FFmpeg: encoders, decoders, converters, the container muxer and demuxer
        // (whose network and HLS destinations take MediaStreaming's URL and HLS options).
        .target(
            name: "MediaFFmpeg",
            dependencies: [
                "MediaCore", "MediaBitstream", "MediaStreaming", "CMediaFFmpeg",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        // Pure-Swift audio processing on PCM samples: level metering, gain and pan, time stretching.
        .target(
            name: "MediaAudio", dependencies: ["MediaCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        // Live audio through PulseAudio (or PipeWire's PulseAudio server): connection, capture, playback.
        .target(name: "MediaPulse", dependencies: ["MediaCore", "CPulseAudio"], swiftSettings: strict),
        // Video on screen: a preview window (SDL2). Not in the umbrella, as AVKit is not in AVFoundation:
        // a program that shows no video does not load a window system's libraries.
        .target(name: "MediaDisplay", dependencies: ["MediaCore", "CSDL2"], swiftSettings: strict),
        // Servers that receive streams: the ingest server's RTMP listener, event-driven on swift-nio, whose
        // protocol parsers (chunk stream, AMF0, FLV payloads) are MediaFormats', and its SRT listener
        // (libsrt), whose MPEG-TS MediaFFmpeg's demuxer reads. Not in the umbrella, as MediaDisplay: a
        // program that serves nothing does not link NIO's event loops or libsrt.
        .target(
            name: "MediaIngest",
            dependencies: [
                "MediaCore", "MediaBitstream", "MediaFormats", "MediaFFmpeg", "CSRT",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        // Umbrella module: re-exports every library module above but MediaDisplay and MediaIngest.
        .target(
            name: "MediaPipeline",
            dependencies: [
                "MediaCore", "MediaBitstream", "MediaFormats", "MediaStreaming", "MediaFFmpeg", "MediaAudio",
                "MediaPulse"
            ],
            swiftSettings: strict
        ),

        // What the example executables share (one-line errors, argument cursor, number formatting).
        .target(
            name: "ExampleSupport",
            dependencies: [
                "MediaCore", "MediaFormats", "MediaFFmpeg", .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/Support",
            swiftSettings: strict
        ),

        // Helpers for tests: running the external tools that judge our output, fixtures, daemons, waits,
        // the drip-feed verifier every MediaFormats push parser is checked with (so it needs MediaFormats,
        // as NIOTestUtils needs NIOCore for ByteToMessageDecoderVerifier), the leak gate, which reads
        // MediaFFmpeg's count of live FFmpeg objects, and pactl's view of a daemon's devices (MediaPulse's
        // AudioDevice is what it is compared with).
        .target(
            name: "MediaTestSupport",
            dependencies: [
                "MediaCore", "MediaFormats", "MediaFFmpeg", "MediaPulse",
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: testStrict
        ),

        // The fuzz targets' bodies (`FuzzTarget`, in the Fuzz package's FuzzSupport folder), which its libFuzzer
        // executables call. Compiled here too, so that MediaFormatsTests replays the fuzz corpora through the very same
        // calls in `make test` and under AddressSanitizer, without a fuzzer build (Documentation/Reliability.md, "Fuzzing").
        .target(
            name: "MediaFuzzTargets",
            dependencies: ["MediaCore", "MediaBitstream", "MediaFormats", "MediaFFmpeg"],
            path: "Fuzz/Sources/FuzzSupport",
            swiftSettings: testStrict
        ),

        .executableTarget(
            name: "aac-encoder",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/aac-encoder",
            exclude: ["README.md"],
            swiftSettings: strict
        ),

        .executableTarget(
            name: "caf-recorder",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/caf-recorder",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "camera-recorder",
            dependencies: [
                "MediaPipeline", "MediaDisplay", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/camera-recorder",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "video-devices",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/video-devices",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "thumbnails",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/thumbnails",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "media-relay",
            dependencies: [
                "MediaPipeline", "MediaIngest", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log")
            ],
            path: "Examples/media-relay",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "caf-info",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/caf-info",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "h264-encoder",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/h264-encoder",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "av-mixer",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/av-mixer",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "av-encoder",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/av-encoder",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "audio-convert",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/audio-convert",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "media-info",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/media-info",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "media-player",
            dependencies: [
                "MediaPipeline", "MediaDisplay", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/media-player",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "audio-player",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/audio-player",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "live-streamer",
            dependencies: [
                "MediaPipeline", "MediaDisplay", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/live-streamer",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "audio-recorder",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/audio-recorder",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "transcode",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/transcode",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "audio-devices",
            dependencies: [
                "MediaPipeline", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/audio-devices",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // Muxing/parsing throughput for `make bench` (Benchmarks/compare.py runs it). Only the pure-Swift
        // modules: linking FFmpeg's ~140 shared libraries would cost ~30 ms of start-up per run.
        .executableTarget(
            name: "mux-benchmark",
            dependencies: ["MediaCore", "MediaFormats"],
            path: "Benchmarks/mux-benchmark",
            swiftSettings: strict
        ),

        // The cost of a stage hop in the drivers, beside GStreamer's `identity` (Benchmarks/compare.py).
        .executableTarget(
            name: "graph-benchmark",
            dependencies: ["MediaCore"],
            path: "Benchmarks/graph-benchmark",
            swiftSettings: strict
        ),

        // The 10,000-run open/encode/close loop of `make soak` (Documentation/Reliability.md).
        .executableTarget(
            name: "soak-loop",
            dependencies: ["MediaCore", "MediaFormats", "MediaFFmpeg"],
            path: "Benchmarks/soak-loop",
            swiftSettings: strict
        ),

        .testTarget(
            name: "MediaBitstreamTests", dependencies: ["MediaBitstream", "MediaTestSupport"], swiftSettings: testStrict
        ),
        .testTarget(
            name: "MediaCoreTests",
            dependencies: ["MediaCore", "MediaTestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: testStrict),
        .testTarget(
            name: "MediaFormatsTests",
            dependencies: [
                "MediaFormats", "MediaFuzzTargets", "MediaTestSupport", .product(name: "Logging", package: "swift-log")
            ],
            exclude: ["Fixtures"],
            swiftSettings: testStrict
        ),
        // The recorder and player on a real daemon need the umbrella too (files, decoders, stages).
        // The preview window on a private Xvfb, judged by xwd screenshots.
        .testTarget(
            name: "MediaDisplayTests", dependencies: ["MediaDisplay", "MediaTestSupport"], swiftSettings: testStrict),
        .testTarget(
            name: "MediaPulseTests", dependencies: ["MediaPulse", "MediaPipeline", "MediaTestSupport"],
            swiftSettings: testStrict),
        // The live queue, reconnection and adaptive bit rate on stand-in sinks; the suites that stream
        // through FFmpeg to real servers are in MediaFFmpegTests.
        .testTarget(
            name: "MediaStreamingTests",
            dependencies: [
                "MediaCore", "MediaStreaming", "MediaTestSupport", .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: testStrict
        ),
        // The ingest server with real publishers (the ffmpeg CLI) and raw sockets; its recordings judged by
        // ffprobe and ffmpeg.
        .testTarget(
            name: "MediaIngestTests",
            dependencies: [
                "MediaIngest", "MediaPipeline", "MediaTestSupport", .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: testStrict
        ),
        .testTarget(
            name: "MediaAudioTests", dependencies: ["MediaAudio", "MediaTestSupport"], swiftSettings: testStrict),
        .testTarget(
            name: "MediaFFmpegTests",
            dependencies: ["MediaPipeline", "MediaTestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: testStrict
        ),
        // The example executables end to end (they run the binaries the build put beside the test bundle),
        // their README code, and valgrind on them.
        .testTarget(
            name: "ExampleTests",
            dependencies: [
                "MediaPipeline", "MediaIngest", "MediaTestSupport", .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: testStrict
        )
    ]
)

// A sanitized build (Scripts/sanitized-build.sh) leaves out the test targets its run skips, named in
// MEDIAPIPELINE_OMIT_TEST_TARGETS (comma-separated, from `Scripts/test-suites.py omitted address|thread`):
// an optimised build compiles each test target as one whole-module job on one core (MediaFormatsTests alone
// took 143 s of AddressSanitizer's build), time spent on tests that ThreadSanitizer or both then skip.
if let omitted = Context.environment["MEDIAPIPELINE_OMIT_TEST_TARGETS"] {
    let names = Set(omitted.split(separator: ",").map(String.init))
    package.targets.removeAll { $0.type == .test && names.contains($0.name) }
}
