import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// What the AIFF and AU muxer tests share: raw PCM made by ffmpeg, our file and ffmpeg's of the same
/// PCM, and what sndfile-info, soxi and ffprobe read from a file.
enum PCMMuxerTest {
    /// One comparison: PCM of `c` written by us (through `mux`) and by `ffmpeg -c:a codec -f container`.
    struct Pair {
        var raw: [UInt8]
        var ours: String
        var reference: String
    }

    /// Writes `c`'s PCM (ffmpeg noise, in 300-frame samples) through the muxer `make` returns, and the same
    /// PCM through `ffmpeg -fflags +bitexact -map_metadata -1 -c:a codec -f container`.
    static func pair(
        _ c: WAVMuxerTests.Case, codec: String, container: String, in dir: TemporaryDirectory,
        _ make: (any MediaOutput) -> any MediaSink
    ) throws -> Pair {
        let (rawPath, raw, ours) = try muxOurs(c, container: container, in: dir, make)
        let reference = dir.file("ffmpeg.\(container)")
        try WAVTest.ffmpeg(referenceArguments(c, rawPath: rawPath, codec: codec, container: container) + [reference])
        return Pair(raw: raw, ours: ours, reference: reference)
    }

    /// Writes `c`'s PCM (ffmpeg noise, in 300-frame samples) through the muxer `make` returns, to
    /// `ours.<container>`.
    static func muxOurs(
        _ c: WAVMuxerTests.Case, container: String, in dir: TemporaryDirectory,
        _ make: (any MediaOutput) -> any MediaSink
    ) throws -> (rawPath: String, raw: [UInt8], ours: String) {
        let (rawPath, raw) = try WAVMuxerTests.rawPCM(c, in: dir)
        let format = AudioFormat.pcm(PCMFormat(c.type), sampleRate: c.rate, channelLayout: c.layout)
        let ours = dir.file("ours.\(container)")
        var muxer = make(try FileOutput(path: ours))
        for sample in WAVMuxerTests.samples(raw, format: format) { try muxer.write(sample) }
        try muxer.finish()
        return (rawPath, raw, ours)
    }

    /// ffmpeg's arguments (before the output) to write `rawPath`, PCM of `c`, with `codec` as `container`.
    static func referenceArguments(_ c: WAVMuxerTests.Case, rawPath: String, codec: String, container: String)
        -> [String]
    {
        [
            "-f", WAVTest.rawFormat(c.type), "-ar", String(c.rate), "-ch_layout", c.ffmpegLayout, "-i", rawPath,
            "-c:a", codec, "-fflags", "+bitexact", "-map_metadata", "-1", "-f", container
        ]
    }

    /// `ffmpeg -xerror -i path -f rawFormat -`: the file decoded, failing on any damage ffmpeg notices.
    static func strictDecode(_ path: String, _ rawFormat: String) throws -> [UInt8] {
        [UInt8](
            try ExternalTool.check("ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", path, "-f", rawFormat, "-"])
                .stdout)
    }

    /// The facts sndfile-info prints: sample rate, frames, channels.
    static func sndfileFacts(_ path: String) throws -> (rate: String, frames: String, channels: String, format: String)
    {
        let info = try ExternalTool.check("sndfile-info", [path]).output
        func field(_ name: String) -> String {
            let line = info.split(separator: "\n").last { $0.hasPrefix(name) } ?? ""
            return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
        return (field("Sample Rate"), field("Frames"), field("Channels"), field("Format"))
    }

    /// What `soxi` reads: rate, channels, frames (its "samples"), bits per sample and encoding (from
    /// "Sample Encoding: 16-bit Signed Integer PCM").
    static func soxFacts(_ path: String) throws -> (
        rate: String, channels: String, frames: String, bits: String, encoding: String
    ) {
        let info = try ExternalTool.check("soxi", [path]).output
        func field(_ name: String) -> String {
            let line = info.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
            return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
        // "00:00:00.02 = 1001 samples = 1.70238 CDDA sectors" (or "~ 1.5625 CDDA sectors")
        let duration = field("Duration").split(separator: " ")
        let frames = duration.count > 2 ? String(duration[2]) : ""
        // "16-bit Signed Integer PCM"
        let encoding = field("Sample Encoding")
        let bits = encoding.split(separator: "-", maxSplits: 1).first.map(String.init) ?? ""
        let name = encoding.split(separator: " ", maxSplits: 1).last.map(String.init) ?? ""
        return (field("Sample Rate"), field("Channels"), frames, bits, name)
    }

    /// Where two byte strings first differ (`nil` when equal), to report on a file-sized comparison
    /// without printing both files.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String? {
        guard a != b else { return nil }
        let index = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        let show = { (x: [UInt8]) in
            x[index..<min(x.count, index + 8)].map { String($0, radix: 16) }.joined(separator: " ")
        }
        return "\(a.count) and \(b.count) bytes, first difference at \(index): [\(show(a))] vs [\(show(b))]"
    }

    /// The big-endian 32-bit value at `offset`.
    static func be32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
