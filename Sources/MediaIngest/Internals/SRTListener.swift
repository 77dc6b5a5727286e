import CSRT
import Glibc
import Logging
import MediaCore

/// The ingest server's SRT listener: one libsrt listening socket in live mode, whose handshake hook
/// routes and refuses callers by stream ID before they are accepted, an accept thread, and one
/// ``SRTConnection`` thread per accepted caller.
///
/// Threads: libsrt calls the hook on its receiving thread; the accept thread waits on an SRT epoll with
/// a 200 ms timeout so that ``stop()`` ends it within that time; each connection waits for data on an
/// epoll of its own with a 250 ms timeout, for the same reason.
final class SRTListener: @unchecked Sendable {
    // Sendable by construction: `socket`, `port` and `state` are constants; `threads` is a `Locked`;
    // libsrt's calls are thread-safe (its socket handles are integers looked up under libsrt's own
    // locks).
    let socket: SRTSOCKET
    let port: Int
    let state: ServerState
    private let threads = Locked([StageThreadBox]())
    private let stopped = Locked(false)

    /// Binds and listens at `endpoint`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a passphrase of the wrong length,
    ///   ``/MediaCore/MediaError/Code/io`` when the address cannot be bound, naming it and libsrt's reason.
    init(endpoint: IngestServer.SRTEndpoint, state: ServerState) throws(MediaError) {
        if let passphrase = endpoint.passphrase, !(10...79).contains(passphrase.utf8.count) {
            throw MediaError(
                .invalidArgument,
                "an SRT passphrase has 10 to 79 characters; this one has \(passphrase.utf8.count)")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: endpoint.port)).bigEndian
        guard inet_pton(AF_INET, endpoint.host, &address.sin_addr) == 1 else {
            throw MediaError(.invalidArgument, "'\(endpoint.host)' is not an IPv4 address to listen for SRT on")
        }
        srt_startup()
        SRTLog.route(to: state.logger)
        let socket = srt_create_socket()
        let name = "\(endpoint.host):\(endpoint.port)"
        func fail(_ what: String) -> MediaError {
            let error = MediaError(.io, "IngestServer cannot listen for SRT on \(name): \(what): \(Self.lastError)")
            srt_close(socket)
            srt_cleanup()
            return error
        }
        guard socket != SRT_INVALID_SOCK else { throw fail("srt_create_socket") }
        let latency = Int32(
            clamping: endpoint.latency.components.seconds * 1000
                + endpoint.latency.components.attoseconds / 1_000_000_000_000_000)
        guard mp_srt_set_int(socket, SRTO_LATENCY, latency) != SRT_ERROR else { throw fail("SRTO_LATENCY") }
        if let passphrase = endpoint.passphrase {
            guard mp_srt_set_string(socket, SRTO_PASSPHRASE, passphrase) != SRT_ERROR else {
                throw fail("SRTO_PASSPHRASE")
            }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                srt_bind(socket, $0, Int32(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound != SRT_ERROR else { throw fail("bind") }
        var local = sockaddr_in()
        var length = Int32(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_getsockname(socket, $0, &length) }
        }
        self.socket = socket
        self.port = Int(UInt16(bigEndian: local.sin_port))
        self.state = state
        let opaque = Unmanaged.passUnretained(self).toOpaque()  // the listener outlives its socket: stop() closes it
        guard srt_listen_callback(socket, srtHandshakeHook, opaque) != SRT_ERROR else {
            throw fail("srt_listen_callback")
        }
        guard srt_listen(socket, 64) != SRT_ERROR else { throw fail("listen") }
        let thread: StageThread
        do throws(MediaError) {
            thread = try StageThread { [self] in acceptLoop() }
        } catch {
            srt_close(socket)
            srt_cleanup()
            throw error
        }
        threads.withLock { $0.append(StageThreadBox(thread)) }
    }

    /// libsrt's last error on this thread, in words.
    static var lastError: String { String(cString: srt_getlasterror_str()) }

    /// Accepts callers until ``stop()``; each gets a thread of its own.
    private func acceptLoop() {
        let poll = srt_epoll_create()
        defer { srt_epoll_release(poll) }
        var events = Int32(SRT_EPOLL_IN.rawValue | SRT_EPOLL_ERR.rawValue)
        srt_epoll_add_usock(poll, socket, &events)
        while !state.stopping.withLock({ $0 }) {
            var ready: [SRTSOCKET] = [SRT_INVALID_SOCK]
            var count: Int32 = 1
            guard srt_epoll_wait(poll, &ready, &count, nil, nil, 200, nil, nil, nil, nil) > 0 else { continue }
            var peer = sockaddr_storage()
            var length = Int32(MemoryLayout<sockaddr_storage>.size)
            let caller = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_accept(socket, $0, &length) }
            }
            guard caller != SRT_INVALID_SOCK else {
                if !state.stopping.withLock({ $0 }) {
                    state.logger.warning("IngestServer: SRT accept: \(Self.lastError)")
                }
                continue
            }
            let remote = withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddressDescription($0) }
            }
            start(caller, remote: remote)
        }
    }

    /// Starts the connection thread of an accepted caller, or closes it when the server is full.
    private func start(_ caller: SRTSOCKET, remote: String) {
        let limits = state.limits
        let admitted = state.connections.withLock { count -> Bool in
            guard count < limits.connections else { return false }
            count += 1
            return true
        }
        guard admitted else {
            state.logger.warning(
                "IngestServer: dropped SRT caller \(remote): \(MediaError(.limitExceeded, "more than \(limits.connections) connections at once"))"
            )
            srt_close(caller)
            return
        }
        let connection = SRTConnection(socket: caller, remote: remote, state: state)
        do throws(MediaError) {
            let thread = try StageThread {
                connection.run()
                self.state.connections.withLock { $0 -= 1 }
            }
            threads.withLock { $0.append(StageThreadBox(thread)) }
        } catch {
            state.logger.warning("IngestServer: SRT caller \(remote): \(error)")
            state.connections.withLock { $0 -= 1 }
            srt_close(caller)
        }
    }

    /// Why a caller with `streamID` from `remote` is refused, as SRT's rejection code and words; `nil`
    /// to accept it. Called by libsrt during the handshake.
    func refusal(streamID: String, remote: String) -> (code: Int32, reason: String)? {
        if state.stopping.withLock({ $0 }) { return (SRT_REJX_DOWN, "the server is stopping") }
        let request: SRTStreamID
        do throws(MediaError) {
            request = try SRTStreamID(streamID, keyLimit: state.limits.keyLength)
        } catch {
            return (error.code == .limitExceeded ? SRT_REJX_UNACCEPTABLE : SRT_REJX_BAD_REQUEST, error.message)
        }
        guard request.publishes else {
            return (SRT_REJX_BAD_MODE, "stream ID '\(streamID)' asks to play; this server only receives")
        }
        let name = ServerState.name(app: request.app, key: request.key)
        if state.published.withLock({ $0.contains(name) }) {
            return (SRT_REJX_CONFLICT, "'\(name)' is already being published")
        }
        if let reason = state.authorize(
            IngestServer.PublishRequest(app: request.app, key: request.key, remoteAddress: remote))
        {
            return (SRT_REJX_FORBIDDEN, reason)
        }
        return nil
    }

    /// Stops accepting, ends every connection (each stream's sources end) and joins every thread.
    /// The caller has set the server's `stopping`.
    func stop() {
        guard
            stopped.withLock({
                let was = $0; $0 = true; return !was
            })
        else { return }
        // The accept thread and the connections see `stopping` within their 200-250 ms timeouts.
        while true {
            let all = threads.withLock {
                let all = $0; $0 = []; return all
            }
            if all.isEmpty { break }
            for thread in all { thread.join() }
        }
        srt_close(socket)
        srt_cleanup()
    }
}

