import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// What ContainerMuxer refuses, and how: typed errors naming track, codec, container or path; calls
/// after finish; decode times going backwards; nothing leaked.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerMuxerErrorTests {
    static func error(_ body: () throws -> Void) -> MediaError? {
        do { try body() } catch { return error as? MediaError }
        return nil
    }

    @Test func containerFormatNames() {
        #expect(ContainerFormat(fileExtension: "m4v") == .mp4)
        #expect(ContainerFormat(fileExtension: ".MOV") == .mov)
        #expect(ContainerFormat(fileExtension: "m2ts") == .mpegTS)
        #expect(ContainerFormat(fileExtension: "mts") == .mpegTS)
        #expect(ContainerFormat(fileExtension: "mkv") == .matroska)
        #expect(ContainerFormat(fileExtension: "wav") == nil)
        #expect(ContainerFormat(name: "ipod") == .m4a)
        #expect(ContainerFormat(name: "mpegts") == .mpegTS)
        #expect(ContainerFormat(name: "webm") == .webm)
        #expect(ContainerFormat(name: "avi") == nil)
        #expect(ContainerFormat(name: "hls") == .hls && ContainerFormat(fileExtension: "m3u8") == .hls)
        #expect(ContainerFormat(fileExtension: "opus") == .ogg && ContainerFormat(name: "ogg") == .ogg)
        #expect(
            ContainerFormat.all.map(\.name) == ["mp4", "mov", "m4a", "mpegts", "flv", "matroska", "webm", "ogg", "hls"])
    }

    @Test func m4aRefusesVideo() throws {
        let dir = try TemporaryDirectory()
        let muxer = try ContainerMuxer(path: dir.file("v.m4a"))
        let video = try #require(MuxFixtures.video.first?.format)
        let audio = try #require(MuxFixtures.audio.first?.format)
        let error = try #require(Self.error { try muxer.begin(tracks: [audio, video]) })
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("track 1"), "\(error)")
        #expect(error.message.contains("h264"), "\(error)")
        #expect(error.message.contains("m4a"), "\(error)")
        try muxer.finish()
    }

    @Test func rawAndUnsupportedCodecsAreRefused() throws {
        let dir = try TemporaryDirectory()
        let pcm = MediaFormat.audio(.pcm(.s16, sampleRate: 48_000, channels: 2))
        let muxer = try ContainerMuxer(path: dir.file("pcm.mkv"))
        let error = try #require(Self.error { try muxer.begin(tracks: [pcm]) })
        #expect(error.code == .unsupportedFormat)
        #expect(
            error.message.contains("track 0") && error.message.contains("s16") && error.message.contains("matroska"),
            "\(error)")

        let raw = MediaFormat.video(.raw(.yuv420p, width: 64, height: 64))
        let rawError = try #require(
            Self.error { try ContainerMuxer(path: dir.file("raw.mp4")).begin(tracks: [nil, raw]) })
        #expect(rawError.code == .unsupportedFormat)
        #expect(
            rawError.message.contains("track 1") && rawError.message.contains("yuv420p")
                && rawError.message.contains("mp4"), "\(rawError)")

        // WebM takes no H.264 or AAC.
        let audio = try #require(MuxFixtures.audio.first?.format)
        let webm = try #require(Self.error { try ContainerMuxer(path: dir.file("a.webm")).begin(tracks: [audio]) })
        #expect(webm.code == .unsupportedFormat)
        #expect(webm.message.contains("aac") && webm.message.contains("webm"), "\(webm)")
    }

    /// A track that ended empty (`nil`) gets no stream; the other tracks keep their indices. Writing to
    /// the empty track, or another codec into a track, is refused.
    @Test func emptyTracksAndMismatchedSamples() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("gap.mkv")
        let audio = Array(MuxFixtures.audio.prefix(20))
        let video = MuxFixtures.video
        let muxer = try ContainerMuxer(path: path)
        try muxer.begin(tracks: [nil, audio[0].format])
        for sample in audio { try muxer.write(sample, track: 1) }
        let wrongTrack = try #require(Self.error { try muxer.write(audio[0], track: 0) })
        #expect(wrongTrack.code == .invalidArgument)
        try muxer.finish()
        let done = try MuxFixtures.streams(path)
        #expect(done.map { $0["codec_name"] as? String } == ["aac"])
        #expect(done.first?["nb_read_packets"] as? String == "20")

        let other = try ContainerMuxer(path: dir.file("mismatch.mkv"))
        try other.begin(tracks: [audio[0].format])
        let mismatch = try #require(Self.error { try other.write(video[0], track: 0) })
        #expect(mismatch.code == .formatMismatch)
        try other.finish()

        var noParameters = try #require(video[0].format.video)
        noParameters.h264 = nil
        let missing = try #require(
            Self.error { try ContainerMuxer(path: dir.file("nosps.mp4")).begin(tracks: [.video(noParameters)]) })
        #expect(missing.code == .unsupportedFormat)
        #expect(missing.message.contains("SPS"), "\(missing)")
    }

    @Test func unwritablePathIsNamed() throws {
        let path = "/nonexistent-directory-\(UInt32.random(in: 0...UInt32.max))/out.mp4"
        let error = try #require(Self.error { _ = try ContainerMuxer(path: path) })
        #expect(error.code == .io)
        #expect(error.message.contains(path), "\(error)")
        let unknown = try #require(Self.error { _ = try ContainerMuxer(path: "/tmp/out.xyz") })
        #expect(unknown.code == .invalidArgument)
    }

    /// Unwrapped, the muxer still refuses calls after finish: libavformat's I/O context is freed then.
    @Test func callsAfterFinishThrowStageFinished() throws {
        let dir = try TemporaryDirectory()
        let audio = MuxFixtures.audio
        let muxer = try ContainerMuxer(path: dir.file("a.ts"))
        try muxer.begin(tracks: [audio[0].format])
        try muxer.write(audio[0], track: 0)
        try muxer.finish()
        #expect(Self.error { try muxer.write(audio[1], track: 0) }?.code == .stageFinished)
        #expect(Self.error { try muxer.begin(tracks: [audio[0].format]) }?.code == .stageFinished)
        #expect(Self.error { try muxer.finish() }?.code == .stageFinished)

        // finish without begin: the file is closed empty.
        let empty = dir.file("empty.mp4")
        try ContainerMuxer(path: empty).finish()
        #expect(try FileManager.default.attributesOfItem(atPath: empty)[.size] as? Int == 0)
    }

    /// A decode time going backwards is refused with the sample's index; what was written before stays
    /// a valid file once finish has run.
    @Test func decodeTimeGoingBackwardsIsInvalidData() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("back.mp4")
        let video = MuxFixtures.video
        let muxer = CheckedMultiTrackSink(try ContainerMuxer(path: path))
        try muxer.begin(tracks: [video[0].format])
        for sample in video.prefix(31) { try muxer.write(sample, track: 0) }
        let error = try #require(Self.error { try muxer.write(video[10], track: 0) })
        #expect(error.code == .invalidData)
        #expect(error.sampleIndex == 31)
        #expect(error.stage == "ContainerMuxer(mp4)")
        // The guard refuses what follows an error; finish still completes the file.
        #expect(Self.error { try muxer.write(video[31], track: 0) }?.code == .stageFinished)
        try muxer.finish()
        #expect(try MuxFixtures.decodedVideoFrames(path, strict: true) == 31)
        // Video only: libavformat's own fast start (its second pass reopens the file by name).
        let boxes = ISOBMFF.topLevelBoxes([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))).map(\.type)
        #expect(try #require(boxes.firstIndex(of: "moov")) < (try #require(boxes.firstIndex(of: "mdat"))), "\(boxes)")
    }

    /// Every owner the muxer makes is freed. Other suites allocate FFmpeg owners in parallel, so the count
    /// is compared around each of several runs and one undisturbed run must return to where it was.
    @Test func nothingLeaks() throws {
        let dir = try TemporaryDirectory()
        let audio = Array(MuxFixtures.audio.prefix(50))
        let video = Array(MuxFixtures.video.prefix(40))
        var balanced = false
        for attempt in 0..<30 where !balanced {
            let before = FFmpegResources.liveCount
            do {
                let memory = MemoryOutput()
                try MuxFixtures.mux(try ContainerMuxer(output: memory, format: .m4a), [audio])
                try MuxFixtures.mux(try ContainerMuxer(path: dir.file("l\(attempt).mp4")), [video, audio])
                let refused = try ContainerMuxer(path: dir.file("l\(attempt).webm"))
                _ = Self.error { try refused.begin(tracks: [audio[0].format]) }
                _ = try? refused.finish()
                _ = try ContainerMuxer(path: dir.file("never-finished\(attempt).ts"))
            }
            balanced = FFmpegResources.liveCount == before
        }
        #expect(balanced, "FFmpegResources.liveCount did not return to its value around a muxer run")
    }
}
