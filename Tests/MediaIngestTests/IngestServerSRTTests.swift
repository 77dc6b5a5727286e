import Foundation
import Logging
import MediaIngest
import MediaPipeline
import MediaTestSupport
import Testing

/// `IngestServer`'s SRT listener with real callers: the ffmpeg CLI sends MPEG-TS over SRT on loopback
/// (libsrt on both sides, encrypted with a passphrase), each stream is recorded by a graph, and ffprobe
/// judges the recordings against what was sent; refusals are judged by the callers' exit status.
@Suite(.tags(.realTime), .timeLimit(.minutes(2))) struct IngestServerSRTTests {
    static let passphrase = "correct-horse-battery"

    /// `ffmpeg [-re] -i input -c copy -f mpegts srt://127.0.0.1:port?streamid=ID&passphrase=…`, the stream ID
    /// as it is (FFmpeg 5.1 does not percent-decode it; it reads the value up to the next `&`). `linger`
    /// keeps the socket until SRT has delivered its last packets, so that the stream's end is not cut
    /// (FFMPEG-NOTES.md).
    static func call(
        _ input: String, port: Int, streamID: String, passphrase: String?, log: String, format: String? = nil,
        realTime: Bool = true
    ) throws -> ChildProcess {
        var url = "srt://127.0.0.1:\(port)?linger=2&streamid=\(streamID)"
        if let passphrase { url += "&passphrase=\(passphrase)" }
        return try ChildProcess(
            "ffmpeg",
            ["-v", "error", "-nostdin"] + (realTime ? ["-re"] : []) + (format.map { ["-f", $0] } ?? [])
                + ["-i", input, "-c", "copy", "-f", "mpegts", url],
            environment: ProcessInfo.processInfo.environment, outputBase: log)
    }

    /// One server, five callers at once:
    /// - `#!::r=live/cam1,m=publish` with the passphrase: recorded whole (every packet sent), handed over
    ///   as application `live`, key `cam1`, transport SRT;
    /// - a plain stream ID `cam2`: recorded whole too, with an empty application;
    /// - a wrong passphrase, and `m=request` (a player): refused in the handshake, ffmpeg exits non-zero;
    /// - bytes that are no MPEG-TS: dropped with a logged reason, the others unaffected.
    @Test func callersAreRoutedByStreamIDAndRefusedInTheHandshake() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 3)
        let noise = dir.file("noise.wav")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "anoisesrc=r=48000", "-t", "2", noise])
        let failures = LockedBox<[String]>([])
        let handed = LockedBox<[String]>([])
        let records = LogRecords()
        let server = try IngestServerTests.recordingServer(
            into: dir.path, failures: failures, logger: records.logger(level: .info), rtmp: nil,
            srt: .init(port: 0, passphrase: Self.passphrase),
            observe: { stream in
                handed.withLock { $0.append("\(stream.transport.rawValue) '\(stream.app)' '\(stream.key)'") }
            })
        defer { server.stop() }
        let port = try #require(server.srtPort)
        #expect(server.rtmpPort == nil)
        let cam1 = try Self.call(
            input, port: port, streamID: "#!::r=live/cam1,m=publish", passphrase: Self.passphrase, log: dir.file("cam1")
        )
        let cam2 = try Self.call(
            input, port: port, streamID: "cam2", passphrase: Self.passphrase, log: dir.file("cam2"))
        let wrong = try Self.call(
            input, port: port, streamID: "cam3", passphrase: "not-the-passphrase", log: dir.file("wrong"),
            realTime: false)
        let player = try Self.call(
            input, port: port, streamID: "#!::r=live/cam4,m=request", passphrase: Self.passphrase,
            log: dir.file("player"), realTime: false)
        let junk = try Self.call(
            noise, port: port, streamID: "junk", passphrase: Self.passphrase, log: dir.file("junk"), format: nil)
        for refused in [wrong, player] {
            #expect(refused.wait(timeout: 20), "a refused caller did not end")
            #expect(refused.result.status != 0, "a caller that should be refused was accepted")
        }
        for caller in [cam1, cam2] {
            #expect(caller.wait(timeout: 30), "a caller did not end")
            #expect(caller.result.status == 0, "\(caller.result.stderr)")
        }
        #expect(junk.wait(timeout: 30), "the junk caller did not end")
        try waitUntil("the streams end", timeout: .seconds(10)) { server.publishedStreams.isEmpty }
        server.stop()

        #expect(failures.value.isEmpty, "\(failures.value)")
        #expect(Set(handed.value) == ["srt 'live' 'cam1'", "srt '' 'cam2'"], "\(handed.value)")
        let sentVideo = try ExternalTool.packetCount(input, stream: "v:0")
        let sentAudio = try ExternalTool.packetCount(input, stream: "a:0")
        for key in ["cam1", "cam2"] {
            let recording = dir.file("\(key).mkv")
            #expect(try ExternalTool.packetCount(recording, stream: "v:0") == sentVideo, "\(key)")
            #expect(try ExternalTool.packetCount(recording, stream: "a:0") == sentAudio, "\(key)")
            let decoded = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", recording, "-f", "null", "-"])
            #expect(decoded.status == 0, "\(key): \(decoded.stderr)")
        }
        let messages = records.all.map(\.message)
        #expect(
            messages.contains { $0.contains("'#!::r=live/cam4,m=request'") && $0.contains("asks to play") },
            "\(messages)")
        #expect(messages.contains { $0.contains("libsrt") }, "libsrt's refusal of the wrong passphrase: \(messages)")
        #expect(messages.contains { $0.contains("dropped SRT caller") && $0.contains("junk") }, "\(messages)")
    }
}
