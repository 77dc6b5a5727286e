public import Logging
public import MediaCore
public import MediaFormats
import NIOCore
import NIOPosix

/// A server that receives live streams: RTMP publishers (FFmpeg's `-f flv rtmp://…`, OBS, GStreamer's
/// `rtmp2sink`) and SRT callers sending MPEG-TS (`srt-live-transmit`, FFmpeg's `-f mpegts srt://…`,
/// OBS), each stream handed to a graph of the caller's. nginx-rtmp's `application live` in a library,
/// as GStreamer's `rtmp2src` and `srtsrc mode=listener` would be with one listener for many publishers.
///
/// ```swift
/// let server = try IngestServer(rtmp: .init(host: "127.0.0.1", port: 1935), srt: .init(port: 9000)) { stream in
///     // a thread of the stream's own: build a graph from stream.audioSource()/videoSource() and run it
/// }
/// print("publish to rtmp://127.0.0.1:\(server.rtmpPort!)/live/KEY or srt://127.0.0.1:9000?streamid=KEY")
/// server.stop()
/// ```
///
/// The contract:
/// - **Event-driven**: one swift-nio event loop serves every connection; the protocol is
///   ``/MediaFormats/RTMPChunkParser``, ``/MediaFormats/AMF0Value`` and ``/MediaFormats/FLVSampleReader``.
///   A slow or idle connection holds nothing but its own bounded buffers, so it never stalls another.
/// - **Publishers, routed by application and key**: several at once; a key already being published, an
///   empty key, a key over ``Limits/keyLength`` or one the `authorize` closure refuses is answered with `onStatus`
///   `NetStream.Publish.BadName` at level `error` (FFmpeg then exits with "Server error") and the
///   connection is closed. Players are refused.
/// - **SRT callers, routed by stream ID**: libsrt's listener in live mode, several callers at once, each
///   read on a thread of its own. The stream ID is SRT's access-control form (`#!::r=live/cam1,m=publish`)
///   or a plain name (`live/cam1`, `cam1`): the part after the last `/` is the key, the part before it the
///   application (empty when there is none). The same refusals as RTMP's, and `m=request` (a player), are
///   answered in the handshake with SRT's rejection codes (`SRT_REJX_FORBIDDEN`, `SRT_REJX_CONFLICT`,
///   `SRT_REJX_BAD_MODE`, ...), so the caller's connect fails ("Connection setup failure: ... rejected");
///   with ``SRTEndpoint/passphrase`` set, a caller without it is refused by libsrt. The MPEG-TS is read by
///   ``/MediaFFmpeg/ContainerDemuxer`` as it arrives: its first audio and first video stream become the
///   stream's tracks, times in 90 kHz.
/// - **One handler call per stream**, on a thread of the stream's own, once its tracks are known (see
///   ``IngestStream``). The handler may run the stream's graph to its end there; ``stop()`` waits for
///   every handler to return.
/// - **Limits, each a logged reason and a closed connection**: ``Limits/connections`` at once, a
///   handshake within ``Limits/handshakeTimeout``, the chunk parser's ``Limits/chunks`` (message
///   length, chunk size, chunk streams, partial bytes), and ``Limits/bufferedBytes`` of samples queued
///   for a graph that does not keep up (its sources then throw ``/MediaCore/MediaError/Code/limitExceeded``).
/// - Every connection dropped, refused or failed is logged at `warning` with its address and why;
///   a stream published and ended at `info`.
public final class IngestServer: Sendable {
    /// Where the RTMP listener listens.
    public struct Endpoint: Sendable, Hashable {
        /// The address to bind (default `127.0.0.1`).
        public var host: String
        /// The port (default 1935; 0 for one the system picks: read ``IngestServer/rtmpPort``).
        public var port: Int

        /// `host:port`.
        public init(host: String = "127.0.0.1", port: Int = 1935) {
            self.host = host
            self.port = port
        }
    }

    /// Where the SRT listener listens, and how.
    public struct SRTEndpoint: Sendable, Hashable {
        /// The IPv4 address to bind (default `127.0.0.1`).
        public var host: String
        /// The UDP port (default 9000; 0 for one the system picks: read ``IngestServer/srtPort``).
        public var port: Int
        /// The passphrase callers must give (10 to 79 characters; the stream is then encrypted, AES as
        /// the caller asks), or `nil` (default) for none.
        public var passphrase: String?
        /// SRT's receive latency (default 120 ms, libsrt's): how long a lost packet may take to be
        /// sent again before it is dropped.
        public var latency: Duration

