/// One RTMP message, whole: what ``RTMPChunkParser`` reassembles from a connection's chunks and
/// ``RTMPChunkWriter`` cuts into chunks (RTMP 1.0, Adobe's specification of 2012, section 5.4 and 6).
public struct RTMPMessage: Sendable, Hashable {
    /// The message type ID: protocol control (1–6), media (8, 9), data and commands (15–20), aggregates (22).
    public struct MessageType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The type ID byte.
        public var rawValue: UInt8
        /// The type with this ID.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// 1: the sender's chunk size from now on (4 bytes, top bit 0).
        public static let setChunkSize = MessageType(rawValue: 1)
        /// 2: drop the partly received message of a chunk stream.
        public static let abort = MessageType(rawValue: 2)
        /// 3: bytes received so far (sent each time a window of them has arrived).
        public static let acknowledgement = MessageType(rawValue: 3)
        /// 4: a user control event (stream begin, ping).
        public static let userControl = MessageType(rawValue: 4)
        /// 5: how many bytes may arrive between acknowledgements.
        public static let windowAcknowledgementSize = MessageType(rawValue: 5)
        /// 6: the peer's output bandwidth.
        public static let setPeerBandwidth = MessageType(rawValue: 6)
        /// 8: an FLV audio tag's payload.
        public static let audio = MessageType(rawValue: 8)
        /// 9: an FLV video tag's payload.
        public static let video = MessageType(rawValue: 9)
        /// 18: data in AMF0 (`@setDataFrame`, `onMetaData`).
        public static let dataAMF0 = MessageType(rawValue: 18)
        /// 20: a command in AMF0 (`connect`, `publish`, `_result`, `onStatus`).
        public static let commandAMF0 = MessageType(rawValue: 20)
        /// 22: several FLV tags in one message.
        public static let aggregate = MessageType(rawValue: 22)

        /// The type's name, or its number.
        public var description: String {
            let names: [UInt8: String] = [
                1: "set chunk size", 2: "abort", 3: "acknowledgement", 4: "user control",
                5: "window acknowledgement size", 6: "set peer bandwidth", 8: "audio", 9: "video", 15: "data (AMF3)",
                17: "command (AMF3)", 18: "data", 20: "command", 22: "aggregate"
            ]
            return names[rawValue] ?? "type \(rawValue)"
        }
    }

    /// What the message is.
    public var type: MessageType
    /// The message stream it belongs to (0 for protocol control and connection commands).
    public var streamID: UInt32
    /// Milliseconds, as the sender counts them; 32 bits that wrap after about 49.7 days.
    public var timestamp: UInt32
    /// The chunk stream that carried it (2 for protocol control).
    public var chunkStreamID: UInt32
    /// The message's bytes.
    public var payload: [UInt8]
    /// Where its first chunk started, counting the connection's bytes after the handshake.
    public var byteOffset: Int64

    /// A message of `type` with `payload`.
    public init(
        type: MessageType, streamID: UInt32 = 0, timestamp: UInt32 = 0, chunkStreamID: UInt32 = 3,
        payload: [UInt8], byteOffset: Int64 = 0
    ) {
        self.type = type
        self.streamID = streamID
        self.timestamp = timestamp
        self.chunkStreamID = chunkStreamID
        self.payload = payload
        self.byteOffset = byteOffset
    }
}
