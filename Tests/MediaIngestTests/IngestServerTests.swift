import Foundation
import Logging
import MediaIngest
import MediaPipeline
import MediaTestSupport
import Testing

/// `IngestServer` with real publishers: the ffmpeg CLI sends FLV over RTMP to it on loopback, each stream
/// is recorded by a graph (ContainerMuxer, stream copy), and ffprobe and `ffmpeg -xerror` judge the
/// recordings against what was sent.
@Suite(.tags(.realTime), .timeLimit(.minutes(2))) struct IngestServerTests {
    /// Records every stream into `directory/<key>.mkv`; failures land in `failures`; `observe` sees each
    /// stream first.
    static func recordingServer(
        into directory: String, failures: LockedBox<[String]>, logger: Logger,
        limits: IngestServer.Limits = IngestServer.Limits(), rtmp: IngestServer.Endpoint? = .init(port: 0),
        srt: IngestServer.SRTEndpoint? = nil,
        authorize: @escaping @Sendable (IngestServer.PublishRequest) -> String? = { _ in nil },
        observe: @escaping @Sendable (IngestStream) -> Void = { _ in }
    ) throws -> IngestServer {
        try IngestServer(rtmp: rtmp, srt: srt, limits: limits, logger: logger, authorize: authorize) { stream in
            observe(stream)
            var graph = MediaGraph()
            var tracks: [MediaGraph.BranchID] = []
            if let video = stream.videoSource() { tracks.append(graph.addBranch("video", source: video)) }
            if let audio = stream.audioSource() { tracks.append(graph.addBranch("audio", source: audio)) }
            do {
                graph.addSink(
                    try ContainerMuxer(path: directory + "/\(stream.key).mkv", format: .matroska), tracks: tracks)
                try graph.runThreaded()
            } catch {
                failures.withLock { $0.append("\(stream.key): \(error)") }
            }
        }
    }

    /// Starts `ffmpeg -re -i input -c copy -f flv url`.
    static func publish(_ input: String, to url: String, log: String, realTime: Bool = true) throws -> ChildProcess {
        try ChildProcess(
            "ffmpeg",
            ["-v", "error", "-nostdin"] + (realTime ? ["-re"] : []) + ["-i", input, "-c", "copy", "-f", "flv", url],
            environment: ProcessInfo.processInfo.environment, outputBase: log)
    }

    /// Three publishers at once, each recorded whole: as many video and audio packets as the file sent,
    /// and a recording `ffmpeg -xerror` decodes to as many frames as the source has.
    @Test func threePublishersAtOnceAreEachRecordedWhole() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 3)
        let failures = LockedBox<[String]>([])
        let records = LogRecords()
        let server = try Self.recordingServer(into: dir.path, failures: failures, logger: records.logger(level: .info))
        let publishers = try (1...3).map {
            try Self.publish(
                input, to: "rtmp://127.0.0.1:\(server.rtmpPort!)/live/k\($0)", log: dir.file("ffmpeg\($0)"))
        }
        for publisher in publishers {
            #expect(publisher.wait(timeout: 30), "a publisher did not end")
            #expect(publisher.result.status == 0, "\(publisher.result.stderr)")
        }
        try waitUntil("the streams end", timeout: .seconds(10)) { server.publishedStreams.isEmpty }
        server.stop()
        #expect(failures.value.isEmpty, "\(failures.value)")
        let sentVideo = try ExternalTool.packetCount(input, stream: "v:0")
        let sentAudio = try ExternalTool.packetCount(input, stream: "a:0")
        #expect(sentVideo == 75)
        for key in ["k1", "k2", "k3"] {
            let recording = dir.file("\(key).mkv")
            #expect(try ExternalTool.packetCount(recording, stream: "v:0") == sentVideo, "\(key)")
            #expect(try ExternalTool.packetCount(recording, stream: "a:0") == sentAudio, "\(key)")
            let decoded = try ExternalTool.check(
                "ffmpeg", ["-v", "error", "-xerror", "-i", recording, "-map", "0:v", "-f", "framemd5", "-"]
            ).output.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(decoded.count == sentVideo, "\(key): \(decoded.count) frames decoded")
        }
        #expect(records.all.contains { $0.message.contains("publishes live/k2") }, "\(records.all)")
    }

    /// A key the authorisation refuses: the publisher gets RTMP's error status and exits non-zero, and
    /// no stream is handed over; an accepted key on the same server still records.
    @Test func aRefusedKeyEndsThePublisherWithAnError() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 1)
        let failures = LockedBox<[String]>([])
        let records = LogRecords()
        let server = try Self.recordingServer(
            into: dir.path, failures: failures, logger: records.logger(level: .info),
            authorize: { $0.key == "good" ? nil : "unknown stream key" })
        defer { server.stop() }
        let refused = try Self.publish(
            input, to: "rtmp://127.0.0.1:\(server.rtmpPort!)/live/bad", log: dir.file("bad"), realTime: false)
        #expect(refused.wait(timeout: 20), "the refused publisher did not end")
        #expect(refused.result.status != 0)
        #expect(
            refused.result.stderr.contains("NetStream.Publish.BadName")
                || refused.result.stderr.contains("unknown stream key"),
            "\(refused.result.stderr)")
        let accepted = try Self.publish(
            input, to: "rtmp://127.0.0.1:\(server.rtmpPort!)/live/good", log: dir.file("good"), realTime: false)
        #expect(accepted.wait(timeout: 20), "the accepted publisher did not end")
        #expect(accepted.result.status == 0, "\(accepted.result.stderr)")
        try waitUntil("the stream ends", timeout: .seconds(10)) { server.publishedStreams.isEmpty }
        server.stop()
        #expect(FileManager.default.fileExists(atPath: dir.file("good.mkv")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("bad.mkv")))
        #expect(try ExternalTool.packetCount(dir.file("good.mkv"), stream: "v:0") == 25)
        #expect(
            records.all.contains { $0.level == .warning && $0.message.contains("refused: unknown stream key") },
            "\(records.all)")
    }
}
