import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `--licence` on every example (every folder of Examples/ but Support): exit 0, the report on
/// standard output with the effective licence line, nothing on standard error, no other option
/// needed; `--licence --json` is JSON. (That `--help` names the flag is ExampleCLITests' check.)
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct LicenceExampleTests {
    static let examples: [String] = {
        let folder = TestPaths.packageRoot() + "/Examples"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0 != "Support" && !$0.hasPrefix(".") }.sorted()
    }()

    @Test func everyExampleIsFound() {
        #expect(Self.examples.count >= 12)
        #expect(Self.examples.contains("h264-encoder"))
    }

    @Test(arguments: examples)
    func licencePrintsTheReport(example: String) throws {
        let result = try ExternalTool.run(TestPaths.executable(example), ["--licence"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains(FFmpegLicenceReport().effectiveLicenceLine))
        #expect(lines.contains { $0.hasPrefix("  encoder libx264: GPL-2.0-or-later") })
        #expect(result.output.contains("MediaPipeline: Apache-2.0"))
    }

    @Test(arguments: examples)
    func licenceJSONParses(example: String) throws {
        let result = try ExternalTool.run(TestPaths.executable(example), ["--licence", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(object?["binaryLicence"] as? String == FFmpegLicenceReport().binaryLicence)
    }

    /// The README's Licence section shows the report as this build gives it.
    @Test func readmeShowsThisReport() throws {
        let readme = try String(contentsOfFile: TestPaths.packageRoot() + "/README.md", encoding: .utf8)
        let section = try #require(readme.range(of: "## Licence\n")).upperBound
        let lines = readme[section...].split(separator: "\n").map(String.init)
        #expect(lines.contains(FFmpegLicenceReport().effectiveLicenceLine))
        #expect(lines.contains("$ media-info --licence"))
    }

    /// After `--`, `--licence` is an operand, not the flag.
    @Test func licenceAfterDoubleDashIsNotTheFlag() throws {
        let result = try ExternalTool.run(TestPaths.executable("media-info"), ["--", "--licence"])
        #expect(result.status != 0)
        #expect(!result.output.contains("Effective licence"))
    }
}
