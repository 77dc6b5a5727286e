import Foundation
import MediaPulse
import MediaTestSupport
import Testing

/// The connection against a private daemon: it connects, reports what `pactl info` reports, and fails
/// with a typed error naming the server when there is none.
@Suite(.tags(.realTime), .timeLimit(.minutes(10)), .ffmpegLeakGate) struct PulseConnectionTests {
    @Test func connectsAndAgreesWithPactl() throws {
        let daemon = try PulseDaemon()
        let pulse = try PulseConnection(server: daemon.server, clientName: "connect-test", timeout: .seconds(2))
        #expect(pulse.isConnected)
        #expect(pulse.server == daemon.server)
        let info = try pulse.serverInfo()
        let pactl = try daemon.run("pactl", ["info"]).output
        #expect(pactl.contains("Server Version: \(info.serverVersion)"))
        #expect(info.defaultSink == "test")
        #expect(info.defaultSource == "test.monitor")
        // Our client shows in the server's client list under its name.
        #expect(try daemon.run("pactl", ["list", "clients"]).output.contains("connect-test"))
    }

    @Test func noServerIsUnavailableAndNamesIt() throws {
        let folder = try TemporaryDirectory()
        let server = "unix:" + folder.file("no-such-socket")
        // It fails at once, from the connect call itself, not by waiting out the 2 s for an answer:
        // the error is the refused connection's, not the timeout's.
        #expect {
            _ = try PulseConnection(server: server, timeout: .seconds(2))
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return error.code == .unavailable && error.message.contains(server)
                && error.message.contains("pa_context_connect") && !error.message.contains("no answer within")
        }
    }

    @Test func silentServerTimesOut() throws {
        // A socket that accepts connections and never answers: libpulse waits for the handshake.
        let folder = try TemporaryDirectory()
        let path = folder.file("silent")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0 && listen(listener, 4) == 0)
        let started = ContinuousClock.now
        #expect {
            _ = try PulseConnection(server: "unix:" + path, timeout: .milliseconds(500))
        } throws: { error in
            guard let error = error as? MediaError else { return false }
            return error.code == .unavailable
                && error.message.contains("no answer within \(Duration.milliseconds(500))")
                && error.message.contains(path)
        }
        // libpulse did connect (the connection waits in the listener's queue) and got no answer.
        #expect(accept(listener, nil, nil) >= 0)
        // It waited out the timeout asked for. One-sided on purpose: a loaded machine only makes the
        // wait longer, so this cannot fail for slowness; no upper bound is asserted.
        #expect(ContinuousClock.now - started >= .milliseconds(450))
    }

    @Test func serverGoingAwayDisconnects() throws {
        let daemon = try PulseDaemon()
        let pulse = try PulseConnection(server: daemon.server)
        daemon.stop()
        #expect(poll { !pulse.isConnected }, "the connection did not notice the daemon going away")
        #expect {
            _ = try pulse.serverInfo(timeout: .seconds(1))
        } throws: { error in (error as? MediaError)?.code == .deviceLost }
    }
}
