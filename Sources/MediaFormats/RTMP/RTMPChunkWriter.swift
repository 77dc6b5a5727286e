import MediaBitstream

/// Cuts ``RTMPMessage``s into chunks (RTMP 1.0 section 5.3): a format-0 header on the first chunk of
/// each message and format-3 headers on the rest, each followed by the extended timestamp when the
/// timestamp is 0xFFFFFF or more, as ``RTMPChunkParser`` (and FFmpeg, and librtmp) read them.
///
/// ```swift
/// var writer = RTMPChunkWriter()
/// var bytes = writer.chunks(of: RTMPMessage(type: .setChunkSize, chunkStreamID: 2, payload: [0, 0, 16, 0]))
/// writer.chunkSize = 4096  // what the message just told the peer
/// ```
public struct RTMPChunkWriter: Sendable {
    /// The chunk size in use (128 until it is changed; change it right after writing a
    /// ``RTMPMessage/MessageType/setChunkSize`` message).
    public var chunkSize = 128

    /// A writer with chunks of 128 bytes.
    public init() {}

    /// The chunks of `message`, ready to send. Chunk stream IDs below 2 are written as 2; above 65,599
    /// as 65,599.
    public func chunks(of message: RTMPMessage) -> [UInt8] {
        var writer = ByteWriter(capacity: message.payload.count + 16 + message.payload.count / max(1, chunkSize) * 5)
        let id = min(max(message.chunkStreamID, 2), 65_599)
        let extended = message.timestamp >= 0xFF_FFFF
        func basicHeader(format: UInt8) {
            if id < 64 {
                writer.writeUInt8(format << 6 | UInt8(id))
            } else if id < 320 {
                writer.writeUInt8(format << 6)
                writer.writeUInt8(UInt8(id - 64))
            } else {
                writer.writeUInt8(format << 6 | 1)
                writer.writeUInt8(UInt8((id - 64) & 0xFF))
                writer.writeUInt8(UInt8((id - 64) >> 8))
            }
        }
        func uint24(_ value: UInt32) {
            writer.writeUInt8(UInt8(value >> 16 & 0xFF))
            writer.writeUInt16BE(UInt16(value & 0xFFFF))
        }
        basicHeader(format: 0)
        uint24(extended ? 0xFF_FFFF : message.timestamp)
        uint24(UInt32(min(message.payload.count, 0xFF_FFFF)))
        writer.writeUInt8(message.type.rawValue)
        writer.writeUInt32LE(message.streamID)
        if extended { writer.writeUInt32BE(message.timestamp) }
        var offset = 0
        repeat {
            if offset > 0 {
                basicHeader(format: 3)
                if extended { writer.writeUInt32BE(message.timestamp) }
            }
            let end = min(message.payload.count, offset + max(1, chunkSize))
            writer.write(message.payload[offset..<end])
            offset = end
        } while offset < message.payload.count
        return writer.bytes
    }
}
