import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `media-info` example against ffprobe (and ffmpeg's decode, for frame counts) on files that
/// ffmpeg writes in every container AudioFileStreamParser reads, and on the Apple-written files.
@Suite(.timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct MediaInfoExampleTests {
    static let mediaInfo = TestPaths.executable("media-info")

    /// `media-info --json` of `path`, as an object.
    static func info(_ path: String) throws -> [String: Any] {
        let result = try ExternalTool.run(mediaInfo, ["--json", path])
        guard result.status == 0 else { throw MediaError(.invalidData, "media-info failed: \(result.stderr)") }
        let object = try JSONSerialization.jsonObject(with: result.stdout)
        return object as? [String: Any] ?? [:]
    }

    /// ffprobe's facts about the first audio stream (`-count_packets`).
    static func probe(_ path: String) throws -> [String: Any] {
        let result = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-count_packets", "-select_streams", "a:0", "-show_streams", "-of", "json", path]
        )
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        return (object?["streams"] as? [[String: Any]])?.first ?? [:]
    }

    /// The frames ffmpeg decodes from `path` (gapless where the file says how).
    static func decodedFrames(_ path: String, channels: Int) throws -> Int {
        let result = try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-ac", "\(channels)", "-"])
        return result.stdout.count / (2 * channels)
    }

    /// A case: the ffmpeg arguments that write it, its extension, and what media-info must say.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var ffmpeg: [String]
        var fileType: String
        var formatID: String
        var bits: Int
        var float: Bool?
        var bigEndian: Bool?
        /// Whether the valid frames are what the file states rather than what decodes: ffmpeg's CAF muxer
        /// writes a `pakt` of packets × 4096 valid frames and no remainder for ALAC, whose last packet
        /// holds fewer (afinfo reports the file's number too).
        var statedFrames = false
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "wav s16", ffmpeg: ["-c:a", "pcm_s16le", "-f", "wav"], fileType: "WAVE", formatID: "lpcm", bits: 16,
            float: false, bigEndian: false),
        Case(
            name: "wav f32", ffmpeg: ["-c:a", "pcm_f32le", "-f", "wav"], fileType: "WAVE", formatID: "lpcm", bits: 32,
            float: true, bigEndian: false),
        Case(
            name: "wav u8", ffmpeg: ["-c:a", "pcm_u8", "-f", "wav"], fileType: "WAVE", formatID: "lpcm", bits: 8,
            float: false, bigEndian: false),
        Case(
            name: "wav µ-law", ffmpeg: ["-c:a", "pcm_mulaw", "-f", "wav"], fileType: "WAVE", formatID: "ulaw", bits: 8),
        Case(
            name: "aiff s24", ffmpeg: ["-c:a", "pcm_s24be", "-f", "aiff"], fileType: "AIFF", formatID: "lpcm", bits: 24,
            float: false, bigEndian: true),
        Case(
            name: "aifc sowt", ffmpeg: ["-c:a", "pcm_s16le", "-f", "aiff"], fileType: "AIFC", formatID: "lpcm",
            bits: 16, float: false, bigEndian: false),
        Case(
            name: "aifc ima4", ffmpeg: ["-c:a", "adpcm_ima_qt", "-f", "aiff"], fileType: "AIFC", formatID: "ima4",
            bits: 0),
        Case(
            name: "caf alac", ffmpeg: ["-c:a", "alac", "-f", "caf"], fileType: "CAF", formatID: "alac", bits: 0,
            statedFrames: true),
        Case(
            name: "caf f64", ffmpeg: ["-c:a", "pcm_f64be", "-f", "caf"], fileType: "CAF", formatID: "lpcm", bits: 64,
            float: true, bigEndian: true),
        Case(
            name: "au s16", ffmpeg: ["-c:a", "pcm_s16be", "-f", "au"], fileType: "NeXT", formatID: "lpcm", bits: 16,
            float: false, bigEndian: true),
        Case(name: "au a-law", ffmpeg: ["-c:a", "pcm_alaw", "-f", "au"], fileType: "NeXT", formatID: "alaw", bits: 8),
        Case(
            name: "adts", ffmpeg: ["-c:a", "aac", "-b:a", "96k", "-f", "adts"], fileType: "ADTS", formatID: "aac ",
            bits: 0),
        Case(
            name: "mp3", ffmpeg: ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3"], fileType: "MP3", formatID: ".mp3",
            bits: 0)
    ]

    @Test(arguments: cases)
    func factsAgreeWithFFprobe(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("in.\(c.name.replacingOccurrences(of: " ", with: "-"))")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=1.3", "-ac", "2"
            ] + c.ffmpeg + [path])
        let ours = try Self.info(path)
        let theirs = try Self.probe(path)
        #expect(ours["fileType"] as? String == c.fileType)
        #expect(ours["formatID"] as? String == c.formatID)
        #expect(ours["sampleRate"] as? Double == 44_100)
        #expect(ours["channels"] as? Int == theirs["channels"] as? Int)
        #expect(ours["bitsPerChannel"] as? Int == c.bits)
        #expect(ours["float"] as? Bool == c.float)
        #expect(ours["bigEndian"] as? Bool == c.bigEndian)
        let packets = ours["packets"] as? Int ?? -1
        if c.formatID == "lpcm" || c.formatID == "ulaw" || c.formatID == "alaw" {
            // One packet per frame; ffprobe counts the demuxer's blocks, so compare frames with the decode.
            #expect(packets == (try Self.decodedFrames(path, channels: 2)))
        } else {
            #expect(packets == Int(theirs["nb_read_packets"] as? String ?? "") ?? -2)
        }
        // Valid frames = what ffmpeg decodes (gapless for MP3's LAME tag; ADTS and IMA4 state nothing,
        // so every decoded frame counts).
        let decoded = try Self.decodedFrames(path, channels: 2)
        if c.statedFrames {
            #expect(ours["validFrames"] as? Int == packets * (ours["framesPerPacket"] as? Int ?? 0))
            #expect((ours["validFrames"] as? Int ?? 0) - decoded < (ours["framesPerPacket"] as? Int ?? 0))
        } else {
            #expect(ours["validFrames"] as? Int == decoded, "\(ours)")
        }
        let duration = ours["durationSeconds"] as? Double ?? 0
        #expect(abs(duration - Double(ours["validFrames"] as? Int ?? 0) / 44_100) < 1e-9)
    }

    /// An MP3 whose LAME tag claims more frames than its packets hold (issue 33: media-info printed the
    /// tag's count, 4.7× and 41× what two real files held): one cut short, one with the tag's frame
    /// count made 5× the truth. media-info reports the frames ffmpeg decodes, exactly, and its one
    /// warning line names the tag's claim.
    @Test(arguments: ["cut short", "tag claims 5x"])
    func anMP3HoldingFewerFramesThanItsTagSaysReportsWhatItHolds(kind: String) throws {
        let dir = try TemporaryDirectory()
        let whole = dir.file("whole.mp3")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=4", "-ac", "2", "-c:a",
                "libmp3lame", "-b:a", "128k", whole
            ])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: whole)))
        let tag = try #require(Self.xingFrameCountOffset(bytes), "no Xing/Info tag with a frame count")
        let stated = bytes[tag..<(tag + 4)].reduce(0) { $0 << 8 | Int($1) }
        var claimed = stated
        if kind == "cut short" {
            bytes = Array(bytes.prefix(bytes.count * 2 / 5))
        } else {
            claimed = stated * 5
            for i in 0..<4 { bytes[tag + i] = UInt8(truncatingIfNeeded: claimed >> (24 - 8 * i)) }
        }
        let path = dir.file("damaged.mp3")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try ExternalTool.run(Self.mediaInfo, ["--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
        let decoded = try Self.decodedFrames(path, channels: 2)
        #expect(info["validFrames"] as? Int == decoded, "\(info)")
        let packets = info["packets"] as? Int ?? 0
        #expect(packets < claimed, "\(packets) packets of \(claimed)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(
            warnings.first?.contains("frameCountDisagrees") == true
                && warnings.first?.contains("count \(claimed * 1152)") == true, "\(result.stderr)")
    }

    /// The offset of the frame count in the first frame's Xing or Info tag (flag bit 0 set), if any.
    static func xingFrameCountOffset(_ bytes: [UInt8]) -> Int? {
        for start in 0..<min(bytes.count - 12, 4096) {
            let name = bytes[start..<(start + 4)]
            guard name.elementsEqual("Xing".utf8) || name.elementsEqual("Info".utf8) else { continue }
            return bytes[start + 7] & 1 == 1 ? start + 8 : nil
        }
        return nil
    }

    @Test func theAppleWrittenAACCAFHasItsPacketTable() throws {
        let path = TestPaths.fixture("mattetti-audio_ring.caf")
        let ours = try Self.info(path)
        #expect(ours["fileType"] as? String == "CAF")
        #expect(ours["formatID"] as? String == "aac ")
        #expect(ours["packets"] as? Int == 89)
        #expect(ours["validFrames"] as? Int == 88_064)
        #expect(ours["primingFrames"] as? Int == 2112)
        #expect(ours["remainderFrames"] as? Int == 960)
        #expect(ours["cookie"] as? String == "1210")
    }

    @Test func theHLSSegmentSaysItSkippedItsTag() throws {
        let ours = try Self.info(TestPaths.fixture("shaka-player_hls-raw-aac_fileSequence0.aac"))
        #expect(ours["packets"] as? Int == 215)
        #expect(ours["dataOffset"] as? Int == 73)
        #expect((ours["diagnostics"] as? [String])?.first?.contains("ID3v2") == true)
    }

    /// The AAC in an M4A's `mdat` holds byte runs that look like confirmed MPEG audio headers: the file
    /// was once reported as MP3 garbage ("no MPEG audio frame followed by 3 more"). Containers the parser
    /// does not read are named instead, when they come on standard input (a file is described by
    /// ContainerDemuxer: `aMovieIsDescribedStreamByStream`).
    @Test(arguments: [
        ("m4a", ["-c:a", "aac"], "an MPEG-4 or QuickTime file"), ("ogg", ["-c:a", "libopus"], "an Ogg file"),
        ("flac", ["-c:a", "flac"], "a FLAC file"), ("mkv", ["-c:a", "aac"], "a Matroska or WebM file"),
        ("ts", ["-c:a", "aac"], "an MPEG-TS file")
    ])
    func aContainerItDoesNotParseIsNamed(ext: String, codec: [String], name: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.\(ext)")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2"] + codec + [path])
        let result = try ExternalTool.run(
            Self.mediaInfo, ["-"], stdin: try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("media-info: \(name), which ContainerDemuxer reads"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// A movie file (HEVC + Opus in MP4, VP9 + Opus in WebM, AV1 + FLAC in Matroska, H.264 + AAC in
    /// MPEG-TS) is described stream by stream: the codecs, sizes, rates and channel counts ffprobe reads.
    @Test(arguments: [
        ("mp4", ["-c:v", "libx265", "-x265-params", "log-level=none", "-c:a", "libopus"], "hvc1", "opus"),
        ("webm", ["-c:v", "libvpx-vp9", "-cpu-used", "8", "-c:a", "libopus"], "vp09", "opus"),
        ("mkv", ["-c:v", "libsvtav1", "-preset", "12", "-c:a", "flac"], "av01", "flac"),
        ("ts", ["-c:v", "libx264", "-c:a", "aac"], "h264", "aac")
    ])
    func aMovieIsDescribedStreamByStream(ext: String, codecs: [String], video: String, audio: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("movie.\(ext)")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=1"
            ] + codecs + [path])
        let result = try ExternalTool.run(Self.mediaInfo, [path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(streams.map { $0["codec"] as? String } == [video, audio])
        let probed = try #require(try ExternalTool.ffprobeJSON(path, ["-show_streams"])["streams"] as? [[String: Any]])
        #expect(streams.map { $0["codecName"] as? String } == probed.map { $0["codec_name"] as? String })
        #expect(streams[0]["width"] as? Int == 160 && streams[0]["height"] as? Int == 120)
        #expect(streams[0]["frameRate"] as? String == "25/1")
        #expect(streams[1]["sampleRate"] as? Int == 48_000 && streams[1]["channels"] as? Int == 1)
        let text = try ExternalTool.check(Self.mediaInfo, [path]).output
        #expect(text.contains("Stream 0:           video '\(video)'"), "\(text)")
    }

    @Test func aFileOfNoKnownTypeIsOneLineWithStatus1() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("notes.txt")
        try Data("these are not audio samples\n".utf8).write(to: URL(fileURLWithPath: path))
        let result = try ExternalTool.run(Self.mediaInfo, [path])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "media-info: not a WAVE, AIFF, AIFC, CAF, NeXT, ADTS or MP3 file: it starts with 'thes'"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        let usage = try ExternalTool.run(Self.mediaInfo, [])
        #expect(usage.status == 64)
    }
}
