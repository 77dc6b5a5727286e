import Foundation
import MediaTestSupport
import Testing

/// aac-encoder and caf-recorder end a run on a damaged input with one warning line that sums up what the
/// reader worked around (the individual warnings come first, as they happen); `--quiet` silences both.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ExampleWarningCountTests {
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

    /// One valid ADTS header followed by 4 KB of noise is not remuxed as a packet with exit 0 and no
    /// warning. Alone it is no stream: one error line, exit 1. Before a real stream: skipped, one warning.
    @Test func cafRecorderRefusesOrSkipsALoneADTSHeaderInNoise() throws {
        let dir = try TemporaryDirectory()
        var state: UInt32 = 7
        let noise = (0..<4096).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16) & 0x7F  // never 0xFF: no sync word of its own
        }
        // An AAC LC 48 kHz stereo header declaring a 303-byte frame, then the noise.
        let garbage: [UInt8] = [0xFF, 0xF1, 0x4C, 0x80, 0x25, 0xFF, 0xFC] + noise
        let alone = dir.file("alone.aac")
        try Data(garbage).write(to: URL(fileURLWithPath: alone))
        let run = try ExternalTool.run(
            TestPaths.executable("caf-recorder"), ["--input", alone, "--output", dir.file("alone.caf")])
        let errors = run.stderr.split(separator: "\n")
        #expect(run.status == 1, "\(run.stderr)")
        // The reader's warning as it skips the bytes, then the error: no frame in them.
        #expect(errors.count == 2 && errors.first?.contains("code=trailingBytesSkipped, count=4103") == true)
        #expect(errors.last?.contains("no ADTS sync word found in 4103 bytes") == true, "\(run.stderr)")

        let clean = dir.file("clean.aac")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=1", "-c:a", "aac", "-f", "adts", clean]
        )
        let prefixed = dir.file("prefixed.aac")
        try (Data(garbage) + Data(contentsOf: URL(fileURLWithPath: clean))).write(to: URL(fileURLWithPath: prefixed))
        let lines = try Self.lines("caf-recorder", ["--input", prefixed, "--output", dir.file("prefixed.caf")])
        let summary = "caf-recorder: warning: \(prefixed): resynchronised 1 time, skipped \(garbage.count) bytes"
        #expect(lines.filter { $0.hasPrefix(summary) }.count == 1, "\(lines)")
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