        /// `host:port`, with a passphrase or none.
        public init(
            host: String = "127.0.0.1", port: Int = 9000, passphrase: String? = nil,
            latency: Duration = .milliseconds(120)
        ) {
            self.host = host
            self.port = port
            self.passphrase = passphrase
            self.latency = latency
        }
    }

    /// What a peer may make the server hold.
    public struct Limits: Sendable, Hashable {
        /// Connections open at once (default 256); one more is closed at once.
        public var connections = 256
        /// The longest stream key, in UTF-8 bytes (default 256).
        public var keyLength = 256
        /// The time a new connection has to complete the RTMP handshake (default 10 s).
        public var handshakeTimeout: Duration = .seconds(10)
        /// How long an accepted SRT caller may send nothing before it is dropped (default 10 s). libsrt
        /// itself drops a caller it has not heard from, keep-alives included, for 5 s.
        public var idleTimeout: Duration = .seconds(10)
        /// What one connection's chunk parser may hold.
        public var chunks = RTMPChunkParserLimits()
        /// The samples queued for one stream's graph, in bytes (default 32 MiB: about 2 minutes of a
        /// 2 Mb/s stream).
        public var bufferedBytes = 32 << 20

        /// The defaults.
        public init() {}
    }

    /// A publisher (or SRT caller) asking to publish, for ``IngestServer/init(rtmp:srt:limits:logger:authorize:onStream:)``'s
    /// `authorize`.
    public struct PublishRequest: Sendable, Hashable {
        /// The application (`live`).
        public var app: String
        /// The stream key.
        public var key: String
        /// The publisher's address.
        public var remoteAddress: String
    }

    let state: ServerState
    private let group: MultiThreadedEventLoopGroup?
    private let listener: (any Channel)?
    private let srtListener: SRTListener?
    /// The port the RTMP listener is bound to (the one the system chose when asked for 0); `nil` when the
    /// server does not listen for RTMP.
    public let rtmpPort: Int?
    /// The UDP port the SRT listener is bound to (the one the system chose when asked for 0); `nil` when
    /// the server does not listen for SRT.
    public let srtPort: Int?

