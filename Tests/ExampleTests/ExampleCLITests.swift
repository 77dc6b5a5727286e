import Foundation
import MediaTestSupport
import Testing

/// Every example's command line on swift-argument-parser: `--help` generated from the declarations names
/// every flag its README (Examples/<name>/README.md, read by the test) mentions, and the README mentions
/// every option `--help` lists, `--version` prints a version, a bash completion script is generated
/// and `bash -n` accepts it, and an unknown flag or a bad value is one line on standard error and exit
/// status 64 (EX_USAGE). Runs the binaries `swift build` left, as the other example tests do.
@Suite(.timeLimit(.minutes(10))) struct ExampleCLITests {
    /// One example's command line, whose flags its README documents.
    struct Example: CustomTestStringConvertible, Sendable {
        /// The executable's name.
        var name: String
        /// Arguments with one bad value (`nil`: the example has no option taking a value, so the usage
        /// error is a missing argument instead).
        var badValue: [String]?

        var testDescription: String { name }
    }

    /// The flags every example has: generated ones and the house ones.
    static let shared = ["--help", "--version", "--licence", "--verbose", "--quiet"]

    /// Flags a README names that are not options `--help` lists: the unknown flag its usage-error example
    /// shows, and argument-parser's completion command.
    static let notOptions: Set<String> = ["--frobnicate", "--generate-completion-script"]

    /// Every `--flag` Examples/`name`/README.md mentions (option tables, command lines, prose), in order
    /// of first mention, less ``notOptions``.
    static func documentedFlags(_ name: String) throws -> [String] {
        let readme = try String(
            contentsOfFile: TestPaths.packageRoot() + "/Examples/\(name)/README.md", encoding: .utf8)
        var flags: [String] = []
        let flagCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        for word in readme.split(whereSeparator: { !flagCharacters.contains($0) }) {
            guard word.hasPrefix("--"), word.dropFirst(2).first?.isLetter == true else { continue }
            let flag = String(word)
            if !flags.contains(flag) && !notOptions.contains(flag) { flags.append(flag) }
        }
        return flags
    }

    /// The words of `--help`'s output, split so that a flag is itself, not part of a longer one
    /// (`--meter` vs `--meter-json`, `--parallel/--no-parallel`).
    static func words(_ help: String) -> Set<String> {
        Set(help.split { " ,[]<>=/\n".contains($0) }.map(String.init))
    }

    static let examples: [Example] = [
        Example(
            name: "aac-encoder",
            badValue: ["--output", "x.aac", "--bitrate", "abc"]),
        Example(
            name: "audio-convert",
            badValue: ["--input", "x.wav", "--output", "y.wav", "--rate", "abc"]),
        Example(
            name: "audio-devices", badValue: ["--timeout", "abc"]
        ),
        Example(
            name: "audio-player",
            badValue: ["x.wav", "--volume", "abc"]),
        Example(
            name: "audio-recorder",
            badValue: ["--output", "x.wav", "--rate", "abc"]),
        Example(
            name: "av-mixer",
            badValue: ["--audio", "tone:440", "--duration", "abc", "--output", "x.wav"]),
        Example(
            name: "av-encoder",
            badValue: ["--pattern", "--duration", "abc", "--output", "x.mp4"]),
        Example(
            name: "camera-recorder",
            badValue: ["--screen", ":0", "--output", "x.mp4", "--fps", "abc"]),
        Example(name: "caf-info", badValue: nil),
        Example(
            name: "caf-recorder",
            badValue: ["--output", "x.caf", "--format", "abc"]),
        Example(
            name: "h264-encoder",
            badValue: ["--output", "x.h264", "--frames", "abc"]),
        Example(
            name: "live-streamer",
            badValue: ["--pattern", "--to", "udp://127.0.0.1:9", "--bitrate", "abc"]),
        Example(name: "media-info", badValue: nil),
        Example(
            name: "media-relay",
            badValue: ["--rtmp-listen", "127.0.0.1:0", "--record", "rec", "--segment-duration", "abc"]),
        Example(
            name: "media-player",
            badValue: ["movie.mp4", "--rate", "abc"]),
        Example(
            name: "thumbnails",
            badValue: ["movie.mp4", "--at", "abc", "--output", "x.png"]),
        Example(name: "video-devices", badValue: ["--json", "abc"]),
        Example(
            name: "transcode",
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

    /// `--help` names every flag the README mentions (and the shared ones, `--licence` among them), and
    /// the README mentions every option `--help` lists: one run of `--help` for both ways.
    @Test(arguments: examples)
    func helpAndReadmeNameTheSameFlags(example: Example) throws {
        let result = try Self.run(example, ["--help"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.output.hasPrefix("OVERVIEW: "), "\(result.output.prefix(200))")
        #expect(result.output.contains("USAGE: \(example.name)"))
        #expect(result.output.contains("Examples:\n  \(example.name)"), "\(example.name) --help shows no examples")
        // A flag is named as itself, not as the prefix of a longer one (`--meter` vs `--meter-json`).
        let words = Self.words(result.output)
        let documented = try Self.documentedFlags(example.name)
        #expect(!documented.isEmpty, "Examples/\(example.name)/README.md mentions no flag")
        for flag in Self.shared + documented {
            #expect(words.contains(flag), "\(example.name) --help does not name \(flag), which its README mentions")
        }
        // The other way round: every option `--help` lists (but the shared ones) is in the README. The
        // options' own lines, indented by two (`  -q, --quiet    Print …`, `  --parallel/--no-parallel`;
        // a description's continuation lines are indented further): the part before the description,
        // which starts after two spaces or more.
        var options: Set<String> = []
        for line in result.output.split(separator: "\n") where line.hasPrefix("  -") {
            guard let names = line.dropFirst(2).components(separatedBy: "  ").first else { continue }
            options.formUnion(Self.words(names).filter { $0.hasPrefix("--") && $0.count > 2 })
        }
        #expect(!options.isEmpty, "\(result.output.prefix(200))")
        // A default is stated once: swift-argument-parser appends `(default: X)` to an option that has an
        // initial value, so its description does not say it too ("(default 0). (default: 0.0)").
        let flat = result.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let twice = flat.range(of: #"\(default [^)]*\)\.? \(default: [^)]*\)"#, options: .regularExpression)
        #expect(twice == nil, "\(example.name) --help states a default twice: \(twice.map { flat[$0] } ?? "")")
        for option in options.subtracting(Self.shared).sorted() {
            #expect(documented.contains(option), "Examples/\(example.name)/README.md does not mention \(option)")
        }
    }

    /// A negative value after its option (`--pan -1`, `--loops -1`, as the READMEs write them) is the
    /// option's value, not a flag: parsing passes, and the run fails later, on the missing file or the
    /// missing PulseAudio server (exit 1; a usage error would be 64, "Missing value for '--pan <P>'").
    @Test(arguments: [
        ["audio-player", "missing.wav", "--pan", "-1", "--loops", "-1", "--render", "out.wav"],
        ["media-player", "missing.mp4", "--loops", "-1", "--no-display"]
    ])
    func negativeValuesAreTheirOptionsValues(command: [String]) throws {
        let dir = try TemporaryDirectory()
        let result = try ExternalTool.run(
            TestPaths.executable(command[0]), command.dropFirst().map { $0.contains(".") ? dir.file($0) : $0 })
        #expect(result.status == 1, "\(command[0]): \(result.stderr)")
        #expect(!result.stderr.contains("Missing value"), "\(command[0]): \(result.stderr)")
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
        let first = try #require(try Self.documentedFlags(example.name).first)
        #expect(result.output.contains(first), "the script completes \(first)")
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
