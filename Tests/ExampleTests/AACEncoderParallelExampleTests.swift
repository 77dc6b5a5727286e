import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `aac-encoder --parallel` (and its default) end to end: ffprobe, ffmpeg and GStreamer judge the
/// files, in ADTS, CAF and M4A.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AACEncoderParallelExampleTests {
    let encoder = TestPaths.executable("aac-encoder")
    /// 70 s at 48 kHz: 3282 packets, above the 3072 from which `--parallel` is on by itself.
    static let frames = 70 * 48_000
    static let packets = (frames + 1024 + 1023) / 1024

    func run(_ arguments: [String]) throws -> (status: Int32, lines: [String]) {
        let result = try ExternalTool.run(encoder, arguments)
        return (result.status, result.stderr.split(separator: "\n").map(String.init))
    }

    static func makeInput(_ dir: TemporaryDirectory) throws -> String {
        try AudioFixture.noisyTwoTones(dir, seconds: 70)
    }

    /// On by itself above the threshold with two CPUs: two segments, one valid ADTS stream of the serial
    /// encode's packet count that ffmpeg -xerror and GStreamer decode to the same length.
    @Test func aLongWAVIsEncodedInParallelByDefault() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.makeInput(dir)
        let out = dir.file("out.aac")
        let result = try run(["--input", input, "--output", out])
        #expect(result.status == 0, "\(result.lines)")
        let summary = result.lines.last ?? ""
        #expect(summary.contains("\(Self.frames) frames in, \(Self.packets) packets out"), "\(summary)")
        if ParallelAACEncoder.availableThreads >= 2 {
            #expect(summary.contains("2 segments on 2 threads"), "\(summary)")
        }
        #expect(try ExternalTool.probeFirstStream(out)["nb_read_packets"] as? String == "\(Self.packets)")
        #expect(RawAudio.floats(try ExternalTool.decode(out)).count == Self.packets * 1024 * 2)
        let gst = try ExternalTool.run(
            "gst-launch-1.0", ["-q", "filesrc", "location=\(out)", "!", "aacparse", "!", "avdec_aac", "!", "fakesink"])
        #expect(gst.status == 0, "\(gst.stderr)")
    }

    /// `--no-parallel` keeps the serial encode, byte-identical to the ffmpeg CLI's.
    @Test func noParallelIsTheCLIsBytes() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.makeInput(dir)
        let ours = dir.file("ours.aac")
        let theirs = dir.file("cli.aac")
        let result = try run(["--input", input, "--output", ours, "--no-parallel"])
        #expect(result.status == 0)
        #expect(result.lines.last?.contains("segment") == false, "\(result.lines)")
        try ExternalTool.check(
            "ffmpeg", ["-nostdin", "-v", "error", "-i", input, "-c:a", "aac", "-b:a", "128k", "-f", "adts", theirs])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: ours)) == (try Data(contentsOf: URL(fileURLWithPath: theirs))))
    }

    /// The output's extension picks the container: CAF and M4A with the priming and remainder of N frames.
    @Test func parallelCAFAndM4AAreGapless() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.makeInput(dir)
        let remainder = Self.packets * 1024 - 1024 - Self.frames
        let caf = dir.file("out.caf")
        #expect(try run(["--input", input, "--output", caf, "--parallel", "--quiet"]).status == 0)
        let table = try #require(try CAFReader(path: caf).packetTable)
        #expect(table.primingFrames == 1024 && table.remainderFrames == Int32(remainder))
        #expect(table.numberValidFrames == Int64(Self.frames))
        #expect(try ExternalTool.probeFirstStream(caf)["codec_name"] as? String == "aac")

        let m4a = dir.file("out.m4a")
        #expect(try run(["--input", input, "--output", m4a, "--parallel", "--quiet"]).status == 0)
        let info = try ISOBMFF.gaplessInfo([UInt8](try Data(contentsOf: URL(fileURLWithPath: m4a))))
        #expect(info.mediaTime == 1024 && info.segmentDuration * 48_000 / info.movieTimescale == Self.frames)
        #expect(RawAudio.floats(try ExternalTool.decode(m4a)).count == (Self.frames + remainder) * 2)
    }

    @Test func parallelNeedsAWAVFileAndNoConversion() throws {
        let tone = try run(["--tone", "440", "--output", "/dev/null", "--parallel"])
        #expect(tone.status != 0)
        #expect(tone.lines.contains { $0.contains("--parallel needs a WAV file as --input") }, "\(tone.lines)")
        let dir = try TemporaryDirectory()
        let input = try AudioFixture.noisyTwoTones(dir, seconds: 1)
        let resample = try run(["--input", input, "--output", "/dev/null", "--parallel", "--sample-rate", "44100"])
        #expect(resample.status != 0)
        #expect(resample.lines.contains { $0.contains("drop --sample-rate and --channels") }, "\(resample.lines)")
    }
}
