import Foundation
import MediaIngest
import MediaPipeline
import MediaTestSupport
import Testing

/// media-relay end to end: ffmpeg publishers on loopback, the recordings judged by ffprobe, ffmpeg's HLS
/// reader and `ffmpeg -xerror`; a push to a second server (an `IngestServer` in the test); SIGTERM and
/// SIGKILL; a pulled URL.
@Suite(.tags(.realTime), .timeLimit(.minutes(3))) struct MediaRelayExampleTests {
    static let relay = TestPaths.executable("media-relay")

    /// Starts media-relay with `arguments` and reads the RTMP port it listens on (it is given port 0).
    static func start(_ arguments: [String], in dir: TemporaryDirectory, log: String = "relay") throws -> (
        ChildProcess, Int?
    ) {
        let (process, ports) = try startListening(arguments, in: dir, log: log)
        return (process, ports["rtmp"])
    }

    /// Starts media-relay with `arguments` and reads the port of each listener it prints (`rtmp`, `srt`),
    /// waiting for as many as `--rtmp-listen` and `--srt-listen` ask for.
    static func startListening(_ arguments: [String], in dir: TemporaryDirectory, log: String = "relay") throws -> (
        ChildProcess, [String: Int]
    ) {
        let process = try ChildProcess(
            relay, arguments, environment: ProcessInfo.processInfo.environment, outputBase: dir.file(log))
        let schemes = ["rtmp", "srt"].filter { arguments.contains("--\($0)-listen") }
        var ports: [String: Int] = [:]
        guard !schemes.isEmpty else { return (process, ports) }
        try waitUntil("media-relay listens", timeout: .seconds(20), every: .milliseconds(50)) {
            let text = (try? String(contentsOfFile: dir.file(log + ".err"), encoding: .utf8)) ?? ""
            for scheme in schemes {
                if let range = text.firstRange(of: "\(scheme)://127.0.0.1:") {
                    ports[scheme] = Int(text[range.upperBound...].prefix { $0.isNumber })
                }
            }
            return ports.count == schemes.count || !process.isRunning
        }
        return (process, ports)
    }

    /// The presentation times of the video packets of `path`, sorted.
    static func videoTimes(_ path: String) throws -> [Double] {
        try ExternalTool.check(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path]
        ).output.split(separator: "\n").compactMap { line in line.split(separator: ",").first.flatMap { Double($0) } }
            .sorted()
    }

    /// Three RTMP publishers and an SRT one (`srt-live-transmit`, fed MPEG-TS over UDP by ffmpeg) at
    /// once, and an RTMP and an SRT publisher with a key not allowed: each allowed stream is recorded in
    /// 1-s segments (every frame, each segment starting with a keyframe and decodable, no gap at any
    /// join, a VOD playlist ffmpeg plays through), written as HLS and pushed to a second server, which
    /// records every frame too; the refused publishers exit non-zero; `--stats-json` counts the frames;
    /// SIGTERM finishes everything, status 0.
    @Test func publishersAreRecordedInSegmentsWrittenAsHLSAndPushed() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 3)
        let sentVideo = try ExternalTool.packetCount(input, stream: "v:0")
        let sentAudio = try ExternalTool.packetCount(input, stream: "a:0")
        // The push target: a server of the library's own, recording what arrives.
        let pushed = dir.file("pushed")
        try FileManager.default.createDirectory(atPath: pushed, withIntermediateDirectories: true)
        let target = try IngestServer(rtmp: .init(port: 0)) { stream in
            var graph = MediaGraph()
            var tracks: [MediaGraph.BranchID] = []
            if let video = stream.videoSource() { tracks.append(graph.addBranch("video", source: video)) }
            if let audio = stream.audioSource() { tracks.append(graph.addBranch("audio", source: audio)) }
            if let muxer = try? ContainerMuxer(path: pushed + "/\(stream.key).mkv", format: .matroska) {
                graph.addSink(muxer, tracks: tracks)
                _ = try? graph.runThreaded()
            }
        }
        defer { target.stop() }
        let (relay, ports) = try Self.startListening(
            [
                "--rtmp-listen", "127.0.0.1:0", "--srt-listen", "127.0.0.1:0", "--record", dir.file("rec"),
                "--segment-duration", "1", "--hls", dir.file("hls"), "--push",
                "rtmp://127.0.0.1:\(target.rtmpPort!)/relayed/{name}", "--allow-key", "k1", "--allow-key", "k2",
                "--allow-key", "k3", "--allow-key", "k4", "--stats-json"
            ], in: dir)
        defer { relay.kill() }
        let listening = try #require(ports["rtmp"], "media-relay did not listen: \(relay.result.stderr)")
        let srtPort = try #require(ports["srt"], "media-relay did not listen for SRT: \(relay.result.stderr)")
        let srt = try SRTPublisher.start(input, "srt://127.0.0.1:\(srtPort)?streamid=k4", log: dir.file("k4"))
        defer { srt.kill() }
        let publishers = try (1...3).map {
            try IngestServerPublisher.start(input, "rtmp://127.0.0.1:\(listening)/live/k\($0)", log: dir.file("k\($0)"))
        }
        let refused = try IngestServerPublisher.start(
            input, "rtmp://127.0.0.1:\(listening)/live/k9", log: dir.file("k9"), realTime: false)
        #expect(refused.wait(timeout: 20), "the refused publisher did not end")
        #expect(refused.result.status != 0, "a key not allowed was accepted")
        // ffmpeg's own SRT caller, refused in the handshake: its connect fails.
        let refusedSRT = try ExternalTool.run(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-i", input, "-c", "copy", "-f", "mpegts",
                "srt://127.0.0.1:\(srtPort)?streamid=k8"
            ])
        #expect(refusedSRT.status != 0, "an SRT stream ID not allowed was accepted")
        for publisher in publishers {
            #expect(publisher.wait(timeout: 30), "a publisher did not end")
            #expect(publisher.result.status == 0, "\(publisher.result.stderr)")
        }
        try srt.finish()
        Thread.sleep(forTimeInterval: 2)  // a stats line after the streams
        relay.signal(SIGTERM)
        #expect(relay.wait(timeout: 20), "media-relay did not end on SIGTERM")
        #expect(relay.result.status == 0, "\(relay.result.stderr)")
        #expect(relay.result.stderr.contains("k9") && relay.result.stderr.contains("stream key not allowed"))
        #expect(relay.result.stderr.contains("refused SRT caller"), "\(relay.result.stderr)")
        try waitUntil("the pushed streams end", timeout: .seconds(10)) { target.publishedStreams.isEmpty }
        target.stop()

        for key in ["k1", "k2", "k3", "k4"] {
            let folder = dir.file("rec/\(key)")
            let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
            #expect(
                playlist.contains("#EXT-X-PLAYLIST-TYPE:VOD") && playlist.hasSuffix("#EXT-X-ENDLIST\n"), "\(playlist)")
            #expect(try ExternalTool.packetCount(folder + "/index.m3u8", stream: "v:0") == sentVideo, "\(key) recorded")
            #expect(try ExternalTool.packetCount(folder + "/index.m3u8", stream: "a:0") == sentAudio, "\(key) recorded")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ts") }
                .sorted()
            #expect(files.count >= 3, "\(key): \(files)")
            var times: [Double] = []
            for file in files {
                let decoded = try ExternalTool.run(
                    "ffmpeg", ["-v", "error", "-xerror", "-i", folder + "/" + file, "-f", "null", "-"])
                #expect(decoded.status == 0, "\(key)/\(file): \(decoded.stderr)")
                let first = try ExternalTool.check(
                    "ffprobe",
                    [
                        "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-of", "csv=p=0",
                        "-read_intervals", "%+#1", folder + "/" + file
                    ]
                ).output
                #expect(first.hasPrefix("K"), "\(key)/\(file) does not start with a keyframe")
                times += try Self.videoTimes(folder + "/" + file)
            }
            times.sort()
            let steps = zip(times.dropFirst(), times).map { $0 - $1 }
            #expect(steps.allSatisfy { abs($0 - 0.04) < 0.001 }, "\(key): a gap or an overlap at a join")
            let index = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/index.json")))
                    as? [String: Any])
            let durations = (index["segments"] as? [[String: Any]] ?? []).compactMap { $0["duration"] as? Double }
            // 1 s asked, a keyframe every second: each full segment lasts 1 s (the last may be shorter).
            #expect(durations.dropLast().allSatisfy { abs($0 - 1) < 0.001 }, "\(key): \(durations)")
            #expect(
                try ExternalTool.packetCount(dir.file("hls/\(key)/index.m3u8"), stream: "v:0") == sentVideo,
                "\(key) in HLS")
            #expect(try ExternalTool.packetCount(pushed + "/\(key).mkv", stream: "v:0") == sentVideo, "\(key) pushed")
        }
        let lines = relay.result.output.split(separator: "\n")
        let counts = lines.compactMap { line -> Int? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let streams = object["streams"] as? [[String: Any]]
            else { return nil }
            return streams.first { $0["name"] as? String == "k1" }?["videoSamples"] as? Int
        }
        #expect(lines.count >= 3 && counts.max() ?? 0 > 0, "\(lines.prefix(5))")
    }

    /// SIGKILL mid-segment, three relays at once writing fragmented MP4, MPEG-TS and Matroska: the closed
    /// segments in each index decode with `ffmpeg -xerror` and hold every frame, and the open segment is
    /// readable up to what was written (a second of frames at least: its last fragment or cluster, or
    /// every MPEG-TS packet).
    @Test func sigkillLeavesEveryClosedSegmentPlayable() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 8)
        var running: [(format: String, relay: ChildProcess, publisher: ChildProcess)] = []
        defer {
            for run in running {
                run.relay.kill()
                run.publisher.kill()
            }
        }
        for format in ["mp4", "ts", "mkv"] {
            let (relay, port) = try Self.start(
                [
                    "--rtmp-listen", "127.0.0.1:0", "--record", dir.file("rec-\(format)"), "--segment-duration", "2",
                    "--segment-format", format
                ],
                in: dir, log: "relay-\(format)")
            let listening = try #require(port, "media-relay did not listen: \(relay.result.stderr)")
            let publisher = try IngestServerPublisher.start(
                input, "rtmp://127.0.0.1:\(listening)/live/cam", log: dir.file("cam-\(format)"))
            running.append((format, relay, publisher))
        }
        // Each relay is killed 1.6 s after its second segment closed: past the keyframe 1 s into its open
        // segment, where the MP4 fragment and the Matroska cluster close, and before the next cut at 2 s.
        var closedAt: [String: ContinuousClock.Instant] = [:]
        var killed: Set<String> = []
        try waitUntil("each relay closes two segments", timeout: .seconds(30), every: .milliseconds(20)) {
            for run in running where !killed.contains(run.format) {
                if closedAt[run.format] == nil {
                    let path = dir.file("rec-\(run.format)/cam/index.json")
                    let index = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                    if index.contains("segment-00001.\(run.format)") { closedAt[run.format] = .now }
                }
                if let closed = closedAt[run.format], ContinuousClock.now - closed >= .milliseconds(1_600) {
                    run.relay.signal(SIGKILL)
                    killed.insert(run.format)
                }
            }
            return killed.count == running.count
        }
        for run in running {
            #expect(run.relay.wait(timeout: 10))
            let folder = dir.file("rec-\(run.format)/cam")
            let index = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/index.json")))
                    as? [String: Any])
            #expect(index["complete"] as? Bool == false)
            let closed = (index["segments"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String }
            #expect(closed.count >= 2, "\(run.format)")
            for file in closed {
                let decoded = try ExternalTool.run(
                    "ffmpeg", ["-v", "error", "-xerror", "-i", folder + "/" + file, "-f", "null", "-"])
                #expect(decoded.status == 0, "\(file): \(decoded.stderr)")
                #expect(try ExternalTool.packetCount(folder + "/" + file, stream: "v:0") == 50, "\(file)")
            }
            let open = folder + "/segment-0000\(closed.count).\(run.format)"
            #expect(FileManager.default.fileExists(atPath: open), "no open \(run.format) segment")
            let frames = try ExternalTool.packetCount(open, stream: "v:0")
            #expect(frames >= 25, "the open \(run.format) segment holds \(frames) readable frames")
        }
    }

    /// A pulled URL (an MPEG-TS file served over HTTP on loopback) is recorded whole; media-relay ends
    /// by itself when the pull has ended.
    @Test func aPulledURLIsRecordedWhole() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.ts")
        try URLInputExampleTests.makeTS(input, seconds: 3)
        let (server, port) = try URLInputExampleTests.serve(dir)
        defer { server.kill() }
        let (relay, _) = try Self.start(
            ["--pull", "http://127.0.0.1:\(port)/input.ts", "--record", dir.file("rec"), "--segment-duration", "1"],
            in: dir)
        defer { relay.kill() }
        #expect(relay.wait(timeout: 30), "media-relay did not end with its pull")
        #expect(relay.result.status == 0, "\(relay.result.stderr)")
        #expect(try ExternalTool.packetCount(dir.file("rec/1/index.m3u8"), stream: "v:0") == 75)
        #expect(
            try ExternalTool.packetCount(dir.file("rec/1/index.m3u8"), stream: "a:0")
                == (try ExternalTool.packetCount(input, stream: "a:0")))
    }
}

