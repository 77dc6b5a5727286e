import Foundation
import Logging
import MediaIngest
import MediaPipeline
import MediaTestSupport
import Testing

/// Clients that break the rules, next to a publisher that keeps them: garbage, half a handshake, a byte a
/// second, a chunk size of 2^31, and 50 idle connections. Each bad one is dropped with a logged reason,
/// the idle ones stay open, and the publisher's stream is recorded whole all the same.
@Suite(.tags(.realTime), .timeLimit(.minutes(2))) struct IngestServerRobustnessTests {
    /// A raw TCP connection to 127.0.0.1.
    final class Client {
        let socket: Int32

        init(port: Int) throws {
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
        }

        deinit { close(socket) }

        func send(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// Whether the server has closed the connection: a read of 0 bytes (or an error), reading and
        /// dropping what it sent before, within `seconds`.
        func isClosed(within seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 8_192)
            while Date() < deadline {
                var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 100) > 0 else { continue }
                if recv(socket, &buffer, buffer.count, 0) <= 0 { return true }
            }
            return false
        }

        /// C0 and C1, then S0, S1 and S2 read, then C2: the handshake done.
        func handshake() {
            send([3] + [UInt8](repeating: 7, count: 1_536))
            var received = 0
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while received < 1 + 2 * 1_536 {
                let count = recv(socket, &buffer, buffer.count, 0)
                if count <= 0 { return }
                received += count
            }
            send([UInt8](repeating: 9, count: 1_536))
        }
    }

    /// The resident memory of this process, in bytes (`VmRSS`).
    static func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1_024
    }

    @Test func badClientsAreDroppedAndNeverStallAPublisher() throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("input.mp4")
        try AVFixture.makeMP4(input, seconds: 2)
        let failures = LockedBox<[String]>([])
        let records = LogRecords()
        var limits = IngestServer.Limits()
        limits.handshakeTimeout = .seconds(2)
        let server = try IngestServerTests.recordingServer(
            into: dir.path, failures: failures, logger: records.logger(level: .info), limits: limits)
        defer { server.stop() }

        let garbage = try Client(port: server.rtmpPort!)
        garbage.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let half = try Client(port: server.rtmpPort!)
        half.send([3] + [UInt8](repeating: 1, count: 700))
        let huge = try Client(port: server.rtmpPort!)
        huge.handshake()
        // Set chunk size 2^31 on chunk stream 2: format 0, length 4, type 1, stream 0.
        huge.send([0x02, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0, 0, 0x80, 0, 0, 0])
        let trickle = try Client(port: server.rtmpPort!)
        let before = Self.residentBytes()
        let idle = try (0..<50).map { _ in try Client(port: server.rtmpPort!) }
        for client in idle { client.handshake() }

        let publisher = try IngestServerTests.publish(
            input, to: "rtmp://127.0.0.1:\(server.rtmpPort!)/live/steady", log: dir.file("steady"))
        var trickled = 0
        let started = Date()
        while publisher.isRunning, Date().timeIntervalSince(started) < 20 {
            trickle.send([trickled == 0 ? 3 : 0])
            trickled += 1
            Thread.sleep(forTimeInterval: 1)
        }
        #expect(publisher.wait(timeout: 10), "the publisher did not end")
        #expect(publisher.result.status == 0, "\(publisher.result.stderr)")
        #expect(garbage.isClosed(within: 2), "the garbage client is still connected")
        #expect(half.isClosed(within: 3), "the half handshake is still connected")
        #expect(huge.isClosed(within: 2), "the 2^31 chunk size is still connected")
        #expect(trickle.isClosed(within: 3), "the trickle is still connected")
        #expect(idle.allSatisfy { !$0.isClosed(within: 0.01) }, "an idle connection was closed")
        #expect(server.connectionCount == 50, "\(server.connectionCount) connections open")
        let growth = Self.residentBytes() - before
        #expect(growth < 32 << 20, "\(growth) bytes more resident with 50 idle connections and a stream")

        try waitUntil("the stream ends", timeout: .seconds(10)) { server.publishedStreams.isEmpty }
        server.stop()
        #expect(failures.value.isEmpty, "\(failures.value)")
        #expect(try ExternalTool.packetCount(dir.file("steady.mkv"), stream: "v:0") == 50)
        let warnings = records.all.filter { $0.level == .warning }.map(\.message)
        for reason in ["version byte 71", "no RTMP handshake within", "set chunk size 2147483648"] {
            #expect(warnings.contains { $0.contains(reason) }, "no warning says '\(reason)': \(warnings)")
        }
        #expect(warnings.filter { $0.contains("no RTMP handshake within") }.count == 2, "\(warnings)")
    }
}
