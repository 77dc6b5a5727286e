import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `ReplayBuffer` fed a 10-s file (H.264, a keyframe every second, B-frames; AAC): a clip holds the last
/// seconds from a keyframe, every video packet of the source from there and every audio packet that
/// covers that time, no gap; limits by bytes and `last`; clips saved while the graph runs. Judged by
/// ffprobe against the source and by `ffmpeg -xerror`.
@Suite(.timeLimit(.minutes(2)), .ffmpegLeakGate) struct ReplayBufferTests {
    /// `pts_time,duration_time,flags` of the packets of `specifier`, in file order.
    static func packets(_ path: String, _ specifier: String) throws -> [(time: Double, end: Double, key: Bool)] {
        try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-select_streams", specifier, "-show_entries", "packet=pts_time,duration_time,flags",
                "-of", "csv=p=0", path
            ]
        ).output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 3, let time = Double(fields[0]) else { return nil }
            return (time, time + (Double(fields[1]) ?? 0), fields[2].contains("K"))
        }
    }

    static func fill(_ replay: ReplayBuffer, from input: String, beside: (@Sendable () -> Void)? = nil) throws {
        var graph = MediaGraph()
        let video = graph.addBranch("video", source: try ContainerDemuxer.streamSource(path: input, stream: 0))
        let audio = graph.addBranch("audio", source: try ContainerDemuxer.streamSource(path: input, stream: 1))
        graph.addSink(replay, tracks: [video, audio])
        try graph.runThreaded()
    }

    /// The clip's video is the source's packets from a keyframe on, one after another in decode order,
    /// and its audio the source's from the packet that covers that keyframe's time, no gap (to the
    /// source's end when `toTheEnd`); it decodes without an error.
    static func checkClip(_ clip: ReplayBuffer.Clip, against input: String, toTheEnd: Bool = true) throws {
        let start = try #require(clip.start.seconds)
        let name = clip.path.split(separator: "/").last ?? ""
        let video = try packets(clip.path, "v:0").map(\.time)
        let audio = try packets(clip.path, "a:0").map(\.time)
        let sourceVideo = try packets(input, "v:0")
        let sourceAudio = try packets(input, "a:0")
        let key = try #require(
            sourceVideo.firstIndex { abs($0.time - start) < 0.0005 }, "\(name): no frame at \(start)")
        #expect(sourceVideo[key].key, "\(name) starts at \(start), which is not a keyframe")
        let firstAudio = try #require(sourceAudio.firstIndex { $0.end > start + 0.0005 })
        // Within 2 ms: a container rounds times to its time base (Matroska's 1 ms, an MP4 edit list's
        // movie timescale); a missing or extra packet would be 23 ms (audio) or 40 ms (video) off.
        let videoRun = sourceVideo[key...].prefix(video.count).map(\.time)
        let audioRun = sourceAudio[firstAudio...].prefix(audio.count).map(\.time)
        #expect(
            video.count > 0 && zip(video, videoRun).allSatisfy { abs($0 - $1) < 0.002 },
            "\(name): the video is not the source's from \(start)")
        #expect(
            audio.count > 0 && zip(audio, audioRun).allSatisfy { abs($0 - $1) < 0.002 },
            "\(name): the audio is not the source's from \(start)")
        if toTheEnd {
            #expect(
                video.count == sourceVideo.count - key, "\(name): \(video.count) frames of \(sourceVideo.count - key)")
            #expect(
                audio.count == sourceAudio.count - firstAudio,
                "\(name): \(audio.count) packets of \(sourceAudio.count - firstAudio)")
        }
        let decoded = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", clip.path, "-f", "null", "-"])
        #expect(decoded.status == 0, "\(name): \(decoded.stderr)")
    }

    @Test func aClipHoldsTheLastSecondsFromAKeyframe() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 10)
        let replay = ReplayBuffer(duration: .seconds(3))
        try Self.fill(replay, from: input)
        let statistics = replay.statistics
        let held = statistics.duration.seconds ?? 0
        #expect(held >= 3 && held < 4.05, "the buffer holds \(held) s")
        #expect(statistics.dropped > 0)

        let clip = try replay.saveClip(to: dir.file("clip.mp4"))
        let start = try #require(clip.start.seconds)
        #expect(abs(start - start.rounded()) < 0.0005, "the clip starts at \(start), not at a keyframe")
        #expect(clip.duration.seconds.map { $0 >= 3 && $0 < 4.05 } == true, "\(clip.duration)")
        try Self.checkClip(clip, against: input)

        let short = try replay.saveClip(to: dir.file("short.mkv"), last: .seconds(2))
        let shortStart = try #require(short.start.seconds)
        #expect(shortStart > start && (short.duration.seconds ?? 0) >= 2, "\(short)")
        try Self.checkClip(short, against: input)
    }

    /// A byte limit under the duration's: whole groups of pictures go, the clip still starts at one.
    @Test func theByteLimitDropsWholeGroupsOfPictures() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 10)
        let replay = ReplayBuffer(duration: .seconds(30), maxBytes: 150_000)
        try Self.fill(replay, from: input)
        #expect(replay.statistics.bytes <= 150_000)
        let clip = try replay.saveClip(to: dir.file("clip.ts"))
        let start = try #require(clip.start.seconds)
        #expect(start >= 1, "a 150 kB limit kept \(clip.duration) from \(start)")
        try Self.checkClip(clip, against: input)
    }

    /// Clips saved from another thread while the graph writes: each a valid clip from a keyframe.
    @Test func clipsSavedWhileTheGraphRuns() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 10)
        let replay = ReplayBuffer(duration: .seconds(2))
        let folder = dir.path
        let saved = LockedBox<[ReplayBuffer.Clip]>([])
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { done.signal() }
            // From half a second of media on (within 20 s): a clip saved at the very first samples may hold
            // video and no audio yet, which the check below would take for audio lost (seen once, when the
            // test processes ran in the idle scheduling class).
            let deadline = Date().addingTimeInterval(20)
            while (replay.statistics.duration.seconds ?? 0) < 0.5, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.001)
            }
            for index in 0..<6 {
                if let clip = try? replay.saveClip(to: folder + "/during-\(index).mp4") {
                    saved.withLock { $0.append(clip) }
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        try Self.fill(replay, from: input)
        done.wait()
        #expect(!saved.value.isEmpty)
        for clip in saved.value {
            try Self.checkClip(clip, against: input, toTheEnd: false)
        }
    }
}
