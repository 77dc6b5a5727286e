import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Shared by the `Streaming…Tests` suites: free loopback ports, a short live stream of the generated
/// pattern and tone through the real encoders, and what ffprobe says about what a receiver recorded.
enum StreamingSupport {
    static let fps = 25
    static let seconds = 3

    /// A port free on 127.0.0.1 for TCP and UDP (``LoopbackPort/free()``).
    static func freePort() throws -> Int { try LoopbackPort.free() }

    /// Whether `port` can be bound on 127.0.0.1 (``LoopbackPort/isFree(_:udp:)``).
    static func isFree(_ port: Int, udp: Bool) -> Bool { LoopbackPort.isFree(port, udp: udp) }

    /// 127.0.0.1:`port`.
    static func loopback(_ port: Int) -> sockaddr_in { LoopbackPort.address(port) }

    /// Starts nginx with its RTMP module on 127.0.0.1:`port` (application `live`, `record all` into
    /// `<dir>/records`, one file per stream name); the server and the records folder.
    static func startNginx(in dir: TemporaryDirectory, port: Int) throws -> (ChildProcess, String) {
        RealTimeCheck.require("an nginx RTMP server")
        let records = dir.file("records")
        try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: true)
        let config = """
            load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
            daemon off;
            master_process off;
            pid \(dir.file("nginx.pid"));
            error_log \(dir.file("error.log")) info;
            events { worker_connections 64; }
            rtmp {
                server {
                    listen 127.0.0.1:\(port);
                    application live { live on; record all; record_path \(records); record_unique off; }
                }
            }
            """
        try config.write(toFile: dir.file("nginx.conf"), atomically: true, encoding: .utf8)
        let server = try ChildProcess(
            "nginx", ["-p", dir.path, "-c", dir.file("nginx.conf"), "-e", dir.file("error.log")],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("nginx"))
        return (server, records)
    }

    /// Waits (bounded) until nginx has seen the publisher go and has closed its record of the stream
    /// (it logs `deleteStream`, then closes the file: `server`, one process with `master_process off`,
    /// no longer holds a file of the records folder open).
    static func waitForNginxRecord(in dir: TemporaryDirectory, server: ChildProcess) -> Bool {
        let seen = poll(every: .milliseconds(20)) {
            ((try? String(contentsOfFile: dir.file("error.log"), encoding: .utf8)) ?? "").contains("deleteStream")
        }
        let records = dir.file("records")
        let closed = poll(every: .milliseconds(20)) {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/fd")) ?? []
            return !fds.contains { fd in
                ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server.pid)/fd/\(fd)")) ?? "")
                    .hasPrefix(records)
            }
        }
        return seen && closed
    }

    /// Connects a muxer to `url`, retrying while the receiver is not listening yet (bounded: 30 s).
    static func connect(_ url: String, protocolOptions: [String: String] = [:]) throws -> ContainerMuxer {
        var muxer: ContainerMuxer?
        var lastError: MediaError?
        _ = try poll(every: .milliseconds(100)) {
            let result = Result { () throws(MediaError) in
                try ContainerMuxer(url: url, protocolOptions: protocolOptions)
            }
            switch result {
            case .success(let connected): muxer = connected
            case .failure(let error):
                guard error.code == .io else { throw error }
                lastError = error
            }
            return muxer != nil
        }
        guard let muxer else { throw lastError ?? MediaError(.io, "cannot connect to \(url)") }
        return muxer
    }

    /// Adds the 320x240 pattern at `fps` (H.264, GOPs of `keyint` frames, ultrafast, real-time settings)
    /// and a 440 Hz tone (AAC) to `graph`, `seconds` long, both paced in real time on `clock`.
    static func addLiveBranches(
        to graph: inout MediaGraph, clock: MediaClock, seconds: Int, keyint: Int, videoBitRate: Int = 300_000,
        audioBitRate: Int = 64_000
    ) throws -> (video: MediaGraph.BranchID, audio: MediaGraph.BranchID) {
        var settings = H264Encoder.Settings()
        settings.realTime = true
        settings.averageBitRate = videoBitRate
        settings.maxKeyFrameInterval = keyint
        settings.preset = "ultrafast"
        let length = MediaTime.seconds(Int64(seconds))
        let video = graph.addBranch(
            "video",
            source: RealTimeSource(
                try TestPatternGenerator(
                    width: 320, height: 240, frameRate: FrameRate(Int32(fps)), length: .duration(length)), clock: clock),
            stages: [try H264Encoder(settings: settings)])
        let audio = graph.addBranch(
            "audio",
            source: RealTimeSource(
                try ToneGenerator(.sine(frequency: 440, amplitude: 0.5), channels: 1, length: .duration(length)),
                clock: clock),
            stages: [try AACEncoder(bitRate: audioBitRate)])
        return (video, audio)
    }

    /// Streams `seconds` of the 320x240 pattern (GOPs of `keyint` frames) and a tone, paced in real
    /// time on one clock, through a LiveStreamSink of `maxQueue` into a muxer connected to `url` (retried
    /// while the receiver is not listening yet, when `retry`); the sink's stats.
    static func stream(
        to url: String, retry: Bool = true, protocolOptions: [String: String] = [:], keyint: Int = 25,
        videoBitRate: Int = 300_000, audioBitRate: Int = 64_000,
        maxQueue: MediaTime = .seconds(2)
    ) async throws -> LiveStreamSink.Stats {
        RealTimeCheck.require("a live stream to \(url)")
        let clock = MediaClock()
        var graph = MediaGraph()
        let (video, audio) = try addLiveBranches(
            to: &graph, clock: clock, seconds: seconds, keyint: keyint, videoBitRate: videoBitRate,
            audioBitRate: audioBitRate)
        let muxer =
            retry
            ? try connect(url, protocolOptions: protocolOptions)
            : try ContainerMuxer(url: url, protocolOptions: protocolOptions)
        let live = try LiveStreamSink(muxer, clock: clock, maxQueueDuration: maxQueue)
        let stats = live.statsSource
        graph.addSink(live, tracks: [video, audio])
        _ = try await graph.run()
        return stats.current
    }

    /// What ffprobe decoded of each stream of `path`: frames and start time by codec type.
    struct Probe {
        var videoFrames = 0
        var audioFrames = 0
        var videoStart = Double.nan
        var audioStart = Double.nan
    }

    static func probe(_ path: String) throws -> Probe {
        let json = try ExternalTool.ffprobeJSON(path, ["-count_frames", "-show_streams"])
        let streams = try #require(json["streams"] as? [[String: Any]])
        var probe = Probe()
        for stream in streams {
            let frames = Int(stream["nb_read_frames"] as? String ?? "") ?? 0
            let start = Double(stream["start_time"] as? String ?? "") ?? .nan
            switch stream["codec_type"] as? String {
            case "video": (probe.videoFrames, probe.videoStart) = (frames, start)
            case "audio": (probe.audioFrames, probe.audioStart) = (frames, start)
            default: break
            }
        }
        return probe
    }

    /// The checks every loopback receiver gets: every frame of both streams arrived, A/V start within
    /// one frame, nothing dropped on the way, latency measured. (How much latency is a wall-clock
    /// quantity that a loaded machine or a sanitizer stretches: the benchmarks judge it, not the tests.)
    static func expectComplete(_ probe: Probe, _ stats: LiveStreamSink.Stats, _ what: String) {
        #expect(stats.droppedFrames == 0, "\(what): \(stats)")
        #expect(stats.sentVideoFrames == fps * seconds, "\(what): \(stats)")
        #expect(stats.sentAudioFrames >= seconds * 48_000 / 1024, "\(what): \(stats)")
        #expect(probe.videoFrames == stats.sentVideoFrames, "\(what): \(probe)")
        #expect(probe.audioFrames == stats.sentAudioFrames, "\(what): \(probe)")
        #expect(abs(probe.videoStart - probe.audioStart) <= 1.0 / Double(fps), "\(what): \(probe)")
        #expect((stats.sentBytes ?? 0) > 10_000, "\(what): \(stats)")
        if let p50 = stats.latencyP50, let p99 = stats.latencyP99 {
            #expect(p50 >= 0 && p50 <= p99 && p99.isFinite, "\(what): \(stats)")
        } else {
            Issue.record("\(what): no latency measured: \(stats)")
        }
    }
}