/// An ffmpeg publisher: `ffmpeg [-re] -i input -c copy -f flv url`.
enum IngestServerPublisher {
    static func start(_ input: String, _ url: String, log: String, realTime: Bool = true) throws -> ChildProcess {
        try ChildProcess(
            "ffmpeg",
            ["-v", "error", "-nostdin"] + (realTime ? ["-re"] : []) + ["-i", input, "-c", "copy", "-f", "flv", url],
            environment: ProcessInfo.processInfo.environment, outputBase: log)
    }
}

/// An SRT publisher as the must-show has one: `srt-live-transmit udp://… srt://…`, fed the input
/// as MPEG-TS over UDP on loopback by `ffmpeg -re` (srt-live-transmit 1.5 does not exit at the end of
/// standard input, so a pipe would never end).
struct SRTPublisher {
    let transmitter: ChildProcess
    let feeder: ChildProcess

    static func start(_ input: String, _ url: String, log: String) throws -> SRTPublisher {
        let udp = try LoopbackPort.free()
        let transmitter = try ChildProcess(
            "srt-live-transmit", ["-a", "no", "-q", "udp://127.0.0.1:\(udp)", url],
            environment: ProcessInfo.processInfo.environment, outputBase: log + "-srt")
        try waitUntil("srt-live-transmit listens for UDP", timeout: .seconds(10), every: .milliseconds(20)) {
            !LoopbackPort.isFree(udp, udp: true) || !transmitter.isRunning
        }
        let feeder = try ChildProcess(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-re", "-i", input, "-c", "copy", "-f", "mpegts",
                "udp://127.0.0.1:\(udp)?pkt_size=1316"
            ], environment: ProcessInfo.processInfo.environment, outputBase: log)
        return SRTPublisher(transmitter: transmitter, feeder: feeder)
    }

    /// Waits for the feeder to end, lets SRT deliver what it holds, then stops the transmitter (SIGINT,
    /// as Ctrl-C: it closes its socket, which ends the stream at the server).
    func finish() throws {
        #expect(feeder.wait(timeout: 30), "ffmpeg did not end")
        #expect(feeder.result.status == 0, "\(feeder.result.stderr)")
        Thread.sleep(forTimeInterval: 1)
        transmitter.signal(SIGINT)
        #expect(transmitter.wait(timeout: 10), "srt-live-transmit did not end on SIGINT")
    }

    func kill() {
        feeder.kill()
        transmitter.kill()
    }
}
