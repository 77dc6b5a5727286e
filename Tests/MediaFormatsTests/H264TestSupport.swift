import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport

/// One H.264 elementary stream made by an external encoder, with what FFmpeg's tools say about it.
struct H264Stream: Sendable {
    var name: String
    /// The Annex-B bytes.
    var bytes: [UInt8]
    /// `ffprobe -show_streams` fields: profile, level, width, height, pix_fmt, has_b_frames, nb_read_packets.
    var probe: [String: String]
    /// The `ffmpeg -bsf:v trace_headers` log.
    var trace: String
    /// The payload of the `avcC` box that `ffmpeg -c copy` writes into an MP4 made from the stream.
    var avcC: [UInt8]
}

enum H264Fixtures {
    /// The x264 streams: name and the ffmpeg arguments between the input and `-f h264`.
    static let x264Variants: [(String, [String])] = [
        ("high", []),
        ("baseline", ["-profile:v", "baseline"]),
        ("high444", ["-pix_fmt", "yuv444p"]),
        ("high422", ["-pix_fmt", "yuv422p"]),
        ("cropped", ["-vf", "crop=1278:718:0:0"]),
        (
            "bframes-hrd",
            [
                "-x264-params", "bframes=5:b-pyramid=none:keyint=10:nal-hrd=vbr", "-b:v", "2M", "-maxrate", "2500k",
                "-bufsize", "4M"
            ]
        ),
        ("interlaced", ["-x264-params", "interlaced=1"]),
        (
            "metadata",
            [
                "-bsf:v",
                "h264_metadata=aud=insert:sample_aspect_ratio=40/33:video_full_range_flag=1:colour_primaries=1:transfer_characteristics=1:matrix_coefficients=1:crop_left=8:crop_bottom=16"
            ]
        )
    ]

    /// Every stream name, x264 ones and the GStreamer OpenH264 one.
    static let allNames: [String] = x264Variants.map(\.0) + ["openh264"]

    private static let cache = LockedBox<[String: H264Stream]>([:])

    /// The stream `name`, made once per test run.
    static func stream(_ name: String) throws -> H264Stream {
        try cache.withLock { cache in
            if let stream = cache[name] { return stream }
            let stream = try make(name)
            cache[name] = stream
            return stream
        }
    }

    private static func make(_ name: String) throws -> H264Stream {
        let dir = try TemporaryDirectory()
        let path = dir.file("\(name).h264")
        if name == "openh264" {
            try ExternalTool.check(
                "gst-launch-1.0",
                [
                    "-q", "videotestsrc", "num-buffers=30", "!", "video/x-raw,width=640,height=480,framerate=30/1",
                    "!", "openh264enc", "!", "video/x-h264,stream-format=byte-stream", "!", "filesink",
                    "location=\(path)"
                ])
        } else {
            guard let extra = x264Variants.first(where: { $0.0 == name })?.1 else {
                throw H264FixtureError(description: "no fixture named \(name)")
            }
            try ExternalTool.check(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-frames:v", "30",
                    "-c:v", "libx264", "-preset", "veryfast"
                ] + extra + ["-f", "h264", path])
        }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let first = try ExternalTool.probeFirstStream(path)
        var probe: [String: String] = [:]
        for key in [
            "profile", "level", "width", "height", "pix_fmt", "has_b_frames", "nb_read_packets", "sample_aspect_ratio",
            "color_range"
        ] {
            if let value = first[key] { probe[key] = "\(value)" }
        }
        let trace = try ExternalTool.check(
            "ffmpeg",
            [
                "-nostats", "-hide_banner", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"
            ]
        ).stderr
        let mp4 = dir.file("\(name).mp4")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-y", "-i", path, "-c", "copy", mp4])
        let avcC = try extractAvcC([UInt8](try Data(contentsOf: URL(fileURLWithPath: mp4))))
        return H264Stream(name: name, bytes: bytes, probe: probe, trace: trace, avcC: avcC)
    }

    /// The payload of the first `avcC` box in an MP4 file: found by its fourcc, sized by the 32-bit
    /// size before it.
    static func extractAvcC(_ file: [UInt8]) throws -> [UInt8] {
        let fourcc: [UInt8] = Array("avcC".utf8)
        guard let index = (4..<max(4, file.count - 4)).first(where: { Array(file[$0..<$0 + 4]) == fourcc }) else {
            throw H264FixtureError(description: "no avcC box in the MP4")
        }
        let size = file[index - 4..<index].reduce(0) { $0 << 8 | Int($1) }
        guard size >= 8, index - 4 + size <= file.count else {
            throw H264FixtureError(description: "avcC box size \(size) is impossible")
        }
        return Array(file[index + 4..<index - 4 + size])
    }
}

