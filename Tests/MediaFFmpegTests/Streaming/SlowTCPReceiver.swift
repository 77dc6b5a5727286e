import Foundation
import MediaPipeline
import MediaTestSupport

/// A throttled link for the tests: a TCP listener on 127.0.0.1 with a small receive buffer that reads
/// `chunk` bytes every `interval` seconds, keeping everything it read, until the sender closes or
/// `timeout` passes.
final class SlowTCPReceiver: @unchecked Sendable {
    // Sendable: `listener` and the rates are immutable; `received`/`done` live in a LockedBox.
    let port: Int
    private let listener: Int32
    private let chunk: Int
    private let interval: TimeInterval
    private let received = LockedBox(Data())
    private let done = LockedBox(false)

    init(port: Int, chunk: Int, interval: TimeInterval) throws {
        self.port = port
        self.chunk = chunk
        self.interval = interval
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw MediaError(.io, "socket failed") }
        var small: Int32 = 4096
        setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = StreamingSupport.loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 1) == 0 else {
            close(listener)
            throw MediaError(.io, "cannot listen on 127.0.0.1:\(port)")
        }
    }

    deinit { close(listener) }

    /// Starts accepting and reading on a thread of its own, for at most `timeout` seconds.
    func start(timeout: TimeInterval) {
        let thread = Thread { [self] in run(timeout: timeout) }
        thread.start()
    }

    private func run(timeout: TimeInterval) {
        defer { done.value = true }
        let deadline = Date(timeIntervalSinceNow: timeout)
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return }
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: chunk)
        while Date() < deadline {
            var reader = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&reader, 1, 1000) >= 0 else { return }
            if reader.revents == 0 { continue }
            let count = read(connection, &buffer, chunk)
            if count <= 0 { return }  // the sender closed
            received.value.append(contentsOf: buffer[0..<count])
            usleep(UInt32(interval * 1_000_000))
        }
    }

    /// Waits (at most `timeout` seconds) for the sender to close; what arrived.
    func waitForEnd(timeout: TimeInterval) -> (ended: Bool, data: Data) {
        let ended = poll(timeout: .seconds(timeout)) { done.value }
        return (ended, received.value)
    }
}
