import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `live-streamer` example end to end, against real receivers on 127.0.0.1: ten seconds to nginx
/// arrive whole with per-second stats; a receiver killed and restarted is reconnected to, the stream
/// resuming at a keyframe with its timestamps continuing while the local recording stays complete; a
/// slow link keeps the queue within `--max-latency`; Ctrl-C ends cleanly with 130.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct StreamingLiveStreamerTests {
    static let streamer = TestPaths.executable("live-streamer")
    /// A small, cheap stream: the 320x240 pattern at 25 fps (a keyframe every `keyint` frames), a tone.
    static func small(keyint: Int = 25) -> [String] {
        [
            "--pattern", "--size", "320x240", "--fps", "25", "--keyint", "\(keyint)", "--tone", "440",
            "--preset", "ultrafast", "--bitrate", "300000", "--audio-bitrate", "64000"
        ]
    }

    /// Starts the example with `arguments`, its output in `dir`.
    static func start(_ arguments: [String], in dir: TemporaryDirectory) throws -> ChildProcess {
        try ChildProcess(
            streamer, arguments, environment: ProcessInfo.processInfo.environment, outputBase: dir.file("streamer"))
    }

    /// The `--stats-json` lines the example printed.
    static func statsLines(_ process: ChildProcess) throws -> [[String: Any]] {
        try process.result.output.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }
    }

    /// Waits (bounded) until something listens on TCP `port`.
    static func waitForListener(_ port: Int) -> Bool {
        poll { !StreamingSupport.isFree(port, udp: false) }
    }

    /// Waits (bounded) until something has bound UDP `port` (an SRT listener).
    static func waitForUDPListener(_ port: Int) -> Bool {
        poll { !StreamingSupport.isFree(port, udp: true) }
    }

    @Test func tenSecondsToNginxArriveWholeWithStatsEverySecond() throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let (server, records) = try StreamingSupport.startNginx(in: dir, port: port)
        defer { server.kill() }
        #expect(Self.waitForListener(port))
        let streamer = try Self.start(
            ["--to", "rtmp://127.0.0.1:\(port)/live/test", "--duration", "10", "--stats-json"] + Self.small(), in: dir)
        #expect(streamer.wait(timeout: 30), "live-streamer did not end")
        #expect(streamer.exitStatus == 0, "\(streamer.result.stderr)")
        #expect(StreamingSupport.waitForNginxRecord(in: dir, server: server))

        let lines = try Self.statsLines(streamer)
        #expect(lines.count >= 9 && lines.count <= 13, "\(lines.count) stats lines")
        for key in ["sentBytes", "sentFrames", "droppedFrames", "reconnects", "queueSeconds"] {
            #expect(lines.allSatisfy { $0[key] is NSNumber }, "\(key) missing from a line")
        }
        let sentFrames = lines.compactMap { ($0["sentFrames"] as? NSNumber)?.intValue }
        #expect(sentFrames == sentFrames.sorted() && (sentFrames.first ?? 0) > 0)
        let last = try #require(lines.last)
        #expect((last["droppedFrames"] as? NSNumber)?.intValue == 0 && (last["reconnects"] as? NSNumber)?.intValue == 0)

        let probe = try StreamingSupport.probe(records + "/test.flv")
        #expect(probe.videoFrames == 250, "\(probe)")
        #expect(
            probe.audioFrames == (last["sentAudioFrames"] as? NSNumber)?.intValue && probe.audioFrames >= 468,
            "\(probe)")
        #expect(abs(probe.videoStart - probe.audioStart) <= 1.0 / 25, "\(probe)")
        #expect((last["sentFrames"] as? NSNumber)?.intValue == probe.videoFrames + probe.audioFrames)
    }

    @Test func reconnectsAfterTheReceiverRestartsAndTheRecordingStaysComplete() throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let url = "rtmp://127.0.0.1:\(port)/live/test"
        let environment = ProcessInfo.processInfo.environment
        let first = try ChildProcess(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-listen", "1", "-i", url, "-c", "copy", "-flush_packets", "1", "-f",
                "mpegts", dir.file("first.ts")
            ],
            environment: environment, outputBase: dir.file("first"))
        defer { first.kill() }
        #expect(Self.waitForListener(port))
        // Keyframes 10 s apart: the stream can resume within the test only at the keyframe the
        // reconnection asks the encoder for.
        let streamer = try Self.start(
            ["--to", url, "--duration", "10", "--record", dir.file("local.mp4"), "--reconnect", "5", "--stats-json"]
                + Self.small(keyint: 250),
            in: dir)
        defer { streamer.kill() }
        // The server dies once the first receiver has the stream's first second.
        try waitUntil("the first receiver to record 25 frames", every: .milliseconds(250)) {
            ((try? StreamingSupport.probe(dir.file("first.ts")))?.videoFrames ?? 0) >= 25
        }
        first.signal(SIGKILL)
        #expect(first.wait(timeout: 30))
        // The second receiver starts once the streamer has found the server gone and failed to reconnect.
        try waitUntil("live-streamer to fail a reconnection attempt", every: .milliseconds(50)) {
            streamer.result.stderr.contains("reconnection attempt 1 failed")
        }
        // -copyts: the second receiver keeps the timestamps it is sent, so continuity can be checked.
        let second = try ChildProcess(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-listen", "1", "-i", url, "-c", "copy", "-copyts",
                dir.file("second.flv")
            ],
            environment: environment, outputBase: dir.file("second"))
        defer { second.kill() }
        #expect(streamer.wait(timeout: 30), "live-streamer did not end")
        #expect(streamer.exitStatus == 0, "\(streamer.result.stderr)")
        #expect(second.wait(timeout: 10), "the second receiver did not see the end of the stream")
        #expect(streamer.result.stderr.contains("reconnected on attempt"), "\(streamer.result.stderr)")
        let last = try #require(try Self.statsLines(streamer).last)
        #expect((last["reconnects"] as? NSNumber)?.intValue == 1, "\(last)")

        // After the restart: a keyframe first, timestamps continuing (not from zero), a clean decode.
        let json = try ExternalTool.ffprobeJSON(
            dir.file("second.flv"), ["-show_entries", "packet=codec_type,pts_time,flags"])
        let packets = try #require(json["packets"] as? [[String: Any]])
        let video = packets.filter { $0["codec_type"] as? String == "video" }
        let times = video.compactMap { Double($0["pts_time"] as? String ?? "") }
        #expect((video.first?["flags"] as? String)?.hasPrefix("K") == true, "\(video.prefix(2))")
        // Resumed after what the first receiver got (it had the first second), not from zero, and from
        // there every frame to the end (where it resumed depends on the machine's speed, not on the
        // library, so it is not asserted).
        #expect((times.first ?? 0) >= 1, "resumed at \(times.first ?? -1) s")
        #expect(times == times.sorted() && (times.last ?? 0) >= 9.9, "\(times.suffix(2))")
        let span: Double = (times.last ?? 0) - (times.first ?? 0)
        let expected = Int((span * 25).rounded()) + 1
        #expect(times.count == expected, "\(times.count) frames after the restart, \(expected) from first to last")
        let decode = try ExternalTool.run(
            "ffmpeg", ["-v", "error", "-xerror", "-i", dir.file("second.flv"), "-f", "null", "-"])
        #expect(decode.status == 0, "\(decode.stderr)")
        // Before the kill: the first receiver got the start (whatever it flushed).
        #expect(try StreamingSupport.probe(dir.file("first.ts")).videoFrames >= 25)

        // The local recording of the same encode is complete.
        let local = try StreamingSupport.probe(dir.file("local.mp4"))
        #expect(local.videoFrames == 250 && local.audioFrames >= 468, "\(local)")
        let localDecode = try ExternalTool.run(
            "ffmpeg", ["-v", "error", "-xerror", "-i", dir.file("local.mp4"), "-f", "null", "-"])
        #expect(localDecode.status == 0, "\(localDecode.stderr)")
    }

    /// SRT both ways to `srt-live-transmit` (Debian's srt-tools) writing what it receives to its
    /// standard output: it listening and us calling, then us listening and it calling.
    @Test(arguments: [false, true]) func srtToSrtLiveTransmitArrivesWhole(streamerListens: Bool) throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let environment = ProcessInfo.processInfo.environment
        let relayURL = streamerListens ? "srt://127.0.0.1:\(port)" : "srt://127.0.0.1:\(port)?mode=listener"
        let streamerURL = streamerListens ? "srt://127.0.0.1:\(port)?mode=listener" : "srt://127.0.0.1:\(port)"
        var relay: ChildProcess?
        if !streamerListens {
            relay = try ChildProcess(
                "srt-live-transmit", ["-q", "-a:no", relayURL, "file://con"], environment: environment,
                outputBase: dir.file("relay"))
            #expect(Self.waitForUDPListener(port), "srt-live-transmit did not listen on UDP \(port)")
        }
        let streamer = try Self.start(["--to", streamerURL, "--duration", "3"] + Self.small(), in: dir)
        defer { streamer.kill() }
        if streamerListens {
            #expect(Self.waitForUDPListener(port), "live-streamer did not listen on UDP \(port)")
            relay = try ChildProcess(
                "srt-live-transmit", ["-q", "-a:no", relayURL, "file://con"], environment: environment,
                outputBase: dir.file("relay"))
        }
        let receiver = try #require(relay)
        defer { receiver.kill() }
        #expect(streamer.wait(timeout: 20), "live-streamer did not end")
        #expect(streamer.exitStatus == 0, "\(streamer.result.stderr)")
        #expect(receiver.wait(timeout: 10), "srt-live-transmit did not see the end of the stream")
        let probe = try StreamingSupport.probe(dir.file("relay.out"))
        #expect(probe.videoFrames == 75 && probe.audioFrames >= 140, "\(probe)")
        #expect(abs(probe.videoStart - probe.audioStart) <= 1.0 / 25, "\(probe)")
    }

    /// HLS into a folder: a VOD playlist of fMP4 segments read by ffprobe and GStreamer's hlsdemux, and
    /// a live window of TS segments that keeps only its last segments.
    @Test func hlsPlaylistsInAFolder() throws {
        let dir = try TemporaryDirectory()
        let vod = dir.file("vod/show.m3u8")
        let made = try ExternalTool.run(
            Self.streamer,
            ["--to", vod, "--duration", "4", "--hls-time", "1", "--hls-list-size", "0", "--hls-segment-type", "fmp4"]
                + Self.small())
        #expect(made.status == 0, "\(made.stderr)")
        let playlist = try HLSFixtures.playlist(vod)
        #expect(playlist.lines.contains("#EXT-X-PLAYLIST-TYPE:VOD") && playlist.lines.last == "#EXT-X-ENDLIST")
        #expect(
            playlist.segments.count == 4 && playlist.segments.allSatisfy { abs($0.duration - 1) < 0.05 },
            "\(playlist.segments)")
        let frames = try HLSFixtures.countFrames(vod)
        #expect(frames.video == 100 && (frames.audio ?? 0) >= 186, "\(frames)")
        let discovered = try HLSFixtures.discover(vod)
        #expect(discovered.usedHLSDemux && abs((discovered.duration ?? 0) - 4) < 0.1, "\(discovered.output)")

        let live = dir.file("live/show.m3u8")
        let streamed = try ExternalTool.run(
            Self.streamer, ["--to", live, "--duration", "6", "--hls-time", "1", "--hls-list-size", "2"] + Self.small())
        #expect(streamed.status == 0, "\(streamed.stderr)")
        let window = try HLSFixtures.playlist(live)
        #expect(window.segments.count == 2 && window.mediaSequence == 4, "\(window.lines)")
        #expect(try HLSFixtures.segmentFiles(dir.file("live")).count <= 3)
        let decode = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", live, "-f", "null", "-"])
        #expect(decode.status == 0, "\(decode.stderr)")
    }

    @Test func aSlowLinkKeepsTheQueueWithinMaxLatency() throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let receiver = try SlowTCPReceiver(port: port, chunk: 1316, interval: 0.05)
        receiver.start(timeout: 40)
        let streamer = try Self.start(
            [
                "--to", "tcp://127.0.0.1:\(port)", "--protocol-option", "send_buffer_size=4096", "--duration", "6",
                "--max-latency", "1", "--stats-json",
                "--pattern", "--size", "320x240", "--fps", "25", "--keyint", "10", "--tone", "440", "--preset",
                "ultrafast",
                "--bitrate", "800000", "--audio-bitrate", "32000"
            ],
            in: dir)
        defer { streamer.kill() }
        #expect(streamer.wait(timeout: 40), "live-streamer did not end")
        #expect(streamer.exitStatus == 0, "\(streamer.result.stderr)")
        let (ended, data) = receiver.waitForEnd(timeout: 20)
        #expect(ended)
        try data.write(to: URL(fileURLWithPath: dir.file("got.ts")))

        let lines = try Self.statsLines(streamer)
        let queue = lines.compactMap { ($0["queueSeconds"] as? NSNumber)?.doubleValue }
        #expect(!queue.isEmpty && queue.allSatisfy { $0 <= 1.0 }, "\(queue)")
        let last = try #require(lines.last)
        #expect(((last["droppedFrames"] as? NSNumber)?.intValue ?? 0) > 0, "the link was not slow enough: \(last)")
        #expect(((last["maxQueueSeconds"] as? NSNumber)?.doubleValue ?? 9) <= 1.0, "\(last)")
        // The adaptive bit rate (on by default) lowered the encoder's target.
        #expect(((last["videoBitRate"] as? NSNumber)?.intValue ?? 800_000) < 800_000, "\(last)")
        // Audio intact: every audio frame of 6 s was sent, and all of it arrived.
        let sentAudio = (last["sentAudioFrames"] as? NSNumber)?.intValue ?? 0
        #expect(sentAudio >= 6 * 48_000 / 1024, "\(last)")
        let json = try ExternalTool.ffprobeJSON(dir.file("got.ts"), ["-show_entries", "packet=codec_type"])
        let packets = try #require(json["packets"] as? [[String: Any]])
        #expect(packets.filter { $0["codec_type"] as? String == "audio" }.count == sentAudio)
    }

    /// Commands on standard input while the stream runs: a recording started and stopped, a second
    /// RTMP destination added and removed, a second recording ended by `quit`; a line that is not a
    /// command gets one error line. Every file decodes, starts at a keyframe at zero, and lasts its window.
    @Test func commandsOnStandardInputStartAndStopRecordingsAndOutputs() throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let (server, records) = try StreamingSupport.startNginx(in: dir, port: port)
        defer { server.kill() }
        #expect(Self.waitForListener(port))
        let fifo = dir.file("commands")
        #expect(mkfifo(fifo, 0o600) == 0)
        let commands = try #require(FileHandle(forUpdatingAtPath: fifo))
        defer { try? commands.close() }
        let streamer = try ChildProcess(
            Self.streamer,
            ["--to", "rtmp://127.0.0.1:\(port)/live/main", "--record", dir.file("main.mp4"), "--duration", "20"]
                + Self.small(),
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("streamer"), standardInput: fifo)
        defer { streamer.kill() }
        // The windows count from the stream's start, which the frames it says it has sent date (a loaded
        // machine can take a second to start the process: the test's clock would put that in main.mp4).
        var started = Date()
        try waitUntil("live-streamer to send frames", every: .milliseconds(100)) {
            commands.write(Data("stats\n".utf8))
            Thread.sleep(forTimeInterval: 0.05)
            guard let sent = (try? Self.statsLines(streamer))?.last?["sentVideoFrames"] as? NSNumber, sent.intValue > 0
            else {
                return false
            }
            started = Date(timeIntervalSinceNow: -Double(sent.intValue) / 25)
            return true
        }
        let second = "rtmp://127.0.0.1:\(port)/live/second"
        /// Sends `line` once the stream has run `seconds` (by the test's clock).
        func send(_ line: String, at seconds: Double) {
            Thread.sleep(forTimeInterval: max(0, seconds - Date().timeIntervalSince(started)))
            commands.write(Data((line + "\n").utf8))
        }
        send("record start \(dir.file("a.mp4"))", at: 1.5)
        send("output add \(second)", at: 2)
        send("make coffee", at: 2)
        send("record stop", at: 4)
        send("stats", at: 4)
        send("output remove \(second)", at: 6)
        send("output remove rtmp://127.0.0.1:1/nowhere", at: 6)
        send("record start \(dir.file("b.mp4"))", at: 7)
        send("quit", at: 8.5)
        #expect(streamer.wait(timeout: 30), "live-streamer did not end")
        #expect(streamer.exitStatus == 0, "\(streamer.result.stderr)")
        let stderr = streamer.result.stderr
        #expect(stderr.components(separatedBy: "not a command: 'make coffee'").count == 2, "\(stderr)")
        #expect(stderr.contains("no output rtmp://127.0.0.1:1/nowhere to remove"), "\(stderr)")
        #expect(stderr.contains("recorded \(dir.file("a.mp4"))") && stderr.contains("recorded \(dir.file("b.mp4"))"))

        // `stats`: the --stats-json keys, the recording stopped just before, the output added.
        let stats = try #require(try Self.statsLines(streamer).last)
        #expect((stats["sentFrames"] as? NSNumber)?.intValue ?? 0 > 0, "\(stats)")
        #expect((stats["recordings"] as? [Any])?.count == 0, "\(stats)")
        let outputs = try #require(stats["outputs"] as? [[String: Any]])
        #expect(outputs.count == 1 && outputs.first?["url"] as? String == second, "\(stats)")

        #expect(StreamingSupport.waitForNginxRecord(in: dir, server: server))
        // Each window: [start, end] in seconds of the stream, ± 0.6 s (a forced keyframe starts it at once).
        let windows: [(String, Double)] = [
            (dir.file("a.mp4"), 2.5), (dir.file("b.mp4"), 1.5), (records + "/second.flv", 4),
            (dir.file("main.mp4"), 8.5)
        ]
        for (file, seconds) in windows {
            let decode = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", file, "-f", "null", "-"])
            #expect(decode.status == 0, "\(file): \(decode.stderr)")
            let frames = try ExternalTool.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame,pts_time", "-of",
                    "csv=p=0",
                    file
                ])
            let lines = frames.output.split(separator: "\n").map { $0.split(separator: ",") }
            let times = lines.compactMap { $0.count > 1 ? Double($0[1]) : nil }
            #expect(lines.first?.first == "1", "\(file) does not start with a keyframe")
            let span = (times.last ?? 0) - (times.first ?? 0) + 1.0 / 25
            #expect(abs(span - seconds) <= 0.6, "\(file): \(times.count) frames over \(span) s, expected \(seconds) s")
            if file.hasSuffix(".mp4") { #expect(times.first == 0, "\(file) starts at \(times.first ?? -1) s") }
            // No gap: one frame every 1/25 s.
            #expect(times.count == Int((span * 25).rounded()), "\(file): \(times.count) frames over \(span) s")
        }
    }

    @Test func ctrlCEndsTheStreamCleanlyWith130() throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let receiver = try ChildProcess(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-listen", "1", "-i", "rtmp://127.0.0.1:\(port)/live/test", "-c",
                "copy", dir.file("got.flv")
            ],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("ffmpeg"))
        defer { receiver.kill() }
        #expect(Self.waitForListener(port))
        let streamer = try Self.start(
            ["--to", "rtmp://127.0.0.1:\(port)/live/test", "--record", dir.file("local.mkv"), "--stats-json"]
                + Self.small(), in: dir)
        defer { streamer.kill() }
        // Interrupted once it has sent what the checks below look for (its stats lines say so).
        try waitUntil("live-streamer to send 40 video and 80 audio frames", every: .milliseconds(50)) {
            let line = streamer.result.output.split(separator: "\n").last.map { Data($0.utf8) } ?? Data()
            let last = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] ?? [:]
            return ((last["sentVideoFrames"] as? NSNumber)?.intValue ?? 0) >= 40
                && ((last["sentAudioFrames"] as? NSNumber)?.intValue ?? 0) >= 80
        }
        streamer.signal(SIGINT)
        #expect(streamer.wait(timeout: 10), "live-streamer did not stop on SIGINT")
        #expect(streamer.exitStatus == 130, "\(streamer.result.stderr)")
        #expect(receiver.wait(timeout: 10), "the receiver did not see the end of the stream")
        for file in ["got.flv", "local.mkv"] {
            let probe = try StreamingSupport.probe(dir.file(file))
            #expect(probe.videoFrames >= 40 && probe.audioFrames >= 80, "\(file): \(probe)")
            let decode = try ExternalTool.run(
                "ffmpeg", ["-v", "error", "-xerror", "-i", dir.file(file), "-f", "null", "-"])
            #expect(decode.status == 0, "\(file): \(decode.stderr)")
        }
    }

    @Test func capturesAPulseAudioInputIntoTheStream() throws {
        let daemon = try PulseDaemon()
        let dir = try TemporaryDirectory()
        let tone = dir.file("tone.wav")
        try ExternalTool.check(
            "sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", tone, "synth", "8", "sine", "1000", "vol", "0.5"])
        let player = try daemon.spawn("paplay", ["--device=\(daemon.sinkName)", tone])
        defer { player.kill() }
        let port = try StreamingSupport.freePort()
        let receiver = try ChildProcess(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-i", "tcp://127.0.0.1:\(port)?listen=1", "-c", "copy", "-f", "mpegts",
                dir.file("got.ts")
            ],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("ffmpeg"))
        defer { receiver.kill() }
        #expect(Self.waitForListener(port))
        let streamer = try daemon.spawn(
            Self.streamer,
            [
                "--to", "tcp://127.0.0.1:\(port)", "--capture", daemon.monitorName, "--pattern", "--size", "320x240",
                "--fps", "25",
                "--preset", "ultrafast", "--bitrate", "300000", "--duration", "3"
            ])
        defer { streamer.kill() }
        #expect(streamer.wait(timeout: 20), "live-streamer did not end")
        #expect(streamer.exitStatus == 0, "\(streamer.result.stderr)")
        #expect(receiver.wait(timeout: 10))
        let probe = try StreamingSupport.probe(dir.file("got.ts"))
        #expect(probe.videoFrames == 75 && probe.audioFrames >= 130, "\(probe)")
        // Capture and pattern on one clock, but a null sink's monitor delivers its first block late (about
        // 1.3 s here: the idle sink's first 2-s block, see FFMPEG-NOTES), so audio may start after video
        // and never before it.
        #expect(
            probe.audioStart >= probe.videoStart - 0.05 && probe.audioStart <= probe.videoStart + 2,
            "\(probe) \(streamer.result.stderr)")
        // What was heard: the 1 kHz tone (one second from 1.5 s, before the last AAC frame's padding).
        let pcm = try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-i", dir.file("got.ts"), "-vn", "-ss", "1.5", "-t", "1", "-ac", "1", "-f", "f32le", "-"]
        ).stdout
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(samples.count == 48_000)
        #expect(abs(RawAudio.zeroCrossingFrequency(samples, sampleRate: 48_000) - 1000) < 5)
    }

    @Test func usageErrorsAreOneLineWithStatus64() throws {
        let cases: [([String], String)] = [
            (["--pattern", "--duration", "1"], "--to"),
            (["--to", "gopher://127.0.0.1:1/x", "--pattern"], "unknown scheme gopher"),
            (["--to", "rtmp://127.0.0.1:1/x"], "give video"),
            // `--capture` without a device name still counts as an audio source.
            (
                ["--to", "rtmp://127.0.0.1:1/x", "--tone", "440", "--capture"],
                "give one of --tone, --audio and --capture"
            ),
            (["--to", "rtmp://127.0.0.1:1/x", "--pattern", "--max-latency", "0"], "--max-latency")
        ]
        for (arguments, expected) in cases {
            let result = try ExternalTool.run(Self.streamer, arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(
                lines.count == 1 && lines.first?.hasPrefix("live-streamer: ") == true
                    && result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
        let refused = try ExternalTool.run(
            Self.streamer,
            ["--to", "rtmp://127.0.0.1:\(try StreamingSupport.freePort())/live/x", "--pattern", "--duration", "1"])
        #expect(refused.status == 1 && refused.stderr.contains("Connection refused"), "\(refused.stderr)")
    }
}
