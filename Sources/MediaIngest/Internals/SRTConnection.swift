import CSRT
import Glibc
import Logging
import MediaCore
import MediaFFmpeg

/// One accepted SRT caller, on a thread of its own: reads its MPEG-TS as it arrives (a
/// ``/MediaFFmpeg/ContainerDemuxer`` over the socket's messages), hands the stream over once the
/// demuxer knows its tracks, and queues every sample of its first audio and first video stream for the
/// stream's graph. Ends when the caller closes or is lost, when nothing arrives for
/// ``IngestServer/Limits/idleTimeout``, when the graph does not keep up, or at the server's stop.
final class SRTConnection: @unchecked Sendable {
    // Sendable by construction: made by the accept thread and then used only by the connection's own
    // thread (`run()`); `socket` is an integer handle libsrt's calls look up under their own locks.
    private let socket: SRTSOCKET
    private let remote: String
    private let state: ServerState
    /// An SRT epoll watching `socket` for data and errors.
    private let poll: Int32

    init(socket: SRTSOCKET, remote: String, state: ServerState) {
        self.socket = socket
        self.remote = remote
        self.state = state
        poll = srt_epoll_create()
        var events = Int32(SRT_EPOLL_IN.rawValue | SRT_EPOLL_ERR.rawValue)
        srt_epoll_add_usock(poll, socket, &events)
    }

    /// Reads the caller's stream to its end, then closes the socket.
    func run() {
        defer {
            srt_epoll_release(poll)
            srt_close(socket)
        }
        var buffer = [CChar](repeating: 0, count: 1_024)
        let length = mp_srt_stream_id(socket, &buffer, Int32(buffer.count))
        let streamID = length > 0 ? string(fromNulTerminated: buffer) : ""
        guard let request = try? SRTStreamID(streamID, keyLimit: state.limits.keyLength) else { return }
        let name = ServerState.name(app: request.app, key: request.key)
        // The handshake hook checked the name; another caller may have taken it since.
        let taken = state.published.withLock { names -> Bool in
            names.insert(name).inserted == false
        }
        if taken {
            state.logger.warning("IngestServer: dropped SRT caller \(remote): '\(name)' is already being published")
            return
        }
        defer { _ = state.published.withLock { $0.remove(name) } }
        state.logger.info("IngestServer: SRT caller \(remote) publishes \(name)")
        let queue = IngestQueue(byteLimit: state.limits.bufferedBytes)
        let error = demux(name: name, request: request, queue: queue)
        queue.finish(error)
        _ = state.active.withLock { $0.removeValue(forKey: name) }
        if let error {
            state.logger.warning("IngestServer: dropped SRT caller \(remote) (\(name)): \(error)")
        } else {
            state.logger.info("IngestServer: \(name) ended")
        }
    }

    /// Demuxes the caller's MPEG-TS into `queue`; the error that ended it, `nil` at a normal end.
    private func demux(name: String, request: SRTStreamID, queue: IngestQueue) -> MediaError? {
        do throws(MediaError) {
            let demuxer = try ContainerDemuxer(formatName: "mpegts", inputName: "SRT stream '\(name)' from \(remote)") {
                [self] buffer throws(MediaError) in try receive(into: buffer)
            }
            // A packet SRT could not recover in time damages one sample: drop it with a warning, as ffmpeg does.
            let logger = state.logger
            demuxer.onDamagedPacket = { error in
                logger.warning("IngestServer: \(name): dropped a damaged packet: \(error)")
            }
            let audio = demuxer.firstAudioStream
            let video = demuxer.firstVideoStream
            guard audio != nil || video != nil else {
                throw MediaError(.unsupportedFormat, "SRT stream '\(name)' carries no audio or video stream")
            }
            var sources: [ContainerDemuxer.StreamSource] = []
            for index in [audio, video].compactMap({ $0 }) { sources.append(try demuxer.source(stream: index)) }
            let stream = IngestStream(
                app: request.app, key: request.key, remoteAddress: remote, metadata: [],
                audioFormat: audio.flatMap { demuxer.streams[$0].format?.audio },
                videoFormat: video.flatMap { demuxer.streams[$0].format?.video }, queue: queue, transport: .srt)
            state.hand(stream)
            while let (index, sample) = try demuxer.nextSample() {
                guard queue.put(sample, on: index == audio ? .audio : .video) else {
                    throw MediaError(
                        .limitExceeded, "the graph of \(name) did not keep up: \(queue.byteLimit) bytes queued")
                }
            }
            withExtendedLifetime(sources) {}
            return nil
        } catch {
            return error
        }
    }

    /// One SRT message (live mode: up to 1,456 bytes) into `buffer`; 0 when the caller closed or was
    /// lost, or when the server stops. Waits on an SRT epoll in steps of 250 ms, so that a stop is seen
    /// within that time (a receive timeout would do the same, but libsrt 1.5 logs a warning at each).
    private func receive(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self) else { return 0 }
        let idle = state.limits.idleTimeout
        let limit = idle.components.seconds * 1_000 + idle.components.attoseconds / 1_000_000_000_000_000
        var waited: Int64 = 0
        while !state.stopping.withLock({ $0 }) {
            var ready: [SRTSOCKET] = [SRT_INVALID_SOCK, SRT_INVALID_SOCK]
            var readable: Int32 = 2
            var broken: [SRTSOCKET] = [SRT_INVALID_SOCK, SRT_INVALID_SOCK]
            var failed: Int32 = 2
            if srt_epoll_wait(poll, &ready, &readable, &broken, &failed, 250, nil, nil, nil, nil) > 0 {
                let count = srt_recvmsg(socket, base, Int32(clamping: buffer.count))
                if count > 0 { return Int(count) }
                return 0  // closed or lost: the end of the stream
            }
            waited += 250
            if waited >= limit {
                throw MediaError(.timedOut, "nothing arrived for \(idle)")
            }
        }
        return 0
    }
}
