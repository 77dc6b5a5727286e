import Foundation
import MediaTestSupport
import Testing

/// aac-encoder and caf-recorder end a run on a damaged input with one warning line that sums up what the
/// reader worked around (the individual warnings come first, as they happen); `--quiet` silences both.
@Suite struct ExampleWarningCountTests {
    /// The stderr lines of `example` run with `arguments`, after checking it exited 0.
    static func lines(_ example: String, _ arguments: [String]) throws -> [String] {
        let result = try ExternalTool.run(TestPaths.executable(example), arguments)
        #expect(result.status == 0, "\(example): \(result.stderr)")
        return result.stderr.split(separator: "\n").map(String.init)
    }

    @Test func cafRecorderCountsTheBytesSkippedInADTS() throws {
        let dir = try TemporaryDirectory()
        let clean = dir.file("clean.aac")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=1", "-c:a", "aac", "-f", "adts", clean]
        )
        var bytes = try Data(contentsOf: URL(fileURLWithPath: clean))
        bytes.insert(contentsOf: Data(repeating: 0, count: 100), at: bytes.count / 2)
        let damaged = dir.file("damaged.aac")
        try bytes.write(to: URL(fileURLWithPath: damaged))

        let lines = try Self.lines("caf-recorder", ["--input", damaged, "--output", dir.file("out.caf")])
        let counts = lines.filter { $0.hasPrefix("caf-recorder: warning: \(damaged): resynchronised ") }
        #expect(counts.count == 1, "\(lines)")
        let line = try #require(counts.first)
        let skipped = line.split(separator: ",").first { $0.contains("skipped") }
        let number = skipped.flatMap { $0.split(separator: " ").compactMap { Int($0) }.first }
        #expect((number ?? 0) >= 100, "\(line)")
        #expect(!line.contains(" 1 bytes") && !line.contains(" 1 times"), "\(line)")
        #expect(lines.contains { $0.contains("code=resynchronized") }, "the warning itself comes first: \(lines)")

        let quiet = try Self.lines("caf-recorder", ["--input", damaged, "--output", dir.file("quiet.caf"), "--quiet"])
        #expect(quiet.isEmpty, "\(quiet)")

        let intact = try Self.lines("caf-recorder", ["--input", clean, "--output", dir.file("clean.caf")])
        #expect(!intact.contains { $0.contains("warning") }, "\(intact)")
    }

    @Test func aacEncoderCountsWhatAWAVCutShortNeeded() throws {
        let dir = try TemporaryDirectory()
        let good = dir.file("good.wav")
        try ExternalTool.check("sox", ["-n", "-b", "16", "-c", "2", "-r", "48000", good, "synth", "1", "sine", "440"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let cut = dir.file("cut.wav")
        try bytes.prefix(44 + 4 * 1000 + 2).write(to: URL(fileURLWithPath: cut))

        let lines = try Self.lines("aac-encoder", ["--input", cut, "--output", dir.file("cut.aac")])
        #expect(
            lines.last == "aac-encoder: warning: \(cut): worked around 2 problems "
                + "(data beyond end of file, partial frame dropped); read 1000 frames",
            "\(lines)")
        let verbose = try Self.lines("aac-encoder", ["--input", cut, "--output", dir.file("v.aac"), "--verbose"])
        #expect(verbose.count == lines.count, "warnings are printed either way: \(verbose)")
        let quiet = try Self.lines("aac-encoder", ["--input", cut, "--output", dir.file("q.aac"), "-q"])
        #expect(quiet.isEmpty, "\(quiet)")
    }
}
