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
