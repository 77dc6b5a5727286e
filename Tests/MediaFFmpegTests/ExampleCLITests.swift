import Foundation
import MediaTestSupport
import Testing

/// Every example's command line on swift-argument-parser: `--help` generated from the declarations names
/// every flag its README documents, `--version` prints a version, a bash completion script is generated
/// and `bash -n` accepts it, and an unknown flag or a bad value is one line on standard error and exit
/// status 64 (EX_USAGE). Runs the binaries `swift build` left, as the other example tests do.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ExampleCLITests {
    /// One example's command line as its README documents it.
    struct Example: CustomTestStringConvertible, Sendable {
        /// The executable's name.
        var name: String
        /// The flags README.md documents (each example also has the shared ones, ``shared``).
        var flags: [String]
        /// Arguments with one bad value (`nil`: the example has no option taking a value, so the usage
        /// error is a missing argument instead).
        var badValue: [String]?

        var testDescription: String { name }
    }

    /// The flags every example has: generated ones and the house ones.
    static let shared = ["--help", "--version", "--licence", "--verbose", "--quiet"]

    static let examples: [Example] = [
        Example(
            name: "aac-encoder",
            flags: [
                "--output", "--input", "--tone", "--duration", "--frames", "--bitrate", "--sample-rate", "--channels",
                "--threads"
            ],
            badValue: ["--output", "x.aac", "--bitrate", "abc"]),
        Example(
            name: "audio-convert",
            flags: ["--input", "--output", "--format", "--rate", "--channels", "--bitrate", "--bits", "--float"],
            badValue: ["--input", "x.wav", "--output", "y.wav", "--rate", "abc"]),
        Example(
            name: "audio-devices", flags: ["--json", "--watch", "--server", "--timeout"], badValue: ["--timeout", "abc"]
        ),
        Example(
            name: "audio-player",
            flags: ["--device", "--volume", "--pan", "--rate", "--loops", "--start", "--render"],
            badValue: ["x.wav", "--volume", "abc"]),
        Example(
            name: "audio-recorder",
            flags: [
                "--output", "--device", "--format", "--rate", "--channels", "--bitrate", "--bits", "--duration",
                "--tone",
                "--meter", "--meter-json"
            ],
            badValue: ["--output", "x.wav", "--rate", "abc"]),
        Example(
            name: "av-encoder",
            flags: [
                "--pattern", "--video", "--size", "--fps", "--tone", "--audio", "--duration", "--bitrate", "--keyint",
                "--preset", "--audio-bitrate", "--output", "--format", "--fragmented", "--realtime", "--driver"
            ],
            badValue: ["--pattern", "--duration", "abc", "--output", "x.mp4"]),
        Example(name: "caf-info", flags: ["--json"], badValue: nil),
        Example(
            name: "caf-recorder",
            flags: ["--output", "--format", "--bitrate", "--tone", "--duration", "--frames", "--input", "--realtime"],
            badValue: ["--output", "x.caf", "--format", "abc"]),
        Example(
            name: "h264-encoder",
            flags: [
                "--output", "--pattern", "--input", "--size", "--pix-fmt", "--frames", "--duration", "--fps",
                "--bitrate",
                "--maxrate", "--bufsize", "--keyint", "--preset", "--profile", "--level", "--bframes", "--realtime",
                "--encoder", "--threads", "--aud"
            ],
            badValue: ["--output", "x.h264", "--frames", "abc"]),
        Example(
            name: "live-streamer",
            flags: [
                "--to", "--pattern", "--video", "--size", "--fps", "--tone", "--audio", "--capture", "--duration",
                "--bitrate", "--audio-bitrate", "--keyint", "--preset", "--max-latency", "--no-adaptive-bitrate",
                "--reconnect", "--record", "--hls-segment-type", "--hls-time", "--hls-list-size", "--protocol-option",
                "--stats-json"
            ],
            badValue: ["--pattern", "--to", "udp://127.0.0.1:9", "--bitrate", "abc"]),
        Example(name: "media-info", flags: ["--json"], badValue: nil),
        Example(
            name: "transcode",
            flags: [
                "--input", "--output", "--format", "--copy", "--bitrate", "--keyint", "--preset", "--audio-bitrate",
                "--fragmented"
            ],
            badValue: ["--input", "x.mp4", "--output", "y.mp4", "--bitrate", "abc"])
    ]

    /// Runs `example` with `arguments`.
    static func run(_ example: Example, _ arguments: [String]) throws -> ExternalTool.Result {
        try ExternalTool.run(TestPaths.executable(example.name), arguments)
    }

    /// The test's list covers every example folder.
    @Test func everyExampleIsListed() throws {
        let folder = TestPaths.packageRoot() + "/Examples"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0 != "Support" && !$0.hasPrefix(".")
        }
        #expect(Set(names) == Set(Self.examples.map(\.name)))
    }

    @Test(arguments: examples)
    func helpNamesEveryDocumentedFlag(example: Example) throws {
        let result = try Self.run(example, ["--help"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.output.hasPrefix("OVERVIEW: "), "\(result.output.prefix(200))")
        #expect(result.output.contains("USAGE: \(example.name)"))
        #expect(result.output.contains("Examples:\n  \(example.name)"), "\(example.name) --help shows no examples")
        // A flag is named as itself, not as the prefix of a longer one (`--meter` vs `--meter-json`).
        let words = Set(result.output.split { " ,[]<>=\n".contains($0) }.map(String.init))
        for flag in Self.shared + example.flags {
            #expect(words.contains(flag), "\(example.name) --help does not name \(flag)")
        }
    }

    @Test(arguments: examples)
    func versionPrintsAVersion(example: Example) throws {
        let result = try Self.run(example, ["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        let version = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = version.split(separator: ".")
        #expect(
            parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(example.name) --version printed '\(version)'")
    }

    @Test(arguments: examples)
    func bashCompletionScriptIsValidBash(example: Example) throws {
        let result = try Self.run(example, ["--generate-completion-script", "bash"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output.contains("complete"), "\(result.output.prefix(200))")
        #expect(result.output.contains(example.flags[0]), "the script completes \(example.flags[0])")
        let dir = try TemporaryDirectory()
        let script = dir.file("\(example.name).bash")
        try result.stdout.write(to: URL(fileURLWithPath: script))
        let check = try ExternalTool.run("bash", ["-n", script])
        #expect(check.status == 0, "bash -n: \(check.stderr)")
        for shell in ["zsh", "fish"] {
            let other = try Self.run(example, ["--generate-completion-script", shell])
            #expect(
                other.status == 0 && other.output.contains(example.name), "\(example.name) \(shell): \(other.stderr)")
        }
    }

    @Test(arguments: examples)
    func unknownFlagIsOneLineAndStatus64(example: Example) throws {
        let result = try Self.run(example, ["--frobnicate"])
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(result.status == 64, "\(example.name): \(result.stderr)")
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("\(example.name): ") == true, "\(lines)")
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: examples)
    func badValueIsOneLineAndStatus64(example: Example) throws {
        let result = try Self.run(example, example.badValue ?? [])
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(result.status == 64, "\(example.name): \(result.stderr)")
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("\(example.name): ") == true, "\(lines)")
        if example.badValue != nil { #expect(lines.first?.contains("abc") == true, "\(lines)") }
        #expect(result.stdout.isEmpty)
    }
}
