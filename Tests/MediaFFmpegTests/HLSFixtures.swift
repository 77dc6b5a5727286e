import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// For ``HLSOutputTests``: the 320x240 pattern at 25 fps through H264Encoder and a 48 kHz mono tone
/// through AACEncoder (made once per process, not paced), muxed to a playlist, and readers of what the
/// folder then holds: the playlist's lines, the segment files, ffprobe's and GStreamer's view.
enum HLSFixtures {
    static let fps = 25

    /// 6 s with a keyframe every 2 s (GOPs the length of the default target).
    static let short: (video: [MediaSample], audio: [MediaSample]) = (
        (try? video(seconds: 6, keyint: 50)) ?? [], (try? audio(seconds: 6)) ?? []
    )
    /// 15 s with a keyframe every second, for a live window of 1-s segments.
    static let long: (video: [MediaSample], audio: [MediaSample]) = (
        (try? video(seconds: 15, keyint: 25)) ?? [], (try? audio(seconds: 15)) ?? []
    )

    static func video(seconds: Int, keyint: Int) throws -> [MediaSample] {
        var settings = H264Encoder.Settings()
        settings.preset = "veryfast"
        settings.averageBitRate = 400_000
        settings.maxKeyFrameInterval = keyint
        let encoder = try H264Encoder(settings: settings)
        var source = try TestPatternGenerator(
            width: 320, height: 240, frameRate: FrameRate(Int32(fps)), length: .frames(Int64(seconds * fps)))
        var out: [MediaSample] = []
        while let frame = try source.next() { try encoder.process(frame) { out.append($0) } }
        try encoder.finish { out.append($0) }
        return out
    }

    static func audio(seconds: Int) throws -> [MediaSample] {
        let encoder = try AACEncoder(bitRate: 64_000)
        var source = try ToneGenerator(
            .sine(frequency: 440, amplitude: 0.5), channels: 1, length: .frames(Int64(seconds * 48_000)))
        var out: [MediaSample] = []
        while let sample = try source.next() { try encoder.process(sample) { out.append($0) } }
        try encoder.finish { out.append($0) }
        return out
    }

    /// Muxes `tracks` into `muxer` in decode order, calling `afterKeyframe` after each video keyframe.
    static func mux(_ muxer: ContainerMuxer, _ tracks: [[MediaSample]], afterKeyframe: () throws -> Void = {}) throws {
        try muxer.begin(tracks: tracks.map { $0.first?.format })
        for (sample, track) in MuxFixtures.interleave(tracks) {
            try muxer.write(sample, track: track)
            if sample.format.video != nil, sample.flags.contains(.keyframe) { try afterKeyframe() }
        }
        try muxer.finish()
    }

    /// What a playlist says.
    struct Playlist {
        var lines: [String] = []
        var mediaSequence = 0
        /// Each segment's URI and `#EXTINF` duration.
        var segments: [(uri: String, duration: Double)] = []
        var isEnded: Bool { lines.contains("#EXT-X-ENDLIST") }
    }

    static func playlist(_ path: String) throws -> Playlist {
        var playlist = Playlist()
        playlist.lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        var pending: Double?
        for line in playlist.lines {
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                playlist.mediaSequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) ?? -1
            } else if line.hasPrefix("#EXTINF:") {
                pending = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
            } else if !line.hasPrefix("#"), !line.isEmpty, let duration = pending {
                playlist.segments.append((line, duration))
                pending = nil
            }
        }
        return playlist
    }

    /// The media segment files in `folder` (`.ts`, `.m4s`), sorted by name.
    static func segmentFiles(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasSuffix(".ts") || $0.hasSuffix(".m4s")
        }.sorted()
    }

    /// The summed sizes of the files in `folder` that are not playlists.
    static func segmentBytes(_ folder: String) throws -> Int64 {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".m3u8") }.reduce(Int64(0)) {
            sum, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)
            return sum + ((attributes[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    /// What GStreamer's discoverer says of `file://path`, and whether it went through `hlsdemux`.
    struct Discovered {
        var output: String
        var usedHLSDemux: Bool
        var duration: Double?
    }

    static func discover(_ path: String) throws -> Discovered {
        let result = try ExternalTool.run(
            "timeout",
            [
                "30", "env", "GST_DEBUG=GST_ELEMENT_FACTORY:5", "GST_DEBUG_NO_COLOR=1", "gst-discoverer-1.0",
                "file://" + path
            ])
        let output = result.output
        // "Duration: 0:00:06.000000000"
        let duration = output.split(separator: "\n").first { $0.contains("Duration:") }.flatMap { line -> Double? in
            let parts = line.split(separator: " ").last?.split(separator: ":").compactMap { Double($0) } ?? []
            return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
        }
        return Discovered(
            output: output, usedHLSDemux: result.stderr.contains("created element \"hlsdemux"), duration: duration)
    }

    /// ffprobe's decoded frames per stream type of `path` (`-count_frames`).
    static func countFrames(_ path: String) throws -> (video: Int?, audio: Int?) {
        let json = try ExternalTool.ffprobeJSON(path, ["-count_frames", "-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        var counts: (video: Int?, audio: Int?) = (nil, nil)
        for stream in streams {
            let frames = Int(stream["nb_read_frames"] as? String ?? "")
            switch stream["codec_type"] as? String {
            case "video": counts.video = frames
            case "audio": counts.audio = frames
            default: break
            }
        }
        return counts
    }
}
