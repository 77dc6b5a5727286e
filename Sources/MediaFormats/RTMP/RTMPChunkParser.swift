public import MediaBitstream
public import MediaCore

/// A push parser for an RTMP chunk stream (the bytes of a connection after its handshake): give it
/// bytes as they arrive and take out whole ``RTMPMessage``s.
///
/// ```swift
/// var parser = RTMPChunkParser()
/// parser.push(received)
/// while let message = try parser.next() { handle(message) }
/// ```
///
/// The contract, RTMP 1.0 section 5.3:
/// - Chunk headers of each format: 0 (absolute timestamp, length, type, stream), 1 (timestamp delta,
///   length, type), 2 (delta), 3 (nothing: the message continues, or a new one repeats the last header
///   and delta). Basic headers of 1, 2 and 3 bytes (chunk stream IDs 2 to 65,599). An extended
///   timestamp (4 bytes) follows when the 3-byte field is 0xFFFFFF, in the continuation chunks too, as
///   FFmpeg and librtmp write them.
/// - A ``RTMPMessage/MessageType/setChunkSize`` message takes effect for the bytes after it, and is
///   also handed out; ``RTMPMessage/MessageType/abort`` drops the named chunk stream's partial message.
/// - Messages of different chunk streams may be interleaved chunk by chunk; each comes out when its last
///   chunk has arrived.
/// - Nothing here resynchronises: a connection that breaks the rules cannot be trusted further. The
///   first error is thrown again by every later call (the server closes the connection).
/// - ``finish()`` with a message or a chunk cut off: ``next()`` throws
///   ``/MediaCore/MediaError/Code/truncated``.
///
/// Memory is bounded by ``Limits``: a message's declared length, the chunk size a peer sets, the chunk
/// streams in use and the bytes of all partial messages together; past one, ``next()`` throws
/// ``/MediaCore/MediaError/Code/limitExceeded`` with the offset of the chunk that went past it. Errors
/// carry byte offsets counted from the first byte pushed.
public struct RTMPChunkParser: PushParser {
    /// What a peer may make the parser hold.
    public struct Limits: Sendable, Hashable {
        /// The longest message (default 4 MiB; RTMP's field allows 16 MiB − 1).
        public var messageLength: Int = 4 << 20
        /// The largest chunk size a peer may set (default 1 MiB; RTMP allows 2^31 − 1).
        public var chunkSize: Int = 1 << 20
        /// Chunk streams with a header (default 64; a publisher uses 3 to 6).
        public var chunkStreams: Int = 64
        /// The bytes of every partial message together (default 8 MiB).
        public var partialBytes: Int = 8 << 20

        /// The defaults.
        public init() {}
    }

    /// What the parser knows of one chunk stream: its last header and its message in progress.
    private struct ChunkStream {
        var timestamp: UInt32 = 0
        /// The last timestamp field (absolute after format 0, a delta after 1 and 2): a format-3 chunk
        /// starting a message adds it again.
        var timestampField: UInt32 = 0
        var extended = false
        var length = 0
        var type = RTMPMessage.MessageType(rawValue: 0)
        var streamID: UInt32 = 0
        var partial: [UInt8]?
        var messageStart: Int64 = 0
    }

    /// The limits in force.
    public let limits: Limits
    /// The chunk size the peer sends with (128 until it sets another).
    public private(set) var chunkSize = 128

    private var buffer: [UInt8] = []
    private var head = 0
    /// The offset of `buffer[head]` in the connection.
    private var consumed: Int64 = 0
    private var streams: [UInt32: ChunkStream] = [:]
    private var partialBytes = 0
    private var finished = false
    private var misuse = false
    private var failure: MediaError?

    /// A parser with `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes pushed and not yet parsed (at most a chunk and its header while the caller takes out
    /// every message).
    public var bufferedBytes: Int { buffer.count - head + partialBytes }

