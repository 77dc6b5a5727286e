import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// audio-convert, transcode, h264-encoder, av-encoder, live-streamer and media-info end a run on a damaged input with ONE summary
/// warning line that counts what the readers skipped and the decoders concealed, after the
/// individual warnings; an intact input gives none, `--quiet` gives nothing.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ExampleInputWarningTests {
    /// The status and standard error lines of `example` run with `arguments`.
    static func run(_ example: String, _ arguments: [String]) throws -> (status: Int32, lines: [String]) {
        let result = try ExternalTool.run(TestPaths.executable(example), arguments)
        return (result.status, result.stderr.split(separator: "\n").map(String.init))
    }

    /// The summary lines (`<example>: warning: <path>: worked around …`) among `lines`.
    static func summaries(_ example: String, _ path: String, in lines: [String]) -> [String] {
        lines.filter { $0.hasPrefix("\(example): warning: \(path): worked around ") }
    }

    /// An ADTS stream from ffmpeg with 100 zero bytes between two of its frames.
    static func adtsWithAGap(in dir: TemporaryDirectory) throws -> String {
        let clean = dir.file("clean.aac")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=1", "-c:a", "aac", "-f", "adts", clean]
        )
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: clean)))
        var frameStarts: [Int] = []
        var offset = 0
        while offset + 7 <= bytes.count {
            frameStarts.append(offset)
            let length = Int(bytes[offset + 3] & 3) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5]) >> 5
            guard length > 0 else { break }
            offset += length
        }
        bytes.insert(contentsOf: [UInt8](repeating: 0, count: 100), at: frameStarts[frameStarts.count / 2])
        let path = dir.file("gap.aac")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A 0.2-s stereo WAV from sox, and the same cut after 4,000 of its frames (its header still
    /// declaring them all).
    static func wavAndItsCut(in dir: TemporaryDirectory) throws -> (good: String, cut: String) {
        let good = dir.file("good.wav")
        try ExternalTool.check("sox", ["-n", "-b", "16", "-c", "2", "-r", "48000", good, "synth", "0.2", "sine", "440"])
        let cut = dir.file("cut.wav")
        try Data(contentsOf: URL(fileURLWithPath: good)).prefix(44 + 4 * 4000).write(to: URL(fileURLWithPath: cut))
        return (good, cut)
    }

    /// h264-encoder's 48-frame pattern with its first IDR slice relabelled non-IDR: the decoder conceals one
    /// frame and gets none from 15 access units (as ffmpeg decodes the same bytes).
    static func h264WithoutItsFirstIDR(in dir: TemporaryDirectory) throws -> String {
        let intact = dir.file("intact.h264")
        let made = try Self.run(
            "h264-encoder",
            [
                "--quiet", "--pattern", "--size", "320x240", "--frames", "48", "--keyint", "16", "--preset",
                "veryfast", "--output", intact
            ])
        try #require(made.status == 0, "\(made.lines)")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: intact)))
        let firstIDR = try #require(try AnnexBScanner.split(bytes).first { $0.header.nalUnitType == .idr })
        bytes[Int(firstIDR.offset)] = 0x41  // nal_ref_idc 2, nal_unit_type 1
        let path = dir.file("damaged.h264")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func audioConvertCountsTheBytesSkipped() throws {
        let dir = try TemporaryDirectory()
        let gap = try Self.adtsWithAGap(in: dir)
        let loud = try Self.run("audio-convert", ["--input", gap, "--output", dir.file("out.wav")])
        #expect(loud.status == 0, "\(loud.lines)")
        #expect(
            Self.summaries("audio-convert", gap, in: loud.lines)
                == ["audio-convert: warning: \(gap): worked around 1 problem (resynchronized ×1 count 100)"],
            "\(loud.lines)")
        #expect(loud.lines.last?.hasPrefix("audio-convert: warning: \(gap)") == true, "the summary comes last")
        let quiet = try Self.run("audio-convert", ["--quiet", "--input", gap, "--output", dir.file("q.wav")])
        #expect(quiet.status == 0 && quiet.lines.isEmpty, "\(quiet.lines)")
        let clean = dir.file("clean.aac")
        let intact = try Self.run("audio-convert", ["--input", clean, "--output", dir.file("clean.wav")])
        #expect(intact.status == 0 && !intact.lines.contains { $0.contains("warning") }, "\(intact.lines)")
    }

    /// media-info lists each diagnostic as a note in its report (standard output) and sums the warnings up
    /// in one line on standard error; an intact file gives none.
    @Test func mediaInfoCountsTheBytesSkipped() throws {
        let dir = try TemporaryDirectory()
        let gap = try Self.adtsWithAGap(in: dir)
        let result = try ExternalTool.run(TestPaths.executable("media-info"), [gap])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output.contains("Note:               Skipped 100 bytes"), "\(result.output)")
        #expect(
            result.stderr == "media-info: warning: \(gap): worked around 1 problem (resynchronized ×1 count 100)\n",
            "\(result.stderr)")
        let intact = try ExternalTool.run(TestPaths.executable("media-info"), [dir.file("clean.aac")])
        #expect(intact.status == 0 && intact.stderr.isEmpty, "\(intact.stderr)")
    }

    @Test func transcodeAndH264EncoderCountTheFramesTheDecoderConcealedOrMissed() throws {
        let dir = try TemporaryDirectory()
        let damaged = try Self.h264WithoutItsFirstIDR(in: dir)
        // framesMissing always; framesConcealed (one frame) depends on the decoder's threads, so not asserted.
        for (example, arguments) in [
            ("transcode", ["--input", damaged, "--output", dir.file("out.y4m")]),
            ("h264-encoder", ["--input", damaged, "--preset", "veryfast", "--output", dir.file("out.h264")])
        ] {
            let run = try Self.run(example, arguments)
            #expect(run.status == 0, "\(example): \(run.lines)")
            let summaries = Self.summaries(example, damaged, in: run.lines)
            #expect(summaries.count == 1, "\(example): \(run.lines)")
            #expect(summaries.first?.contains("framesMissing ×1 count 15") == true, "\(example): \(run.lines)")
            #expect(run.lines.last == summaries.first, "\(example): the summary comes last")
        }

        // Bytes before the first start code: the reader's count.
        let intact = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file("intact.h264"))))
        let junk = dir.file("junk.h264")
        try Data(Array("junk".utf8) + intact).write(to: URL(fileURLWithPath: junk))
        let skipped = try Self.run(
            "h264-encoder", ["--input", junk, "--preset", "veryfast", "--output", dir.file("junk-out.h264")])
        #expect(
            Self.summaries("h264-encoder", junk, in: skipped.lines)
                == ["h264-encoder: warning: \(junk): worked around 1 problem (leadingBytesSkipped ×1 count 4)"],
            "\(skipped.lines)")
    }

    @Test func avEncoderCountsWhatAWAVCutShortNeeded() throws {
        let dir = try TemporaryDirectory()
        let (good, cut) = try Self.wavAndItsCut(in: dir)
        let run = try Self.run("av-encoder", ["--audio", cut, "--output", dir.file("out.m4a")])
        #expect(run.status == 0, "\(run.lines)")
        #expect(
            Self.summaries("av-encoder", cut, in: run.lines)
                == ["av-encoder: warning: \(cut): worked around 1 problem (dataBeyondEndOfFile ×1)"], "\(run.lines)")
        let intact = try Self.run("av-encoder", ["--audio", good, "--output", dir.file("good.m4a")])
        #expect(intact.status == 0 && !intact.lines.contains { $0.contains("warning") }, "\(intact.lines)")
    }

    /// live-streamer paces its file inputs (RealTimeSource, TimeLimit): the WAV reader behind them still
    /// reports to the run, so a WAV cut short gives the one summary line, as in av-encoder.
    @Test func liveStreamerCountsWhatAWAVCutShortNeeded() throws {
        let dir = try TemporaryDirectory()
        let (good, cut) = try Self.wavAndItsCut(in: dir)
        let arguments = ["--to", dir.file("live.m3u8"), "--hls-list-size", "0", "--duration", "1"]
        let run = try Self.run("live-streamer", ["--audio", cut] + arguments)
        #expect(run.status == 0, "\(run.lines)")
        #expect(
            Self.summaries("live-streamer", cut, in: run.lines)
                == ["live-streamer: warning: \(cut): worked around 1 problem (dataBeyondEndOfFile ×1)"], "\(run.lines)")
        let intact = try Self.run(
            "live-streamer", ["--audio", good, "--to", dir.file("good.m3u8"), "--hls-list-size", "0"])
        #expect(intact.status == 0 && !intact.lines.contains { $0.contains("warning") }, "\(intact.lines)")
    }
}
