import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `SegmentedRecorder` on a 10-s file (H.264 with a keyframe every second, and AAC) remuxed from a
/// ContainerDemuxer: the segments, judged by ffprobe and `ffmpeg -xerror`, hold every packet once, start
/// with a keyframe, last what was asked and join without a gap; the index and the playlist say so; the
/// retention deletes the oldest.
@Suite(.timeLimit(.minutes(2)), .ffmpegLeakGate) struct SegmentedRecorderTests {
    static func record(
        _ input: String, into directory: String, options: SegmentedRecorder.Options
    ) throws -> [SegmentedRecorder.Segment] {
        var graph = MediaGraph()
        let video = graph.addBranch("video", source: try ContainerDemuxer.streamSource(path: input, stream: 0))
        let audio = graph.addBranch("audio", source: try ContainerDemuxer.streamSource(path: input, stream: 1))
        let events = LockedBox<[SegmentedRecorder.Segment]>([])
        let recorder = try SegmentedRecorder(directory: directory, options: options) { segment in
            events.withLock { $0.append(segment) }
        }
        graph.addSink(recorder, tracks: [video, audio])
        try graph.runThreaded()
        return events.value
    }

    /// `pts_time,flags` of every packet of `specifier` in `path`.
    static func packets(_ path: String, _ specifier: String) throws -> [(time: Double, key: Bool)] {
        try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-select_streams", specifier, "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0",
                path
            ]
        ).output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard let time = fields.first.flatMap({ Double($0) }) else { return nil }
            return (time, fields.dropFirst().first?.contains("K") ?? false)
        }
    }

    @Test(arguments: ["ts", "mp4", "mkv"]) func segmentsHoldEveryPacketOnceAndJoinWithoutAGap(_ kind: String) throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 10)
        var options = SegmentedRecorder.Options()
        options.segmentDuration = .seconds(2)
        options.format = ["ts": .mpegTS, "mp4": .mp4, "mkv": .matroska][kind] ?? .mpegTS
        let folder = dir.file("rec")
        let segments = try Self.record(input, into: folder, options: options)
        #expect(segments.count == 5, "\(segments)")
        let sentVideo = try Self.packets(input, "v:0")
        let sentAudio = try Self.packets(input, "a:0")
        var video: [(time: Double, key: Bool)] = []
        var audioCount = 0
        for segment in segments {
            let path = folder + "/" + segment.file
            #expect(segment.file.hasSuffix("." + kind))
            let packets = try Self.packets(path, "v:0")
            #expect(packets.first?.key == true, "\(segment.file) does not start with a keyframe")
            #expect(abs((segment.duration.seconds ?? 0) - 2) < 0.001, "\(segment.file) lasts \(segment.duration)")
            let decoded = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
            #expect(decoded.status == 0, "\(segment.file): \(decoded.stderr)")
            video += packets
            audioCount += try Self.packets(path, "a:0").count
        }
        #expect(video.count == sentVideo.count)
        #expect(audioCount == sentAudio.count)
        if kind != "mp4" {
            // The samples keep their times, so the segments join without a gap: in presentation order,
            // every picture one frame after the one before.
            let times = video.map(\.time).sorted()
            let steps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
            #expect(steps.allSatisfy { abs($0 - 0.04) < 0.0001 }, "steps \(steps.first ?? 0)…\(steps.last ?? 0)")
        }
        let index = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/index.json")))
                as? [String: Any])
        #expect(index["complete"] as? Bool == true)
        let rows = try #require(index["segments"] as? [[String: Any]])
        #expect(rows.map { $0["file"] as? String } == segments.map(\.file))
        let total = rows.compactMap { $0["duration"] as? Double }.reduce(0, +)
        #expect(abs(total - 10) < 0.05, "the index's durations add up to \(total)")
        let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-PLAYLIST-TYPE:VOD") && playlist.hasSuffix("#EXT-X-ENDLIST\n"), "\(playlist)")
        if kind == "ts" {
            // ffmpeg's HLS reader plays the playlist through: every video packet.
            #expect(try Self.packets(folder + "/index.m3u8", "v:0").count == sentVideo.count)
        }
    }

    /// Keeping the last two files: the three oldest are deleted, the playlist's media sequence counts them.
    @Test func theRetentionDeletesTheOldest() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 10)
        var options = SegmentedRecorder.Options()
        options.segmentDuration = .seconds(2)
        options.retention = .files(2)
        let folder = dir.file("rec")
        let segments = try Self.record(input, into: folder, options: options)
        #expect(segments.count == 5)
        let index = try String(contentsOfFile: folder + "/index.json", encoding: .utf8)
        #expect(!index.contains("segment-00002.ts") && index.contains("segment-00003.ts"), "\(index)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ts") }.sorted()
        #expect(files == ["segment-00003.ts", "segment-00004.ts"])
        let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-MEDIA-SEQUENCE:3"), "\(playlist)")
    }
}
