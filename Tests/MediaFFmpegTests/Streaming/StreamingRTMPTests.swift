import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// RTMP (FLV) to nginx's RTMP module recording everything, and to `ffmpeg -listen 1`, on 127.0.0.1.
@Suite(.serialized) struct StreamingRTMPTests {
    @Test func rtmpToNginxRecordsEveryFrame() async throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
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
        defer { server.kill() }
        let stats = try await StreamingSupport.stream(to: "rtmp://127.0.0.1:\(port)/live/test")
        // nginx closes the record when the publisher has gone.
        let recorded = records + "/test.flv"
        #expect(StreamingSupport.waitUntil(timeout: 5) {
            ((try? String(contentsOfFile: dir.file("error.log"), encoding: .utf8)) ?? "").contains("deleteStream")
        })
        usleep(300_000)
        #expect(server.isRunning, "nginx ended early: \(server.result.stderr)")
        StreamingSupport.expectComplete(try StreamingSupport.probe(recorded), stats, "rtmp→nginx")
    }

    @Test func rtmpToFFmpegListenerArrivesWhole() async throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let receiver = try ChildProcess(
            "ffmpeg", ["-nostdin", "-y", "-v", "error", "-listen", "1", "-i", "rtmp://127.0.0.1:\(port)/live/test", "-c", "copy", dir.file("got.flv")],
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
