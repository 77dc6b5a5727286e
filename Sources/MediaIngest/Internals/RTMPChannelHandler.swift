import Logging
import MediaCore
import MediaFormats
import NIOCore

/// One RTMP connection on the server's event loop: feeds what the socket reads to an
/// ``RTMPServerSession``, writes what it answers, turns the published stream's messages into samples
/// (``FLVSampleReader``) and queues them for the stream's graph. Every failure closes the connection
/// with a logged reason. Confined to its channel's event loop, as every NIO handler.
final class RTMPChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A published stream not yet handed over, or handed over.
    private struct Publishing {
        var app: String
        var key: String
        var metadata: [AMF0Property] = []
        var expectsAudio = false
        var expectsVideo = false
        var reader = FLVSampleReader()
        let queue: IngestQueue
        var stream: IngestStream?
    }

    private let state: ServerState
    private var session: RTMPServerSession!
    private var publishing: Publishing?
    private var remote = "?"
    private var counted = false
    private var closing = false
    private var handshakeTimer: Scheduled<Void>?

    init(state: ServerState) {
        self.state = state
    }

    func channelActive(context: ChannelHandlerContext) {
        remote = context.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
        let limits = state.limits
        let state = state
        let remote = remote
        session = RTMPServerSession(keyLimit: limits.keyLength, limits: limits.chunks) { request in
            let name = "\(request.app)/\(request.key)"
            if state.published.withLock({ $0.contains(name) }) { return "'\(name)' is already being published" }
            return state.authorize(
                IngestServer.PublishRequest(app: request.app, key: request.key, remoteAddress: remote))
        }
        let admitted = state.connections.withLock { count -> Bool in
            guard count < limits.connections else { return false }
            count += 1
            return true
        }
        guard admitted, !state.stopping.withLock({ $0 }) else {
            drop(context, MediaError(.limitExceeded, "more than \(limits.connections) connections at once"))
            return
        }
        counted = true
        state.channels.withLock { $0[ObjectIdentifier(self)] = context.channel }
        let seconds = Int64(limits.handshakeTimeout.components.seconds)
        let nanoseconds = seconds * 1_000_000_000 + limits.handshakeTimeout.components.attoseconds / 1_000_000_000
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        handshakeTimer = context.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
            let (handler, context) = loopBound.value
            guard handler.publishing == nil, !handler.session.isPastHandshake else { return }
            handler.drop(context, MediaError(.timedOut, "no RTMP handshake within \(limits.handshakeTimeout)"))
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let buffer = unwrapInboundIn(data)
        let bytes = Array(buffer.readableBytesView)
        do throws(MediaError) {
            let events = try session.receive(bytes)
            for event in events { try carry(event, context) }
            if session.bufferedBytes > state.limits.chunks.partialBytes + 65_536 {
                throw MediaError(.limitExceeded, "\(session.bufferedBytes) bytes buffered for one connection")
            }
        } catch {
            drop(context, error)
        }
    }

    private func carry(_ event: RTMPServerSession.Event, _ context: ChannelHandlerContext) throws(MediaError) {
        switch event {
        case .send(let bytes):
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        case .published(let app, let key):
            let name = "\(app)/\(key)"
            let taken = state.published.withLock { names -> Bool in
                if names.contains(name) { return true }
                names.insert(name)
                return false
            }
            if taken {
                // The session accepted it; the server knows it is already published: refuse it now.
                throw MediaError(.invalidArgument, "'\(name)' is already being published")
            }
            publishing = Publishing(app: app, key: key, queue: IngestQueue(byteLimit: state.limits.bufferedBytes))
            state.logger.info("IngestServer: \(remote) publishes \(name)")
        case .metadata(let properties):
            publishing?.metadata = properties
            publishing?.expectsAudio = properties.contains { $0.key == "audiocodecid" }
            publishing?.expectsVideo = properties.contains { $0.key == "videocodecid" }
        case .media(let message):
            try media(message)
        case .unpublished:
            endStream(nil)
        case .close(let reason):
            closing = true
            state.logger.warning("IngestServer: \(remote): \(reason)")
            context.close(promise: nil)
        }
    }

    /// Turns a media message into a sample, hands the stream over once its tracks are known, queues.
    private func media(_ message: RTMPMessage) throws(MediaError) {
        guard var current = publishing else { return }
        let sample =
            message.type == .audio
            ? try current.reader.audio(message.payload, timestamp: message.timestamp, at: message.byteOffset)
            : try current.reader.video(message.payload, timestamp: message.timestamp, at: message.byteOffset)
        if current.stream == nil {
            let audioKnown = current.reader.audioFormat != nil
            let videoKnown = current.reader.videoFormat != nil
            let announced = current.expectsAudio || current.expectsVideo
            let ready =
                announced
                ? (!current.expectsAudio || audioKnown) && (!current.expectsVideo || videoKnown)
                : sample != nil
            if ready {
                let stream = IngestStream(
                    app: current.app, key: current.key, remoteAddress: remote, metadata: current.metadata,
                    audioFormat: current.reader.audioFormat, videoFormat: current.reader.videoFormat,
                    queue: current.queue)
                current.stream = stream
                state.hand(stream)
            }
        }
        publishing = current
        guard let sample else { return }
        let track: IngestQueue.Track = message.type == .audio ? .audio : .video
        guard current.queue.put(sample, on: track) else {
            throw MediaError(
                .limitExceeded,
                "the graph of \(current.app)/\(current.key) did not keep up: \(current.queue.byteLimit) bytes queued")
        }
    }

    /// Ends the published stream (its sources end, or throw `error`).
    private func endStream(_ error: MediaError?) {
        guard let current = publishing else { return }
        publishing = nil
        current.queue.finish(error)
        _ = state.published.withLock { $0.remove("\(current.app)/\(current.key)") }
        _ = state.active.withLock { $0.removeValue(forKey: "\(current.app)/\(current.key)") }
        if current.stream == nil, error == nil {
            state.logger.info("IngestServer: \(current.app)/\(current.key) ended before any coded frame")
        } else {
            state.logger.info("IngestServer: \(current.app)/\(current.key) ended")
        }
    }

    private func drop(_ context: ChannelHandlerContext, _ error: MediaError) {
        guard !closing else { return }
        closing = true
        state.logger.warning("IngestServer: dropped \(remote): \(error)")
        endStream(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handshakeTimer?.cancel()
        endStream(nil)
        if counted {
            counted = false
            state.connections.withLock { $0 -= 1 }
            state.channels.withLock { $0[ObjectIdentifier(self)] = nil }
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        drop(context, MediaError(.io, "\(error)"))
    }
}