    /// Appends the next bytes of the connection.
    public mutating func push(_ bytes: some Collection<UInt8>) {
        if finished, !bytes.isEmpty { misuse = true }
        if head > 65_536, head * 2 > buffer.count {
            buffer.removeFirst(head)
            head = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Says that the connection has ended.
    public mutating func finish() { finished = true }

    /// The next whole message, or `nil` when more bytes are needed (or, after ``finish()``, at the end).
    public mutating func next() throws(MediaError) -> RTMPMessage? {
        if let failure { throw failure }
        if misuse {
            throw MediaError(.invalidArgument, "RTMPChunkParser: bytes were pushed after finish()")
        }
        do throws(MediaError) {
            while true {
                guard let (message, used) = try chunk() else {
                    if finished, head < buffer.count || partialBytes > 0 {
                        let cut = head < buffer.count ? "a chunk" : "a message"
                        throw MediaError.truncated(
                            "RTMP \(cut) cut off by the end of the connection", needed: 1, available: 0,
                            at: consumed)
                    }
                    return nil
                }
                head += used
                consumed += Int64(used)
                if let message {
                    try apply(message)
                    return message
                }
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// Protocol control that changes how the next bytes are read.
    private mutating func apply(_ message: RTMPMessage) throws(MediaError) {
        switch message.type {
        case .setChunkSize:
            guard message.payload.count >= 4 else {
                throw MediaError.invalidData(
                    "RTMP set chunk size of \(message.payload.count) bytes", at: message.byteOffset)
            }
            let value = message.payload.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard value & 0x8000_0000 == 0, value > 0 else {
                throw MediaError.invalidData(
                    "RTMP set chunk size \(value): it must be 1 to 2^31 − 1 (top bit 0)", at: message.byteOffset)
            }
            guard Int(value) <= limits.chunkSize else {
                throw MediaError(
                    .limitExceeded, "RTMP set chunk size \(value) is over the limit of \(limits.chunkSize)",
                    byteOffset: message.byteOffset)
            }
            chunkSize = Int(value)
        case .abort:
            guard message.payload.count >= 4 else {
                throw MediaError.invalidData("RTMP abort of \(message.payload.count) bytes", at: message.byteOffset)
            }
            let id = message.payload.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if let partial = streams[id]?.partial {
                partialBytes -= partial.count
                streams[id]?.partial = nil
            }
        default: break
        }
    }

    /// Reads one chunk if it is all there: the message it completes (if any) and the bytes it took;
    /// `nil` when the chunk is not all there yet.
    private mutating func chunk() throws(MediaError) -> (RTMPMessage?, Int)? {
        let available = buffer.count - head
        guard available >= 1 else { return nil }
        let start = consumed
        var position = head
        func byte() -> UInt32 {
            defer { position += 1 }
            return UInt32(buffer[position])
        }
        func has(_ count: Int) -> Bool { buffer.count - position >= count }
        func big(_ count: Int) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<count { value = value << 8 | byte() }
            return value
        }
        let first = byte()
        let format = first >> 6
        var id = first & 0x3F
        if id == 0 {
            guard has(1) else { return nil }
            id = byte() + 64
        } else if id == 1 {
            guard has(2) else { return nil }
            let low = byte()
            id = byte() * 256 + low + 64
        }
        guard id >= 2 else {
            throw MediaError.invalidData("RTMP chunk stream ID \(id) is reserved", at: start)
        }
        let headerSizes: [Int] = [11, 7, 3, 0]
        guard has(headerSizes[Int(format)]) else { return nil }
        var stream = streams[id] ?? ChunkStream()
        let known = streams[id] != nil
        if !known {
            guard format == 0 else {
                throw MediaError.invalidData(
                    "RTMP chunk stream \(id) starts with a format-\(format) header, which continues a header it never sent",
                    at: start)
            }
            guard streams.count < limits.chunkStreams else {
                throw MediaError(
                    .limitExceeded, "RTMP connection uses more than \(limits.chunkStreams) chunk streams",
                    byteOffset: start)
            }
        }
        let continuing = format == 3 && stream.partial != nil
        if format != 3, stream.partial != nil {
            throw MediaError.invalidData(
                "RTMP chunk stream \(id) starts a new message before its last one (\(stream.type)) is whole", at: start)
        }
        var field: UInt32 = stream.timestampField
        if format <= 2 {
            field = big(3)
            if format <= 1 {
                stream.length = Int(big(3))
                stream.type = RTMPMessage.MessageType(rawValue: UInt8(byte()))
            }
            if format == 0 {
                stream.streamID = byte() | byte() << 8 | byte() << 16 | byte() << 24  // little-endian, alone in RTMP
            }
            stream.extended = field == 0xFF_FFFF
        }
        if stream.extended {
            guard has(4) else { return nil }
            field = big(4)
        }
        let header = position - head
        let received = stream.partial?.count ?? 0
        let size = min(chunkSize, stream.length - received)
        guard has(size) else { return nil }
        if !continuing {
            guard stream.length <= limits.messageLength else {
                throw MediaError(
                    .limitExceeded,
                    "RTMP \(stream.type) message of \(stream.length) bytes is over the limit of \(limits.messageLength)",
                    byteOffset: start)
            }
            switch format {
            case 0: stream.timestamp = field
            default: stream.timestamp &+= field
            }
            stream.timestampField = field
            stream.messageStart = start
            stream.partial = []
            stream.partial?.reserveCapacity(min(stream.length, 65_536))  // grows with what arrives
        }
        guard partialBytes + size <= limits.partialBytes else {
            throw MediaError(
                .limitExceeded,
                "RTMP partial messages would hold more than \(limits.partialBytes) bytes", byteOffset: start)
        }
        stream.partial?.append(contentsOf: buffer[position..<position + size])
        partialBytes += size
        var message: RTMPMessage?
        if let payload = stream.partial, payload.count == stream.length {
            message = RTMPMessage(
                type: stream.type, streamID: stream.streamID, timestamp: stream.timestamp, chunkStreamID: id,
                payload: payload, byteOffset: stream.messageStart)
            partialBytes -= payload.count
            stream.partial = nil
        }
        streams[id] = stream
        return (message, header + size)
    }
}