    /// Starts listening for RTMP publishers, SRT callers, or both.
    ///
    /// - Parameters:
    ///   - rtmp: where to listen for RTMP (TCP); `nil` for no RTMP listener.
    ///   - srt: where to listen for SRT (UDP); `nil` (default) for no SRT listener.
    ///   - limits: what a peer may make the server hold.
    ///   - logger: where connections, refusals and drops are logged.
    ///   - authorize: `nil` to accept a publisher, else why it is refused (sent to it as the status's
    ///     `description`). Called on the event loop: answer quickly. Default: accept every key.
    ///   - onStream: called once per published stream, on a thread of its own (see ``IngestStream``).
    /// - Throws: ``/MediaCore/MediaError/Code/io`` when an address cannot be bound, naming it;
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` with neither listener, or for an SRT passphrase not
    ///   of 10 to 79 characters.
    public init(
        rtmp: Endpoint? = Endpoint(), srt: SRTEndpoint? = nil, limits: Limits = Limits(),
        logger: Logger = Logger(label: "MediaIngest"),
        authorize: @escaping @Sendable (PublishRequest) -> String? = { _ in nil },
        onStream: @escaping @Sendable (IngestStream) -> Void
    ) throws(MediaError) {
        guard rtmp != nil || srt != nil else {
            throw MediaError(.invalidArgument, "an IngestServer needs an RTMP or an SRT endpoint to listen on")
        }
        let state = ServerState(limits: limits, logger: logger, authorize: authorize, onStream: onStream)
        self.state = state
        if let srt {
            let listener = try SRTListener(endpoint: srt, state: state)
            srtListener = listener
            srtPort = listener.port
            logger.info("IngestServer: SRT on \(srt.host):\(listener.port)")
        } else {
            srtListener = nil
            srtPort = nil
        }
        guard let rtmp else {
            group = nil
            listener = nil
            rtmpPort = nil
            return
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // Reads of up to 256 KiB (from 16 KiB) rather than NIO's 2 KiB start: a publisher's video
            // message is several KiB, and each read is a system call.
            .childChannelOption(
                .recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 4_096, initial: 16_384, maximum: 262_144)
            )
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RTMPChannelHandler(state: state))
                }
            }
        let listener: any Channel
        do {
            listener = try bootstrap.bind(host: rtmp.host, port: rtmp.port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            state.stopping.withLock { $0 = true }
            srtListener?.stop()
            throw MediaError(.io, "IngestServer cannot listen for RTMP on \(rtmp.host):\(rtmp.port): \(error)")
        }
        self.listener = listener
        let rtmpPort = listener.localAddress?.port ?? rtmp.port
        self.rtmpPort = rtmpPort
        logger.info("IngestServer: RTMP on \(rtmp.host):\(rtmpPort)")
    }

    /// Streams being published now, as `app/key` (`key` alone for an SRT stream ID without an
    /// application).
    public var publishedStreams: [String] { state.published.withLock { $0.sorted() } }

    /// The streams handed over and not yet ended, by name (`app/key`) order.
    public var streams: [IngestStream] {
        state.active.withLock { active in active.keys.sorted().compactMap { active[$0] } }
    }

    /// Connections open now.
    public var connectionCount: Int { state.connections.withLock { $0 } }

    /// Stops listening, closes every connection (each stream's sources end) and waits for every stream's
    /// handler to return. Idempotent.
    public func stop() {
        guard
            state.stopping.withLock({
                let was = $0; $0 = true; return !was
            })
        else { return }
        try? listener?.close().wait()
        let open = state.channels.withLock { Array($0.values) }
        for channel in open { try? channel.close().wait() }
        try? group?.syncShutdownGracefully()
        srtListener?.stop()
        for thread in state.takeHandlerThreads() { thread.join() }
    }

    deinit { stop() }
}

/// The chunk parser's limits, as ``IngestServer/Limits/chunks`` takes them.
public typealias RTMPChunkParserLimits = RTMPChunkParser.Limits

/// What the connections of one server share.
final class ServerState: Sendable {
    let limits: IngestServer.Limits
    let logger: Logger
    let authorize: @Sendable (IngestServer.PublishRequest) -> String?
    let onStream: @Sendable (IngestStream) -> Void
    let connections = Locked(0)
    let published = Locked(Set<String>())
    let stopping = Locked(false)
    let channels = Locked([ObjectIdentifier: any Channel]())
    /// The streams handed over and not yet ended, by `app/key`.
    let active = Locked([String: IngestStream]())
    private let handlerThreads = Locked([StageThreadBox]())

    init(
        limits: IngestServer.Limits, logger: Logger,
        authorize: @escaping @Sendable (IngestServer.PublishRequest) -> String?,
        onStream: @escaping @Sendable (IngestStream) -> Void
    ) {
        self.limits = limits
        self.logger = logger
        self.authorize = authorize
        self.onStream = onStream
    }

    /// A stream's name: `app/key`, or `key` without an application (an SRT stream ID without `/`).
    static func name(app: String, key: String) -> String { app.isEmpty ? key : "\(app)/\(key)" }

    /// Runs the handler for `stream` on a thread of its own; the tracks no source was made for are
    /// dropped once it returns.
    func hand(_ stream: IngestStream) {
        let onStream = onStream
        active.withLock { $0[Self.name(app: stream.app, key: stream.key)] = stream }
        do throws(MediaError) {
            let thread = try StageThread {
                onStream(stream)
                stream.queue.keepSelected()
            }
            handlerThreads.withLock { $0.append(StageThreadBox(thread)) }
        } catch {
            logger.warning("IngestServer: \(stream.app)/\(stream.key): \(error)")
            stream.queue.finish(error)
        }
    }

    func takeHandlerThreads() -> [StageThreadBox] {
        handlerThreads.withLock {
            let all = $0; $0 = []; return all
        }
    }
}

/// A handler's thread, joined by ``IngestServer/stop()``.
final class StageThreadBox: @unchecked Sendable {
    // Sendable by construction: `join()` is the only call made on the thread, by `stop()` alone (after
    // taking the box out of the shared list under its lock), and StageThread's join is itself safe to
    // call from any thread once.
    private let thread: StageThread
    init(_ thread: StageThread) { self.thread = thread }
    func join() { thread.join() }
}
