import Foundation
import MediaTestSupport
import Testing

/// The Swift code in the READMEs is the text of a slice of a program in `Snippets/`, which `swift build`
/// compiles: every ```swift block of README.md and Examples/*/README.md is marked with the slice it
/// shows (`<!-- snippet: File/slice -->`, invisible on GitHub) or as not compiled (the lines for a
/// user's Package.swift), and must equal that slice. Then each snippet program runs in a folder of
/// inputs made by the ffmpeg CLI, and ffprobe and ffmpeg judge what it wrote.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ReadmeExampleTests {
    static let root = TestPaths.packageRoot()

    /// README.md and every Examples/*/README.md.
    static func readmes() throws -> [String] {
        let examples = try FileManager.default.contentsOfDirectory(atPath: root + "/Examples").sorted()
            .map { "Examples/\($0)/README.md" }
            .filter { FileManager.default.fileExists(atPath: root + "/" + $0) }
        return ["README.md"] + examples
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// `lines` without the leading white space they all share.
    static func dedented(_ lines: [String]) -> [String] {
        let indents = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }
        let common = indents.min() ?? 0
        return lines.map { $0.count >= common ? String($0.dropFirst(common)) : $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The lines between `// snippet.<name>` and `// snippet.end` of `Snippets/<file>.swift`, dedented.
    static func slice(_ name: String, of file: String) throws -> [String] {
        let all = try lines("Snippets/\(file).swift")
        let start = try #require(all.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "// snippet.\(name)" })
        let end = try #require(all[start...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == "// snippet.end" })
        return dedented(Array(all[(start + 1)..<end]))
    }

    @Test func everySwiftBlockIsTheSliceItNames() throws {
        var shown: Set<String> = []
        for readme in try Self.readmes() {
            let all = try Self.lines(readme)
            for (index, line) in all.enumerated() where line.hasPrefix("```swift") {
                let marker = index > 0 ? all[index - 1] : ""
                let end = try #require(all[(index + 1)...].firstIndex { $0.hasPrefix("```") }, "\(readme):\(index + 1)")
                let block = Array(all[(index + 1)..<end])
                if marker.hasPrefix("<!-- not compiled: ") { continue }
                guard marker.hasPrefix("<!-- snippet: "), marker.hasSuffix(" -->") else {
                    Issue.record("\(readme):\(index + 1): a ```swift block without a snippet marker above it")
                    continue
                }
                let name = marker.dropFirst("<!-- snippet: ".count).dropLast(" -->".count)
                let parts = name.split(separator: "/").map(String.init)
                try #require(parts.count == 2, "\(readme):\(index): \(marker)")
                #expect(block == (try Self.slice(parts[1], of: parts[0])), "\(readme):\(index + 1) is not \(name)")
                shown.insert(parts[0])
            }
        }
        // Each snippet program made for a README is shown in one.
        let readmeSnippets = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Snippets")
            .filter { $0.hasSuffix("Readme.swift") }.map { String($0.dropLast(".swift".count)) }
        #expect(Set(readmeSnippets) == shown)
    }

    /// Runs the snippet program `name` in `dir`; returns its standard output.
    static func run(_ name: String, in dir: TemporaryDirectory) throws -> String {
        let result = try ExternalTool.run("env", ["-C", dir.path, TestPaths.executable(name)])
        #expect(result.status == 0, "\(name): \(result.stderr)")
        return result.output
    }

    static func makeWAV(_ path: String, seconds: Int) throws {
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=\(seconds)", "-ac", "2", path])
    }

    static func codecs(_ path: String) throws -> Set<String> {
        let json = try ExternalTool.ffprobeJSON(path, ["-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        return Set(streams.compactMap { $0["codec_name"] as? String })
    }

    static func expectStrictDecode(_ path: String) throws {
        let decode = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(path): \(decode.stderr)")
    }

    @Test func readmeRuns() throws {
        let dir = try TemporaryDirectory()
        try Self.makeWAV(dir.file("in.wav"), seconds: 1)
        let output = try Self.run("Readme", in: dir)
        #expect(output.contains("48000 frames in, 48 packets out"), "\(output)")
        #expect(try ExternalTool.probeFirstStream(dir.file("out.aac"))["nb_read_packets"] as? String == "48")
        // 10,000 frames by hand: 10 packets and the encoder's delay; then finish again is refused.
        #expect(output.contains("11 packets by hand; then: "), "\(output)")
        #expect(output.contains("AACEncoder"), "\(output)")
        for file in ["show.mp4", "show.ts"] {
            #expect(try Self.codecs(dir.file(file)) == ["h264", "aac"])
            try Self.expectStrictDecode(dir.file(file))
        }
    }

    @Test func aacEncoderReadmeRuns() throws {
        let dir = try TemporaryDirectory()
        try Self.makeWAV(dir.file("in.wav"), seconds: 1)
        try Self.makeWAV(dir.file("long.wav"), seconds: 5)
        _ = try Self.run("AACEncoderReadme", in: dir)
        let stream = try ExternalTool.probeFirstStream(dir.file("out.aac"))
        #expect(stream["sample_rate"] as? String == "44100")
        #expect(stream["channels"] as? Int == 1)
        let packetCount: Int = (44_100 + 1024 + 1023) / 1024
        #expect(stream["nb_read_packets"] as? String == "\(packetCount)")
        let long = try ExternalTool.probeFirstStream(dir.file("long.caf"))
        #expect(long["codec_name"] as? String == "aac")
        #expect(abs((Double(long["duration"] as? String ?? "") ?? 0) - 5) < 0.05, "\(long)")
        try Self.expectStrictDecode(dir.file("long.caf"))
    }

    @Test func avEncoderReadmeRuns() throws {
        let dir = try TemporaryDirectory()
        _ = try Self.run("AVEncoderReadme", in: dir)
        for file in ["out.mp4", "out.ts"] {
            #expect(try Self.codecs(dir.file(file)) == ["h264", "aac"])
            try Self.expectStrictDecode(dir.file(file))
        }
    }

    @Test func cafRecorderReadmeRuns() throws {
        let dir = try TemporaryDirectory()
        try Self.makeWAV(dir.file("in.wav"), seconds: 1)
        let output = try Self.run("CAFRecorderReadme", in: dir)
        #expect(output.contains("48000 frames in, 48 packets out"), "\(output)")
        #expect(try ExternalTool.probeFirstStream(dir.file("rec.caf"))["codec_name"] as? String == "aac")
        try Self.expectStrictDecode(dir.file("rec.caf"))
    }

    @Test func h264EncoderReadmeRunsAndDecodesAsTheCLIDoes() throws {
        let dir = try TemporaryDirectory()
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "40", "-pix_fmt",
                "yuv420p", "-f", "yuv4mpegpipe", dir.file("in.y4m")
            ])
        let output = try Self.run("H264EncoderReadme", in: dir)
        #expect(output.contains("40 frames in, 40 access units out"), "\(output)")
        #expect(!output.contains("damaged"), "\(output)")
        let stream = try ExternalTool.probeFirstStream(dir.file("out.h264"))
        #expect(stream["width"] as? Int == 320)
        #expect(stream["codec_name"] as? String == "h264")
        let cli = try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", dir.file("out.h264"), "-f", "yuv4mpegpipe", "-"]
        ).stdout
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("decoded.y4m"))) == cli)
    }
}