/// libsrt's listen callback: refuses a caller (returning -1 with a rejection reason) before its
/// handshake completes. `opaque` is the ``SRTListener``.
private func srtHandshakeHook(
    _ opaque: UnsafeMutableRawPointer?, _ socket: SRTSOCKET, _ version: Int32, _ peer: UnsafePointer<sockaddr>?,
    _ streamID: UnsafePointer<CChar>?
) -> Int32 {
    guard let opaque else { return -1 }
    let listener = Unmanaged<SRTListener>.fromOpaque(opaque).takeUnretainedValue()
    let remote = peer.map(socketAddressDescription) ?? "?"
    let id = streamID.map { String(cString: $0) } ?? ""
    guard let (code, reason) = listener.refusal(streamID: id, remote: remote) else { return 0 }
    listener.state.logger.warning("IngestServer: refused SRT caller \(remote) with stream ID '\(id)': \(reason)")
    srt_setrejectreason(socket, code)
    return -1
}

/// `a.b.c.d:port` (or `[v6]:port`) for a socket address.
func socketAddressDescription(_ address: UnsafePointer<sockaddr>) -> String {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
            var ip = v4.pointee.sin_addr
            inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
            return "\(string(fromNulTerminated: text)):\(UInt16(bigEndian: v4.pointee.sin_port))"
        }
    case AF_INET6:
        return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
            var ip = v6.pointee.sin6_addr
            inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
            return "[\(string(fromNulTerminated: text))]:\(UInt16(bigEndian: v6.pointee.sin6_port))"
        }
    default:
        return "?"
    }
}

/// The text of a C string in `characters`, up to its first NUL (all of it without one), as UTF-8.
func string(fromNulTerminated characters: [CChar]) -> String {
    String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
