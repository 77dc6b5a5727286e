import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Encoded packets from the real encoders (tone → AACEncoder, test pattern → H264Encoder), made once per
/// test process, and helpers to mux them and read what came out.
enum MuxFixtures {
    /// 10 s of 320×240 pattern at 30 fps as H.264 (veryfast, 1.5 Mb/s, keyframe every 30 frames).
    static let video: [MediaSample] = (try? encodeVideo(frames: 300)) ?? []
    /// 10 s of a 440 Hz tone, 48 kHz stereo, as AAC 128 kb/s.
    static let audio: [MediaSample] = (try? encodeAudio(frames: 480_000)) ?? []

    static func encodeVideo(frames: Int64, width: Int = 320, height: Int = 240) throws -> [MediaSample] {
        var settings = H264Encoder.Settings()
        settings.preset = "veryfast"
        settings.averageBitRate = 1_500_000
        settings.maxKeyFrameInterval = 30
        let encoder = try H264Encoder(settings: settings)
        var source = try TestPatternGenerator(
            width: width, height: height, frameRate: FrameRate(30), length: .frames(frames))
        var out: [MediaSample] = []
        while let frame = try source.next() { try encoder.process(frame) { out.append($0) } }
        try encoder.finish { out.append($0) }
        return out
    }

    static func encodeAudio(frames: Int64, sampleRate: Int = 48_000) throws -> [MediaSample] {
        let encoder = try AACEncoder(bitRate: 128_000)
        var source = try ToneGenerator(
            .sine(frequency: 440, amplitude: 0.5), sampleRate: sampleRate, channels: 2, length: .frames(frames))
        var out: [MediaSample] = []
        while let sample = try source.next() { try encoder.process(sample) { out.append($0) } }
        try encoder.finish { out.append($0) }
        return out
    }

    /// The two lists merged by decode time (video first on ties), each sample with its track index.
    static func interleave(_ tracks: [[MediaSample]]) -> [(sample: MediaSample, track: Int)] {
        var next = Array(repeating: 0, count: tracks.count)
        var out: [(MediaSample, Int)] = []
        while true {
            var best: Int?
            for t in tracks.indices where next[t] < tracks[t].count {
                if let b = best {
                    if tracks[t][next[t]].timing.effectiveDecodeTime < tracks[b][next[b]].timing.effectiveDecodeTime {
                        best = t
                    }
                } else {
                    best = t
                }
            }
            guard let t = best else { return out }
            out.append((tracks[t][next[t]], t))
            next[t] += 1
        }
    }

    /// Muxes `tracks` (each a list of packets in decode order) through `muxer`.
    static func mux(_ muxer: ContainerMuxer, _ tracks: [[MediaSample]]) throws {
        try muxer.begin(tracks: tracks.map { $0.first?.format })
        for (sample, track) in interleave(tracks) { try muxer.write(sample, track: track) }
        try muxer.finish()
    }

    /// The top-level boxes of an MP4: type, offset and size.
    static func topLevelBoxes(_ bytes: [UInt8]) -> [(type: String, offset: Int, size: Int)] {
        var out: [(String, Int, Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if size == 1, offset + 16 <= bytes.count {
                size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
            }
            if size == 0 { size = bytes.count - offset }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            out.append((type, offset, size))
            guard size >= 8 else { break }
            offset += size
        }
        return out
    }

    /// The payload of the first box found by following `path` (e.g. `["moov", "trak", "edts", "elst"]`)
    /// from the top level, entering container boxes.
    static func findBox(_ bytes: [UInt8], path: [String], from start: Int = 0, to end: Int? = nil) -> ArraySlice<UInt8>?
    {
        let end = end ?? bytes.count
        var offset = start
        while offset + 8 <= end {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= end else { return nil }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if type == path[0] {
                if path.count == 1 { return bytes[offset + 8..<offset + size] }
                let inner = type == "meta" ? offset + 12 : offset + 8
                if let found = findBox(bytes, path: Array(path.dropFirst()), from: inner, to: offset + size) {
                    return found
                }
            }
            offset += size
        }
        return nil
    }

    static func uint32(_ bytes: ArraySlice<UInt8>, _ at: Int) -> Int {
        let base = bytes.startIndex + at
        return bytes[base..<base + 4].reduce(0) { $0 << 8 | Int($1) }
    }

    static func uint64(_ bytes: ArraySlice<UInt8>, _ at: Int) -> Int {
        let base = bytes.startIndex + at
        return bytes[base..<base + 8].reduce(0) { $0 << 8 | Int($1) }
    }

    /// ffprobe's streams with packets counted.
    static func streams(_ path: String) throws -> [[String: Any]] {
        let json = try ExternalTool.ffprobeJSON(path, ["-count_packets", "-show_streams"])
        return try #require(json["streams"] as? [[String: Any]])
    }

    /// `ffmpeg -v error -xerror -i path -f null -`: exit status and what it printed.
    static func strictDecode(_ path: String) throws -> ExternalTool.Result {
        try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
    }

    /// Frames of the first video stream ffmpeg decodes (tolerating errors unless `strict`).
    static func decodedVideoFrames(_ path: String, strict: Bool = false) throws -> Int {
        let run = try ExternalTool.run(
            "ffmpeg",
            ["-v", "error"] + (strict ? ["-xerror"] : []) + ["-i", path, "-map", "0:v:0", "-f", "framemd5", "-"])
        if strict { #expect(run.status == 0, "ffmpeg -xerror failed on \(path): \(run.stderr)") }
        return run.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    }
}
