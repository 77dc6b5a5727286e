import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Sinks joining and leaving a live graph under load, judged by ffprobe, ffmpeg and nginx: a 60 s run
/// of the pattern and a tone in real time (H.264 with a keyframe a second, AAC) into a main MP4, while
/// a recording runs from 10 s to 20 s, an RTMP destination (nginx on 127.0.0.1) from 15 s to 45 s, and
/// a second recording from 30 s to the end. Run under ThreadSanitizer too (`make gates`).
@Suite(.tags(.realTime), .timeLimit(.minutes(5)), .serialized, .ffmpegLeakGate) struct StreamingGraphChangesTests {
    static let fps = 25
    static let seconds = 60

    /// The video frames of `path` as ffprobe decodes them: whether each is a keyframe, and its time.
    static func frames(_ path: String) throws -> [(key: Bool, time: Double)] {
        let result = try ExternalTool.check(
            "ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame,pts_time", "-of", "csv=p=0", path]
        )
        return result.output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let time = Double(fields[1]) else { return nil }
            return (fields[0] == "1", time)
        }
    }

    @Test func recordingsAndADestinationJoinAndLeaveASixtySecondLiveRun() throws {
        RealTimeCheck.require("a 60 s live graph")
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let (server, records) = try StreamingSupport.startNginx(in: dir, port: port)
        defer { server.kill() }

        let clock = MediaClock()
        var graph = MediaGraph()
        // A GOP of 1 s: the tolerance of each window.
        let (video, audio) = try StreamingSupport.addLiveBranches(
            to: &graph, clock: clock, seconds: Self.seconds, keyint: Self.fps)
        graph.addSink(try ContainerMuxer(path: dir.file("main.mp4")), tracks: [video, audio])

        let ended = Locked<[String: Result<MediaGraph.Progress.Sink, any Error>]>([:])
        let onEnd = { (name: String) in
            { @Sendable (result: Result<MediaGraph.Progress.Sink, any Error>) in ended.withLock { $0[name] = result } }
        }
        let run = graph.start()
        let started = Date()
        func at(_ second: Double) {
            Thread.sleep(forTimeInterval: max(0, second - Date().timeIntervalSince(started)))
        }
        at(10)
        let first = try run.addSink(
            try ContainerMuxer(path: dir.file("first.mp4")), tracks: [video, audio], onEnd: onEnd("first"))
        at(15)
        let url = "rtmp://127.0.0.1:\(port)/live/joined"
        let live = try LiveStreamSink(try StreamingSupport.connect(url), clock: clock)
        let liveStats = live.statsSource
        // The run's times: the live queue measures latency on the shared clock.
        let network = try run.addSink(live, tracks: [video, audio], startsAtZero: false, onEnd: onEnd("rtmp"))
        at(20)
        run.removeSink(first)
        at(30)
        try run.addSink(
            try ContainerMuxer(path: dir.file("second.mp4")), tracks: [video, audio], onEnd: onEnd("second"))
        at(45)
        run.removeSink(network)
        run.wait()

        // Every sink ended without an error, and the run with none either.
        let results = ended.withLock { $0 }
        for name in ["first", "rtmp", "second"] {
            guard case .success(let counts) = results[name] else {
                Issue.record("\(name): \(String(describing: results[name]))")
                continue
            }
            #expect(counts.samplesWritten > 0, "\(name)")
        }
        let progress = run.progress
        #expect(progress.warnings.isEmpty, "\(progress.warnings)")
        #expect(liveStats.current.droppedFrames == 0, "\(liveStats.current)")
        #expect(StreamingSupport.waitForNginxRecord(in: dir, server: server))

        // Each output decodes, starts at a keyframe, and lasts its window within one GOP (1 s).
        let windows: [(file: String, seconds: Double, atZero: Bool)] = [
            (dir.file("main.mp4"), 60, true), (dir.file("first.mp4"), 10, true), (dir.file("second.mp4"), 30, true),
            (records + "/joined.flv", 30, false)
        ]
        for window in windows {
            let decode = try ExternalTool.run(
                "ffmpeg", ["-v", "error", "-xerror", "-i", window.file, "-f", "null", "-"])
            #expect(decode.status == 0, "\(window.file): \(decode.stderr)")
            let frames = try Self.frames(window.file)
            let firstFrame = try #require(frames.first, "\(window.file) has no video")
            #expect(firstFrame.key, "\(window.file) does not start with a keyframe")
            if window.atZero { #expect(firstFrame.time == 0, "\(window.file) starts at \(firstFrame.time) s") }
            let span = frames[frames.count - 1].time - firstFrame.time + 1 / Double(Self.fps)
            #expect(abs(span - window.seconds) <= 1, "\(window.file): \(frames.count) frames over \(span) s")
            // No gap, no frame twice: one frame every 1/25 s.
            let steps = zip(frames.dropFirst(), frames).map { ($0.time - $1.time) * Double(Self.fps) }
            #expect(steps.allSatisfy { abs($0 - 1) < 0.01 }, "\(window.file): a step of \(steps.max() ?? 0) frames")
        }
        // The main output is whole: every frame of the 60 s and the audio to match.
        let main = try StreamingSupport.probe(dir.file("main.mp4"))
        #expect(main.videoFrames == Self.fps * Self.seconds, "\(main)")
        #expect(main.audioFrames >= Self.seconds * 48_000 / 1024, "\(main)")
    }
}