/// One field line of the trace_headers log: `[trace_headers @ 0x...] 170  max_num_reorder_frames  011 = 2`.
struct TraceField: Equatable {
    var name: String
    var value: Int64
}

extension H264Stream {
    /// The fields the trace_headers log prints, in order, split into the extradata part and the packets part.
    var traceFields: (extradata: [TraceField], packets: [TraceField]) {
        var extradata: [TraceField] = []
        var packets: [TraceField] = []
        var inPackets = false
        for line in trace.split(separator: "\n") where line.hasPrefix("[trace_headers") {
            guard let close = line.firstIndex(of: "]") else { continue }
            let rest = line[line.index(after: close)...]
            if rest.contains("Packet:") { inPackets = true; continue }
            let tokens = rest.split(separator: " ")
            guard tokens.count == 5, tokens[3] == "=", Int(tokens[0]) != nil, let value = Int64(tokens[4]) else {
                continue
            }
            let field = TraceField(name: String(tokens[1]), value: value)
            if inPackets { packets.append(field) } else { extradata.append(field) }
        }
        return (extradata, packets)
    }

    /// The fields of the first SPS in the trace (from its `nal_unit_type` 7 to the next NAL unit).
    var traceFirstSPS: [String: Int64] {
        let all = traceFields.extradata + traceFields.packets
        guard let start = all.firstIndex(where: { $0.name == "nal_unit_type" && $0.value == 7 }) else { return [:] }
        var fields: [String: Int64] = [:]
        for field in all[(start + 1)...] {
            if field.name == "nal_unit_type" { break }
            if fields[field.name] == nil { fields[field.name] = field.value }
        }
        return fields
    }

    /// How many NAL units of each type the trace shows in the packets.
    var traceNALTypeCounts: [UInt8: Int] {
        var counts: [UInt8: Int] = [:]
        for field in traceFields.packets where field.name == "nal_unit_type" {
            counts[UInt8(field.value), default: 0] += 1
        }
        return counts
    }

    /// The NAL units of the stream grouped into access units (ITU-T H.264 7.4.1.2.3): a new one starts
    /// at an AUD, SPS, PPS or SEI after a VCL NAL unit, or at a slice with `first_mb_in_slice` 0.
    func accessUnits() throws -> [[AnnexBScanner.NALUnit]] {
        var units: [[AnnexBScanner.NALUnit]] = []
        var current: [AnnexBScanner.NALUnit] = []
        var sawVCL = false
        for nal in try AnnexBScanner.split(bytes) {
            let type = nal.header.nalUnitType
            let firstMbIsZero = nal.bytes.count > 1 && nal.bytes[1] & 0x80 != 0
            let startsNew =
                sawVCL && ([.accessUnitDelimiter, .sps, .pps, .sei].contains(type) || (type.isVCL && firstMbIsZero))
            if startsNew {
                units.append(current)
                current = []
                sawVCL = false
            }
            current.append(nal)
            if type.isVCL { sawVCL = true }
        }
        if !current.isEmpty { units.append(current) }
        return units
    }

    /// The first NAL unit of `type` in the stream.
    func firstNAL(_ type: H264NALUnitType) throws -> AnnexBScanner.NALUnit? {
        try AnnexBScanner.split(bytes).first { $0.header.nalUnitType == type }
    }
}

/// A fixture could not be made.
struct H264FixtureError: Error, CustomStringConvertible {
    var description: String
}
