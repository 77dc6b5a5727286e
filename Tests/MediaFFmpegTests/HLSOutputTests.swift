import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// HLS written to a folder by ContainerMuxer (libavformat's hls muxer), read back by ffprobe/ffmpeg and
/// by GStreamer's hlsdemux: VOD and live-window playlists, MPEG-TS and fMP4 segments.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct HLSOutputTests {
    typealias F = HLSFixtures

    @Test(arguments: [HLSOptions.SegmentType.mpegTS, .fragmentedMP4])
    func vodPlaylistListsEverySegmentAndEveryFrame(_ type: HLSOptions.SegmentType) throws {
        let dir = try TemporaryDirectory()
        let folder = dir.file("out/vod")  // created by the muxer, with its parent
        let path = folder + "/stream.m3u8"
        let media = F.short
        #expect(media.video.count == 6 * F.fps)
        let muxer = try ContainerMuxer(hlsPlaylist: path, hls: HLSOptions(segmentType: type, playlist: .vod))
        try F.mux(muxer, [media.video, media.audio])

        let playlist = try F.playlist(path)
        #expect(playlist.lines.contains("#EXT-X-PLAYLIST-TYPE:VOD") && playlist.isEnded, "\(playlist.lines)")
        #expect(playlist.mediaSequence == 0)
        // Keyframes every 2 s and a 2-s target: three segments of 2 s.
        #expect(
            playlist.segments.map(\.uri) == (0..<3).map { "stream\($0)\(type == .mpegTS ? ".ts" : ".m4s")" },
            "\(playlist.lines)")
        #expect(playlist.segments.allSatisfy { abs($0.duration - 2) < 0.05 }, "\(playlist.segments)")
        #expect(try F.segmentFiles(folder) == playlist.segments.map(\.uri).sorted())
        if type == .fragmentedMP4 {
            #expect(playlist.lines.contains("#EXT-X-MAP:URI=\"stream_init.mp4\""), "\(playlist.lines)")
            let initSegment = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/stream_init.mp4")))
            // The moov's sample entries: avc1 with its avcC (the parameter sets), mp4a with its esds.
            for box in ["moov", "avc1", "avcC", "mp4a", "esds"] {
                #expect(Data(initSegment).range(of: Data(box.utf8)) != nil, "the init segment has no \(box)")
            }
        }
        #expect(muxer.bytesWritten == (try F.segmentBytes(folder)), "bytesWritten counts the segments")

        let frames = try F.countFrames(path)
        #expect(frames.video == media.video.count)
        #expect(abs((frames.audio ?? 0) - media.audio.count) <= 2, "\(frames) of \(media.audio.count) AAC packets")
        let decode = try MuxFixtures.strictDecode(path)
        #expect(decode.status == 0, "\(decode.stderr)")

        let gst = try F.discover(path)
        #expect(gst.usedHLSDemux, "GStreamer did not read it through hlsdemux")
        #expect(
            gst.output.contains("application/x-hls") && gst.output.contains("H.264")
                && gst.output.contains("MPEG-4 AAC"), "\(gst.output)")
        #expect(abs((gst.duration ?? 0) - 6) < 0.1, "\(gst.output)")
    }

    @Test(arguments: [HLSOptions.SegmentType.mpegTS, .fragmentedMP4])
    func liveWindowKeepsTheLastSegmentsAndDeletesTheRest(_ type: HLSOptions.SegmentType) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("live.m3u8")
        let media = F.long  // 15 s, a keyframe every second: 15 segments of 1 s, 5× the window
        let window = 3
        let muxer = try ContainerMuxer(
            hlsPlaylist: path,
            hls: HLSOptions(segmentType: type, targetSegmentDuration: .seconds(1), playlist: .live(windowSize: window)))
        var sequences: [Int] = []
        var mostOnDisk = 0
        try F.mux(muxer, [media.video, media.audio]) {
            guard FileManager.default.fileExists(atPath: path) else { return }
            let playlist = try F.playlist(path)
            #expect(playlist.segments.count <= window, "\(playlist.lines)")
            #expect(!playlist.lines.contains("#EXT-X-PLAYLIST-TYPE:VOD") && !playlist.isEnded)
            sequences.append(playlist.mediaSequence)
            mostOnDisk = max(mostOnDisk, try F.segmentFiles(dir.path).count)
        }
        // The window slid: its sequence number rose with every segment past the third.
        #expect(sequences == sequences.sorted() && (sequences.last ?? 0) >= 10, "\(sequences)")
        // The listed ones and one kept a little longer for late readers (libavformat's hls_delete_threshold).
        #expect(mostOnDisk <= window + 1, "\(mostOnDisk) segments on disk at once")

        let playlist = try F.playlist(path)
        #expect(playlist.segments.count == window && playlist.isEnded, "\(playlist.lines)")
        #expect(playlist.mediaSequence == 15 - window, "\(playlist.lines)")
        #expect(playlist.segments.allSatisfy { abs($0.duration - 1) < 0.05 }, "\(playlist.segments)")
        let onDisk = try F.segmentFiles(dir.path)
        #expect(onDisk.count <= window + 1 && Set(playlist.segments.map(\.uri)).isSubset(of: onDisk), "\(onDisk)")
        #expect(muxer.bytesWritten > (try F.segmentBytes(dir.path)), "bytesWritten counts deleted segments too")

        // The last three seconds decode; GStreamer reads the window.
        let frames = try F.countFrames(path)
        #expect(frames.video == window * F.fps, "\(frames)")
        // The audio packets from the decode time of the window's first keyframe (shown at 12 s) on: the
        // segment was cut there in the interleaved order.
        let cut = try #require(media.video.first { $0.timing.presentationTime == .seconds(Int64(15 - window)) }).timing
            .effectiveDecodeTime
        let audioInWindow = media.audio.filter { $0.timing.effectiveDecodeTime >= cut }.count
        #expect(abs((frames.audio ?? 0) - audioInWindow) <= 1, "\(frames), \(audioInWindow) AAC packets from \(cut)")
        let decode = try MuxFixtures.strictDecode(path)
        #expect(decode.status == 0, "\(decode.stderr)")
        let gst = try F.discover(path)
        #expect(gst.usedHLSDemux && gst.output.contains("H.264") && gst.output.contains("MPEG-4 AAC"), "\(gst.output)")
        #expect(abs((gst.duration ?? 0) - Double(window)) < 0.1, "\(gst.output)")
    }

    @Test func aMediaGraphWritesAPlaylistFromTheEncoders() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("graph/live.m3u8")
        var settings = H264Encoder.Settings()
        settings.preset = "ultrafast"
        settings.maxKeyFrameInterval = 2 * F.fps
        var graph = MediaGraph()
        let video = graph.addBranch(
            "video",
            source: try TestPatternGenerator(
                width: 320, height: 240, frameRate: FrameRate(Int32(F.fps)), length: .duration(.seconds(4))),
            stages: [try H264Encoder(settings: settings)])
        let audio = graph.addBranch(
            "audio",
            source: try ToneGenerator(
                .sine(frequency: 440, amplitude: 0.5), channels: 1, length: .duration(.seconds(4))),
            stages: [try AACEncoder(bitRate: 64_000)])
        graph.addSink(
            try ContainerMuxer(hlsPlaylist: path, hls: HLSOptions(playlist: .live(windowSize: 6))),
            tracks: [video, audio])
        _ = try graph.runSynchronously()
        let playlist = try F.playlist(path)
        #expect(playlist.segments.count == 2 && playlist.isEnded, "\(playlist.lines)")
        let frames = try F.countFrames(path)
        #expect(frames.video == 4 * F.fps && (frames.audio ?? 0) >= 4 * 48_000 / 1024, "\(frames)")
    }

    @Test func oneTrackAlone() throws {
        let dir = try TemporaryDirectory()
        let media = F.short
        // Audio only in TS segments, video only in fMP4 ones.
        let audioPath = dir.file("a/audio.m3u8")
        try F.mux(try ContainerMuxer(hlsPlaylist: audioPath, hls: HLSOptions(playlist: .vod)), [media.audio])
        let audio = try F.countFrames(audioPath)
        #expect(audio.video == nil && abs((audio.audio ?? 0) - media.audio.count) <= 2, "\(audio)")
        #expect(try F.playlist(audioPath).segments.count >= 3)
        let videoPath = dir.file("v/video.m3u8")
        try F.mux(
            try ContainerMuxer(hlsPlaylist: videoPath, hls: HLSOptions(segmentType: .fragmentedMP4, playlist: .vod)),
            [media.video])
        let video = try F.countFrames(videoPath)
        #expect(video.audio == nil && video.video == media.video.count, "\(video)")
        for path in [audioPath, videoPath] {
            #expect(try MuxFixtures.strictDecode(path).status == 0, "\(path)")
        }
    }

    @Test func aFolderThatCannotBeMadeIsAnIOErrorNamingIt() throws {
        let dir = try TemporaryDirectory()
        let file = dir.file("plain")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        for path in [file + "/live.m3u8", file + "/deeper/live.m3u8"] {
            do {
                _ = try ContainerMuxer(hlsPlaylist: path)
                Issue.record("a playlist under a regular file was accepted: \(path)")
            } catch {
                #expect(error.code == .io && error.message.contains(file), "\(error)")
            }
        }
    }

    @Test func aFolderRemovedWhileWritingIsAnIOErrorNamingTheSegment() throws {
        let dir = try TemporaryDirectory()
        let folder = dir.file("gone")
        let muxer = try ContainerMuxer(
            hlsPlaylist: folder + "/live.m3u8", hls: HLSOptions(targetSegmentDuration: .seconds(1)))
        let media = F.long
        try muxer.begin(tracks: [media.video.first?.format, media.audio.first?.format])
        try FileManager.default.removeItem(atPath: folder)
        do {
            for (sample, track) in MuxFixtures.interleave([media.video, media.audio]) {
                try muxer.write(sample, track: track)
            }
            try muxer.finish()
            Issue.record("writing into a removed folder went on")
        } catch let error as MediaError {
            #expect(error.code == .io && error.message.contains(folder + "/live0.ts"), "\(error)")
        }
    }

    @Test func spacesInThePathAreKeptAndPercentSignsRefused() throws {
        let dir = try TemporaryDirectory()
        let folder = dir.file("my live")
        let path = folder + "/a b.m3u8"
        try F.mux(
            try ContainerMuxer(hlsPlaylist: path, hls: HLSOptions(playlist: .vod)), [F.short.video, F.short.audio])
        let playlist = try F.playlist(path)
        #expect(playlist.segments.map(\.uri) == ["a b0.ts", "a b1.ts", "a b2.ts"], "\(playlist.lines)")
        #expect(try F.segmentFiles(folder) == playlist.segments.map(\.uri))
        #expect(try F.countFrames(path).video == F.short.video.count)
        // libavformat would read "%d" in "100%done" as the segment number.
        do {
            _ = try ContainerMuxer(hlsPlaylist: dir.file("100%done/live.m3u8"))
            Issue.record("a % in the path was accepted")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("100%done"), "\(error)")
        }
    }

    @Test func optionsAndDestinationsAreChecked() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: MediaError.self) {
            try ContainerMuxer(hlsPlaylist: dir.file("x.m3u8"), hls: HLSOptions(playlist: .live(windowSize: 0)))
        }
        #expect(throws: MediaError.self) {
            try ContainerMuxer(hlsPlaylist: dir.file("x.m3u8"), hls: HLSOptions(targetSegmentDuration: .zero))
        }
        #expect(throws: MediaError.self) { try ContainerMuxer(url: "udp://127.0.0.1:9", format: .hls) }
        // A path ending in .m3u8 is HLS through the path initializer too.
        let muxer = try ContainerMuxer(path: dir.file("by-extension.m3u8"))
        #expect(muxer.format == .hls && ContainerFormat(fileExtension: "M3U8") == .hls)
        try F.mux(muxer, [F.short.video])
        #expect(try F.playlist(dir.file("by-extension.m3u8")).segments.count == 3)

        #expect(ContainerMuxer.isHLSPlaylist("/srv/www/live.m3u8") && ContainerMuxer.isHLSPlaylist("Live.M3U8"))
        #expect(
            !ContainerMuxer.isHLSPlaylist("rtmp://127.0.0.1/live/x.m3u8") && !ContainerMuxer.isHLSPlaylist("out.ts"))
        #expect(!ContainerMuxer.isHLSPlaylist("/srv/www/.m3u8") && !ContainerMuxer.isHLSPlaylist("live.m3u8/"))
    }
}
