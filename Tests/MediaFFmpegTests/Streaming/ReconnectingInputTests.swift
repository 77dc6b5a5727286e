import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `ReconnectingInput` pulling RTSP from a GStreamer RTSP server on loopback (live test pattern in
/// H.264 and a tone in AAC) that is killed 3 s in and started again 2 s later: the recording goes on
/// with monotonic timestamps, video starts again at a keyframe, and the gap in its times is the time
/// the input reports lost. Judged by ffprobe and `ffmpeg -xerror` on the recording.
@Suite(.tags(.realTime), .timeLimit(.minutes(2)), .ffmpegLeakGate) struct ReconnectingInputTests {
    static let server = #"""
        import sys, gi
        gi.require_version("Gst", "1.0"); gi.require_version("GstRtspServer", "1.0")
        from gi.repository import Gst, GstRtspServer, GLib
        Gst.init(None)
        server = GstRtspServer.RTSPServer(); server.set_address("127.0.0.1"); server.set_service(sys.argv[1])
        factory = GstRtspServer.RTSPMediaFactory(); factory.set_shared(True)
        factory.set_launch("( videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=25/1 "
            "! x264enc tune=zerolatency key-int-max=25 speed-preset=ultrafast ! rtph264pay name=pay0 pt=96 config-interval=1 "
            "audiotestsrc is-live=true ! audio/x-raw,rate=48000,channels=1 ! avenc_aac ! rtpmp4gpay name=pay1 pt=97 )")
        server.get_mount_points().add_factory("/cam", factory)
        server.attach(None)
        GLib.MainLoop().run()
        """#

    static func startServer(_ script: String, port: Int) throws -> ChildProcess {
        let process = try ChildProcess(
            "/usr/bin/python3", [script, "\(port)"], environment: ProcessInfo.processInfo.environment,
            outputBase: script + "-\(UUID().uuidString.prefix(4))")
        try waitUntil("the RTSP server listens", timeout: .seconds(10), every: .milliseconds(50)) {
            ContainerDemuxerURLTests.Server.listens(port)
        }
        return process
    }

    /// `dts_time,pts_time,flags` of every packet of `specifier`.
    static func packets(_ path: String, _ specifier: String) throws -> [(dts: Double, pts: Double, key: Bool)] {
        try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-select_streams", specifier, "-show_entries", "packet=dts_time,pts_time,flags", "-of",
                "csv=p=0", path
            ]
        ).output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 3, let pts = Double(fields[0]), let dts = Double(fields[1]) else { return nil }
            return (dts, pts, fields[2].contains("K"))
        }
    }

    @Test func aDropMidStreamIsBridgedWithMonotonicTimesAndAKeyframe() throws {
        let dir = try TemporaryDirectory()
        let script = dir.file("rtsp.py")
        try Self.server.write(toFile: script, atomically: true, encoding: .utf8)
        let port = try StreamingSupport.freePort()
        let server = try Self.startServer(script, port: port)
        defer { server.kill() }
        let events = LockedBox<[String]>([])
        var options = ContainerDemuxer.NetworkOptions()
        options.readTimeout = .seconds(2)
        let input = try ReconnectingInput(
            url: "rtsp://127.0.0.1:\(port)/cam", options: options,
            backoff: .init(initialDelay: .milliseconds(250), maxDelay: .seconds(1))
        ) { event in events.withLock { $0.append("\(event)") } }
        let output = dir.file("recorded.mkv")
        var graph = MediaGraph()
        let video = graph.addBranch("video", source: try #require(input.videoSource()))
        let audio = graph.addBranch("audio", source: try #require(input.audioSource()))
        graph.addSink(try ContainerMuxer(path: output, format: .matroska), tracks: [video, audio])
        var segments = SegmentedRecorder.Options()
        segments.segmentDuration = .seconds(2)
        let folder = dir.file("segments")
        graph.addSink(try SegmentedRecorder(directory: folder, options: segments), tracks: [video, audio])
        // The schedule on a thread of its own, the run on this one: kill the server 3 s in, start it
        // again 2 s later, stop the input 3 s after that.
        let first = server
        let restarted = LockedBox<ChildProcess?>(nil)
        let scheduled = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { scheduled.signal() }
            Thread.sleep(forTimeInterval: 3)
            first.kill(grace: 0)
            Thread.sleep(forTimeInterval: 2)
            restarted.value = try? Self.startServer(script, port: port)
            Thread.sleep(forTimeInterval: 3)
            input.stop()
        }
        let progress = try graph.runThreaded()
        scheduled.wait()
        defer { restarted.value?.kill() }
        #expect(restarted.value != nil, "the RTSP server did not start again")
        #expect(progress.branches.allSatisfy { $0.samplesRead > 100 })

        let statistics = input.statistics
        #expect(statistics.reconnects == 1, "\(events.value)")
        let lost =
            Double(statistics.timeLost.components.seconds) + Double(statistics.timeLost.components.attoseconds) / 1e18
        // Down 2 s, then the server's own start (Python, GStreamer, the encoder's preroll) and the backoff's
        // step: about 4 s here.
        #expect(lost > 1.9 && lost < 6, "\(lost) s lost: \(events.value)")
        #expect(events.value.first?.hasPrefix("disconnected") == true, "\(events.value)")

        let frames = try Self.packets(output, "v:0")
        let tones = try Self.packets(output, "a:0")
        #expect(frames.count > 100 && tones.count > 100, "\(frames.count) frames, \(tones.count) audio packets")
        #expect(zip(frames.dropFirst(), frames).allSatisfy { $0.dts > $1.dts }, "video decode times go back")
        #expect(zip(tones.dropFirst(), tones).allSatisfy { $0.dts > $1.dts }, "audio decode times go back")
        #expect(frames.first?.key == true, "the recording does not start with a keyframe")
        // The one gap: where it is, the frame after it is a keyframe, and it lasts the time lost.
        let steps = zip(frames.dropFirst(), frames).enumerated().map {
            ($0.offset + 1, $0.element.0.dts - $0.element.1.dts)
        }
        let gap = try #require(steps.max { $0.1 < $1.1 })
        #expect(frames[gap.0].key, "the video after the gap starts with a frame that is not a keyframe")
        #expect(abs(gap.1 - lost) < 0.3, "a gap of \(gap.1) s in the video for \(lost) s lost")
        #expect(steps.filter { $0.1 > 0.2 }.count == 1, "more than one gap")
        let decoded = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", output, "-f", "null", "-"])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        // The segments: the gap starts one (after a discontinuity tag), and no segment's duration holds it.
        let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        #expect(playlist.components(separatedBy: "#EXT-X-DISCONTINUITY").count == 2, "\(playlist)")
        let durations = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }.compactMap {
            Double($0.dropFirst(8).prefix { $0 != "," })
        }
        #expect(!durations.isEmpty && durations.allSatisfy { $0 < 2.2 }, "\(durations)")
    }
}
