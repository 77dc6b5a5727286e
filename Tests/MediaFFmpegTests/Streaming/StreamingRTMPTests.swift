import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// RTMP (FLV) to nginx's RTMP module recording everything, and to `ffmpeg -listen 1`, on 127.0.0.1.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct StreamingRTMPTests {
    @Test func rtmpToNginxRecordsEveryFrame() async throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let (server, records) = try StreamingSupport.startNginx(in: dir, port: port)
        defer { server.kill() }
        let stats = try await StreamingSupport.stream(to: "rtmp://127.0.0.1:\(port)/live/test")
        // nginx closes the record when the publisher has gone.
        let recorded = records + "/test.flv"
        #expect(StreamingSupport.waitForNginxRecord(in: dir, server: server))
        #expect(server.isRunning, "nginx ended early: \(server.result.stderr)")
        StreamingSupport.expectComplete(try StreamingSupport.probe(recorded), stats, "rtmp→nginx")
    }

    @Test func rtmpToFFmpegListenerArrivesWhole() async throws {
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
        let stats = try await StreamingSupport.stream(to: "rtmp://127.0.0.1:\(port)/live/test")
        #expect(receiver.wait(timeout: 10), "the receiver did not see the end of the stream")
        StreamingSupport.expectComplete(try StreamingSupport.probe(dir.file("got.flv")), stats, "rtmp→ffmpeg")
    }

    @Test func unknownSchemeAndRefusedConnectionAreTypedErrors() throws {
        #expect { try ContainerMuxer(url: "gopher://127.0.0.1:1/x") } throws: { error in
            (error as? MediaError)?.code == .invalidArgument && "\(error)".contains("gopher://127.0.0.1:1/x")
        }
        let port = try StreamingSupport.freePort()
        for url in ["rtmp://127.0.0.1:\(port)/live/x", "tcp://127.0.0.1:\(port)"] {
            #expect { try ContainerMuxer(url: url) } throws: { error in
                (error as? MediaError)?.code == .io && "\(error)".contains(url)
            }
        }
        #expect(StreamingURL.isURL("srt://127.0.0.1:9") && !StreamingURL.isURL("/tmp/a.ts"))
        #expect(try StreamingURL("RTMPS://127.0.0.1/x").defaultFormat == .flv)
        #expect(try StreamingURL("srt://127.0.0.1:9").defaultFormat == .mpegTS)
    }
}
