import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// MPEG-TS over TCP and UDP to ffmpeg receivers on 127.0.0.1, in real time.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct StreamingTCPUDPTests {
    @Test func mpegTSOverTCPArrivesWhole() async throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let receiver = try ChildProcess(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-i", "tcp://127.0.0.1:\(port)?listen=1", "-c", "copy", "-f", "mpegts",
                dir.file("got.ts")
            ],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("ffmpeg"))
        defer { receiver.kill() }
        let stats = try await StreamingSupport.stream(to: "tcp://127.0.0.1:\(port)")
        #expect(receiver.wait(timeout: 10), "the receiver did not see the end of the stream")
        StreamingSupport.expectComplete(try StreamingSupport.probe(dir.file("got.ts")), stats, "tcp")
    }

    @Test func mpegTSOverUDPArrivesWhole() async throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let receiver = try ChildProcess(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-i", "udp://127.0.0.1:\(port)?timeout=2000000&fifo_size=100000", "-c",
                "copy", "-f", "mpegts", dir.file("got.ts")
            ],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("ffmpeg"))
        defer { receiver.kill() }
        // UDP has no connection to refuse: wait until the receiver has bound its port.
        #expect(await pollAsync { !StreamingSupport.isFree(port, udp: true) }, "ffmpeg did not bind UDP port \(port)")
        let stats = try await StreamingSupport.stream(to: "udp://127.0.0.1:\(port)?pkt_size=1316", retry: false)
        if !receiver.wait(timeout: 6) { receiver.signal(SIGINT) }
        #expect(receiver.wait(timeout: 5))
        StreamingSupport.expectComplete(try StreamingSupport.probe(dir.file("got.ts")), stats, "udp")
    }

    @Test func serverGoneIsAnIOErrorNamingTheURL() async throws {
        let dir = try TemporaryDirectory()
        let port = try StreamingSupport.freePort()
        let receiver = try ChildProcess(
            "ffmpeg",
            [
                "-nostdin", "-y", "-v", "error", "-i", "tcp://127.0.0.1:\(port)?listen=1", "-c", "copy", "-f", "mpegts",
                dir.file("got.ts")
            ],
            environment: ProcessInfo.processInfo.environment, outputBase: dir.file("ffmpeg"))
        defer { receiver.kill() }
        let url = "tcp://127.0.0.1:\(port)"
        // The receiver is killed mid-stream: once the stream's connection to it is up (ESTABLISHED to its
        // port in /proc/net/tcp), not after a fixed time.
        let streaming = Task { try await StreamingSupport.stream(to: url) }
        let hexPort = ":" + String(format: "%04X", port) + " "
        let reached = await pollAsync {
            // Read to its end: String(contentsOfFile:) reads a procfs file's first 4 KiB only (27 sockets),
            // and with the ingest tests' connections open beside this one, the receiver's row came later.
            let data = FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() ?? Data()
            let table = String(decoding: data, as: UTF8.self)
            return table.split(separator: "\n").contains { row in
                let fields = row.split(separator: " ")
                return fields.count > 3 && (fields[1] + " ").hasSuffix(hexPort) && fields[3] == "01"
            }
        }
        receiver.signal(SIGKILL)
        #expect(reached, "the stream never connected to the receiver")
        do {
            let stats = try await streaming.value
            Issue.record("the stream went on after its receiver was killed: \(stats)")
        } catch let error as MediaError {
            #expect(error.code == .io && "\(error)".contains(url), "\(error)")
        }
    }
}
