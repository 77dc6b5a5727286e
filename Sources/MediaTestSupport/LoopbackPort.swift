public import Foundation
import MediaCore

/// Loopback ports for the servers and receivers the tests start (127.0.0.1 only).
public enum LoopbackPort {
    /// A port from 20000 up to the kernel's ephemeral range that is free on 127.0.0.1 for both TCP and UDP
    /// now. Below the ephemeral range (32768 and up here), so that no process's outgoing socket is given
    /// it between this check and the test's bind (an SRT listener once failed with "Address already in use").
    public static func free() throws -> Int {
        let ephemeral =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32_768
        let highest = max(ephemeral - 1, 20_100)
        for _ in 0..<200 {
            let port = Int.random(in: 20_000...highest)
            if isFree(port, udp: false) && isFree(port, udp: true) { return port }
        }
        throw MediaError(.io, "no free port found above 20000")
    }

    /// Whether `port` can be bound on 127.0.0.1 (for UDP: whether a receiver has bound it yet).
    public static func isFree(_ port: Int, udp: Bool) -> Bool {
        let fd = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = address(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// 127.0.0.1:`port`.
    public static func address(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
