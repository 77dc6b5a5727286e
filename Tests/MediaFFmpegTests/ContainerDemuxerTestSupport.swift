import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Inputs for the ContainerDemuxer tests, made at test time by the ffmpeg CLI and GStreamer, and what
/// ffprobe says about them.
enum DemuxerFixture {
    /// The ffmpeg-made kinds: 3 s of a 440 Hz sine (AAC, or the container's usual audio codec) and 3 s
    /// of testsrc2 320x240 at 25 fps (H.264) where the container takes video.
    static let ffmpegKinds = ["mp4", "mov", "mkv", "ts", "flv", "m4a", "mp3", "aiff", "wav", "h264", "aac"]
    /// The GStreamer-made kinds.
    static let gstreamerKinds = ["gst-audio.mp4", "gst-video.mp4"]

    /// Makes the file of `kind` in `dir`; returns its path.
    static func make(_ kind: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file(kind.contains(".") ? kind : "in." + kind)
        let sine = ["-f", "lavfi", "-i", "sine=frequency=440:duration=3"]
        let video = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25"]
        switch kind {
        case "mp4", "mov", "mkv", "ts", "flv":
            try GeneratedFixture.ffmpeg(
                ["-v", "error", "-y"] + sine + video + ["-t", "3", "-c:a", "aac", "-c:v", "libx264", path])
        case "m4a", "aac":
            try GeneratedFixture.ffmpeg(["-v", "error", "-y"] + sine + ["-c:a", "aac", path])
        case "h264":
            try GeneratedFixture.ffmpeg(["-v", "error", "-y"] + video + ["-t", "3", "-c:v", "libx264", path])
        case "mp3", "aiff", "wav":
            try GeneratedFixture.ffmpeg(["-v", "error", "-y"] + sine + [path])
        case "gst-audio.mp4":
            try ExternalTool.check(
                "gst-launch-1.0",
                [
                    "-q", "audiotestsrc", "num-buffers=100", "!", "audioconvert", "!", "avenc_aac", "!", "mp4mux", "!",
                    "filesink", "location=\(path)"
                ])
        case "gst-video.mp4":
            // This machine's GStreamer has no x264enc (plugins-ugly); openh264enc is its H.264 encoder.
            try ExternalTool.check(
                "gst-launch-1.0",
                [
                    "-q", "videotestsrc", "num-buffers=50", "!", "openh264enc", "!", "h264parse", "!", "mp4mux", "!",
                    "filesink", "location=\(path)"
                ])
        default:
            throw FixtureError(description: "no fixture kind \(kind)")
        }
        return path
    }

    struct FixtureError: Error, CustomStringConvertible { var description: String }

    /// One packet as `ffprobe -show_packets` prints it.
    struct ProbedPacket: Equatable, CustomStringConvertible {
        var pts: Int64?
        var dts: Int64?
        var size: Int
        var isKey: Bool
        var description: String {
            "pts \(pts.map(String.init) ?? "N/A") dts \(dts.map(String.init) ?? "N/A") size \(size)"
        }
    }

    /// One stream as `ffprobe -count_packets -show_streams` prints it.
    struct ProbedStream {
        var index: Int
        var codecName: String
        var codecType: String
        var packetCount: Int
        var timeBase: (num: Int64, den: Int64)
        var profile: String?
        var sampleRate: Int?
        var channels: Int?
        var width: Int?
        var height: Int?
    }

    static func probeStreams(_ path: String) throws -> [ProbedStream] {
        let json = try ExternalTool.ffprobeJSON(path, ["-count_packets", "-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        return try streams.map { s in
            let tb = try #require(s["time_base"] as? String).split(separator: "/").compactMap { Int64($0) }
            return ProbedStream(
                // ffprobe prints "unknown" without a codec descriptor
                index: try #require(s["index"] as? Int), codecName: s["codec_name"] as? String ?? "unknown",
                codecType: try #require(s["codec_type"] as? String),
                packetCount: Int(s["nb_read_packets"] as? String ?? "") ?? -1,
                timeBase: (tb.first ?? 0, tb.last ?? 0), profile: s["profile"] as? String,
                sampleRate: Int(s["sample_rate"] as? String ?? ""), channels: s["channels"] as? Int,
                width: s["width"] as? Int, height: s["height"] as? Int)
        }
    }

    /// Every packet, by stream index.
    static func probePackets(_ path: String) throws -> [Int: [ProbedPacket]] {
        let json = try ExternalTool.ffprobeJSON(path, ["-show_entries", "packet=stream_index,pts,dts,size,flags"])
        let packets = try #require(json["packets"] as? [[String: Any]])
        var result: [Int: [ProbedPacket]] = [:]
        for p in packets {
            let index = try #require(p["stream_index"] as? Int)
            result[index, default: []].append(
                ProbedPacket(
                    pts: (p["pts"] as? NSNumber)?.int64Value, dts: (p["dts"] as? NSNumber)?.int64Value,
                    size: Int(p["size"] as? String ?? "") ?? -1, isKey: (p["flags"] as? String)?.hasPrefix("K") == true)
            )
        }
        return result
    }

    /// Reads every stream that has a format to its end, through one source per stream (the first
    /// stream's source reads the whole file, queueing the others' packets).
    static func readAll(_ demuxer: ContainerDemuxer) throws -> [Int: [MediaSample]] {
        let sources = try demuxer.streams.filter { $0.format != nil }.map { try demuxer.source(stream: $0.index) }
        var result: [Int: [MediaSample]] = [:]
        for source in sources {
            var samples: [MediaSample] = []
            while let sample = try source.next() { samples.append(sample) }
            result[source.stream.index] = samples
        }
        return result
    }

    /// `time` as a count of ticks of `timeBase`, when it is a whole number of them.
    static func ticks(_ time: MediaTime, _ timeBase: (num: Int64, den: Int64)) -> Int64? {
        guard time.isNumeric else { return nil }
        let numerator = Int128(time.value) * Int128(timeBase.den)
        let denominator = Int128(time.timescale) * Int128(timeBase.num)
        guard denominator != 0, numerator % denominator == 0 else { return nil }
        return Int64(exactly: numerator / denominator)
    }

    /// The profile name ffprobe prints for an H.264 `profile_idc`.
    static func h264ProfileName(_ idc: Int) -> String {
        switch idc {
        case 66: return "Constrained Baseline"  // ffprobe's name when constraint_set1 is set (x264, openh264)
        case 77: return "Main"
        case 100: return "High"
        default: return "profile \(idc)"
        }
    }
}
