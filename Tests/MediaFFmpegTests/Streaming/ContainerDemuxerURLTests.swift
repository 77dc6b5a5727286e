import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `ContainerDemuxer(url:options:)` against Python's HTTP server on loopback: an MP4 and an HLS playlist
/// read as the files are (judged by our path reader and by ffprobe), the open and read timeouts as typed
/// errors, a stop that ends a blocked read at once, the schemes refused, and no secret in a message.
@Suite(.tags(.realTime), .timeLimit(.minutes(2)), .ffmpegLeakGate) struct ContainerDemuxerURLTests {
    /// Serves `root` on 127.0.0.1:`port` (with byte ranges, which an MP4's index at the end needs);
    /// `/stall/NAME` sends NAME's header with its whole length and
    /// its first 300 000 bytes, then nothing for a minute; `silent` accepts connections and never answers.
    static let server = #"""
        import http.server, os, socket, sys, threading, time
        root, port, silent = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **k): super().__init__(*a, directory=root, **k)
            def log_message(self, *a): pass
            def do_GET(self):
                if not self.path.startswith("/stall/"):
                    data = open(os.path.join(root, self.path[1:]), "rb").read()
                    start = int(self.headers.get("Range", "bytes=0-")[6:].split("-")[0] or 0)
                    self.send_response(206 if start else 200)
                    self.send_header("Content-Length", str(len(data) - start))
                    self.send_header("Accept-Ranges", "bytes")
                    if start: self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                    self.end_headers()
                    self.wfile.write(data[start:])
                    return
                data = open(os.path.join(root, self.path[7:]), "rb").read()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[:300000]); self.wfile.flush()
                time.sleep(60)
        quiet = socket.socket(); quiet.bind(("127.0.0.1", silent)); quiet.listen(8)
        held = []
        threading.Thread(target=lambda: [held.append(quiet.accept()) for _ in iter(int, 1)], daemon=True).start()
        http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
        """#

    /// A running server of `dir`'s files: the HTTP base URL and the silent port.
    struct Server {
        let process: ChildProcess
        let base: String
        let silent: Int

        init(_ dir: TemporaryDirectory) throws {
            let script = dir.file("server.py")
            try ContainerDemuxerURLTests.server.write(toFile: script, atomically: true, encoding: .utf8)
            let (port, silent) = (try StreamingSupport.freePort(), try StreamingSupport.freePort())
            process = try ChildProcess(
                "/usr/bin/python3", [script, dir.path, "\(port)", "\(silent)"], environment: [:],
                outputBase: dir.file("server"))
            base = "http://127.0.0.1:\(port)"
            self.silent = silent
            try waitUntil("the HTTP server listens", timeout: .seconds(10), every: .milliseconds(50)) {
                Self.listens(port)
            }
        }

        /// Whether a TCP connection to 127.0.0.1:`port` is accepted (binding it to look would race the
        /// server's own bind).
        static func listens(_ port: Int) -> Bool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var address = StreamingSupport.loopback(port)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }
    }

    /// Every packet of every stream, in order, as (stream, bytes).
    static func packets(_ demuxer: ContainerDemuxer) throws -> [(Int, [UInt8])] {
        let sources = try demuxer.streams.map { try demuxer.source(stream: $0.index) }
        var all: [(Int, [UInt8])] = []
        var open = Set(sources.indices)
        while !open.isEmpty {
            for index in open.sorted() {
                if let sample = try sources[index].next() {
                    all.append((index, sample.data))
                } else {
                    open.remove(index)
                }
            }
        }
        return all
    }

    @Test func anHTTPFileAndAnHLSPlaylistReadAsTheFilesDo() throws {
        let dir = try TemporaryDirectory()
        let movie = dir.file("movie.mp4")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3", "-f", "lavfi", "-i",
            "sine=frequency=440:sample_rate=48000:duration=3", "-c:v", "libx264", "-g", "25", "-c:a", "aac", movie
        ])
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", movie, "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                dir.file("index.m3u8")
            ])
        let server = try Server(dir)
        defer { server.process.kill() }

        let overHTTP = try ContainerDemuxer(url: "\(server.base)/movie.mp4")
        let fromFile = try ContainerDemuxer(path: movie)
        #expect(overHTTP.streams.map(\.codecName) == fromFile.streams.map(\.codecName))
        let (remote, local) = (try Self.packets(overHTTP), try Self.packets(fromFile))
        #expect(remote.count == local.count && remote.count > 150)
        #expect(zip(remote, local).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }, "the packets differ")

        let playlist = "\(server.base)/index.m3u8"
        let hls = try Self.packets(try ContainerDemuxer(url: playlist))
        let probe = try ExternalTool.ffprobeJSON(
            playlist, ["-count_packets", "-show_entries", "stream=nb_read_packets"])
        let counts = try #require(probe["streams"] as? [[String: Any]]).compactMap {
            ($0["nb_read_packets"] as? String).flatMap { Int($0) }
        }
        #expect(counts.count == 2 && hls.count == counts.reduce(0, +), "ours \(hls.count), ffprobe's \(counts)")
        #expect(hls.count == local.count)
    }

    @Test func aSilentServerIsATimeoutAndAStopEndsABlockedRead() throws {
        let dir = try TemporaryDirectory()
        let stream = dir.file("stream.ts")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=10", "-c:v", "libx264",
            "-b:v", "1M", "-f", "mpegts", stream
        ])
        let server = try Server(dir)
        defer { server.process.kill() }

        // Connected, but no answer: the open gives up.
        let quiet = "http://127.0.0.1:\(server.silent)/stream.ts"
        let opening = #expect(throws: MediaError.self) {
            _ = try ContainerDemuxer(url: quiet, options: .init(openTimeout: .seconds(1)))
        }
        #expect(
            opening?.code == .timedOut && opening?.message.contains(quiet) == true, "\(String(describing: opening))")

        // 300 000 bytes, then nothing: the packets they hold, then a timeout.
        var options = ContainerDemuxer.NetworkOptions(readTimeout: .seconds(1))
        let stalled = try ContainerDemuxer(url: "\(server.base)/stall/stream.ts", options: options)
        let source = try stalled.source(stream: 0)
        var read = 0
        let reading = #expect(throws: MediaError.self) { while try source.next() != nil { read += 1 } }
        #expect(reading?.code == .timedOut, "\(String(describing: reading))")
        #expect(read > 10, "\(read) packets before the stall")

        // The same with a long timeout and a stop given from another thread while the read waits: the
        // input ends (no error) long before the timeout would have.
        let stop = StopSignal()
        options = .init(readTimeout: .seconds(60), stop: stop)
        let stopped = try ContainerDemuxer(url: "\(server.base)/stall/stream.ts", options: options)
        let again = try stopped.source(stream: 0)
        let reader = Thread {
            Thread.sleep(forTimeInterval: 1.5)
            stop.request()
        }
        reader.start()
        var count = 0
        while try again.next() != nil { count += 1 }
        // What the demuxer held back waiting for the next PES is not read after the stop.
        #expect(count > 10 && count <= read, "\(count) packets, \(read) before")
    }

    @Test func otherSchemesAreRefusedAndSecretsStayOutOfMessages() throws {
        for url in ["file:///tmp/x.mp4", "ftp://127.0.0.1/x.ts", "/tmp/x.mp4"] {
            let error = #expect(throws: MediaError.self) { _ = try ContainerDemuxer(url: url) }
            #expect(error?.code == .invalidArgument && error?.message.contains("init(path:)") == true, "\(url)")
        }
        let port = try StreamingSupport.freePort()  // nothing listens: refused at once
        for url in [
            "rtmp://user:secret@127.0.0.1:\(port)/live/key", "srt://127.0.0.1:\(port)?passphrase=secret&latency=20"
        ] {
            let error = #expect(throws: MediaError.self) {
                _ = try ContainerDemuxer(url: url, options: .init(openTimeout: .seconds(5)))
            }
            #expect(
                error.map { !$0.message.contains("secret") && $0.message.contains("127.0.0.1") } == true,
                "\(String(describing: error))")
        }
    }
}
