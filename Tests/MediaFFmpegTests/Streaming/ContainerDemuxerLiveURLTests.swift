import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `ContainerDemuxer(url:options:)` on the live schemes the ingest issue lists beside HTTP, each against a
/// real peer on loopback: SRT as caller (ffmpeg listening and sending) and as listener (ffmpeg calling),
/// both encrypted with a passphrase, every packet read; RTSP over UDP from a GStreamer RTSP server.
@Suite(.tags(.realTime), .timeLimit(.minutes(2)), .ffmpegLeakGate) struct ContainerDemuxerLiveURLTests {
    static let passphrase = "a-long-test-passphrase"

    /// The number of samples of each stream, read with `nextSample()` to the end of the input.
    static func count(_ demuxer: ContainerDemuxer) throws(MediaError) -> [Int: Int] {
        var sources: [ContainerDemuxer.StreamSource] = []
        for stream in demuxer.streams where stream.format != nil {
            sources.append(try demuxer.source(stream: stream.index))
        }
        defer { withExtendedLifetime(sources) {} }
        var counts: [Int: Int] = [:]
        while let (index, _) = try demuxer.nextSample() { counts[index, default: 0] += 1 }
        return counts
    }

    /// The SRT URL of 127.0.0.1:`port` with the passphrase and `extra` options.
    static func srt(_ port: Int, _ extra: String) -> String {
        "srt://127.0.0.1:\(port)?passphrase=\(passphrase)&\(extra)"
    }

    /// As caller: ffmpeg listens and sends once called; as listener: ffmpeg calls. Each time every video and
    /// audio packet of the file arrives (`linger` on ffmpeg's side keeps its socket until the last one is
    /// delivered), and the passphrase is never in an error message.
    @Test func srtAsCallerAndAsListenerReadsEveryPacket() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 2)
        let sent = [
            try ExternalTool.packetCount(input, stream: "v:0"), try ExternalTool.packetCount(input, stream: "a:0")
        ]

        // Listener, on a thread of its own: the demuxer waits for ffmpeg's call (opening blocks until it comes).
        let listenPort = try LoopbackPort.free()
        let heard = LockedBox<Result<[Int: Int], MediaError>?>(nil)
        let listening = Thread {
            let result = Result { () throws(MediaError) in
                try Self.count(try ContainerDemuxer(url: Self.srt(listenPort, "mode=listener")))
            }
            heard.withLock { $0 = result }
        }
        listening.start()
        let publisher = try ChildProcess(
            "/bin/sh",
            [
                "-c",
                "sleep 0.5; exec ffmpeg -v error -nostdin -re -i \(input) -c copy -f mpegts '\(Self.srt(listenPort, "linger=2"))'"
            ], environment: ProcessInfo.processInfo.environment, outputBase: dir.file("caller"))
        defer { publisher.kill() }

        // Caller, meanwhile: ffmpeg is the listener, sending as soon as it is called.
        let port = try LoopbackPort.free()
        let sender = try ChildProcess(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-re", "-i", input, "-c", "copy", "-f", "mpegts",
                Self.srt(port, "mode=listener&linger=2")
            ],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("listener"))
        defer { sender.kill() }
        try waitUntil("ffmpeg listens for SRT", timeout: .seconds(10), every: .milliseconds(20)) {
            !LoopbackPort.isFree(port, udp: true) || !sender.isRunning
        }
        let called = try Self.count(try ContainerDemuxer(url: Self.srt(port, "mode=caller")))
        #expect([called[0], called[1]] == sent, "as caller: \(called), sent \(sent)")

        try waitUntil("the listener has read its stream", timeout: .seconds(20)) { heard.value != nil }
        let listened = try #require(try heard.value?.get())
        #expect([listened[0], listened[1]] == sent, "as listener: \(listened), sent \(sent)")
        #expect(publisher.wait(timeout: 10) && publisher.result.status == 0, "\(publisher.result.stderr)")
    }

    /// RTSP with `rtspTransport: .udp` (RTP over UDP) from a GStreamer RTSP server: two seconds of its
    /// live H.264 and AAC arrive, video from a keyframe, decode times never going back.
    @Test func rtspOverUDPReadsTheLiveStream() throws {
        let dir = try TemporaryDirectory()
        let script = dir.file("rtsp.py")
        try ReconnectingInputTests.server.write(toFile: script, atomically: true, encoding: .utf8)
        let port = try LoopbackPort.free()
        let server = try ReconnectingInputTests.startServer(script, port: port)
        defer { server.kill() }
        let demuxer = try ContainerDemuxer(
            url: "rtsp://127.0.0.1:\(port)/cam", options: .init(rtspTransport: .udp))
        let video = try #require(demuxer.firstVideoStream)
        var sources: [ContainerDemuxer.StreamSource] = []
        for stream in demuxer.streams where stream.format != nil {
            sources.append(try demuxer.source(stream: stream.index))
        }
        defer { withExtendedLifetime(sources) {} }
        var frames: [MediaSample] = []
        var audio = 0
        while frames.count < 50, let (index, sample) = try demuxer.nextSample() {
            if index == video { frames.append(sample) } else { audio += 1 }
        }
        #expect(frames.count == 50 && audio > 50, "\(frames.count) frames, \(audio) audio packets")
        #expect(frames.first?.flags.contains(.keyframe) == true, "video starts without a keyframe")
        let times = frames.map(\.timing.effectiveDecodeTime)
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 > $1 }, "decode times go back")
    }
}
