import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `audio-convert` prints the library's warnings on standard error in the house style, one line each,
/// through ExampleSupport's log handler: by default, and not with `--quiet`.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioConvertWarningTests {
    static let convert = TestPaths.executable("audio-convert")

    /// A 16-bit mono 8 kHz WAV of 0.1 s (1600 data bytes from byte offset 44) made by sox, cut to 800 data bytes.
    static func cutWAV(in dir: TemporaryDirectory) throws -> String {
        let whole = dir.file("whole.wav")
        try ExternalTool.check("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", whole, "synth", "0.1", "sine", "440"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try #require(bytes.count == 44 + 1600)
        let cut = dir.file("cut.wav")
        try bytes.prefix(44 + 800).write(to: URL(fileURLWithPath: cut))
        return cut
    }

    @Test func aWAVCutShortPrintsOneWarningLineAndNothingWithQuiet() throws {
        let dir = try TemporaryDirectory()
        let cut = try Self.cutWAV(in: dir)

        let loud = try ExternalTool.run(Self.convert, ["--input", cut, "--output", dir.file("out.wav")])
        #expect(loud.status == 0, "\(loud.stderr)")
        let warnings = loud.stderr.split(separator: "\n").filter { $0.hasPrefix("audio-convert: warning: ") }
        // The warning as it happens, then the run's one summary line with the counts.
        #expect(warnings.count == 2, "\(loud.stderr)")
        #expect(
            warnings.last == "audio-convert: warning: \(cut): worked around 1 problem (dataTruncated ×1 count 1600)",
            "\(loud.stderr)")
        #expect(
            warnings.first?.hasSuffix("(byteOffset=44, code=dataTruncated, count=1600, stage=AudioFileReader)") == true,
            "\(loud.stderr)")
        #expect(warnings.first?.contains("declares 1600 bytes but the file ends after 800") == true, "\(loud.stderr)")
        // The output holds the 400 frames that are there (ffprobe, not our reader, counts them).
        let samples = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "stream=duration_ts", "-of", "csv=p=0", dir.file("out.wav")]
        ).output
        #expect(samples.trimmingCharacters(in: .whitespacesAndNewlines) == "400")

        let quiet = try ExternalTool.run(Self.convert, ["--quiet", "--input", cut, "--output", dir.file("quiet.wav")])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test func verboseIsInTheHelp() throws {
        let help = try ExternalTool.run(Self.convert, ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--verbose"))
    }
}
