import MediaCore
import MediaFormats

/// The server side of one RTMP connection, without I/O: bytes in, bytes to send and events out. The
/// channel handler (``RTMPChannelHandler``) gives it what the socket read and carries out what it
/// returns.
///
/// It does what a publisher needs (FFmpeg's, OBS's, GStreamer's `rtmp2sink`): the simple handshake (S1
/// with a zero version field, so that clients skip the digest check; S2 echoes C1), `connect` (window
/// acknowledgement size, peer bandwidth, a chunk size of 4,096, `_result` with
/// `NetConnection.Connect.Success`), `releaseStream`/`FCPublish` (`_result`), `createStream`
/// (`_result` with the stream's ID), `publish` (asks ``authorize``: `NetStream.Publish.Start`, or
/// `NetStream.Publish.BadName` at level `error` and the connection closed), `@setDataFrame`
/// `onMetaData`, audio and video messages, `FCUnpublish`/`deleteStream` (the stream ends),
/// acknowledgements of the peer's window and pings. Players (`play`) are refused with
/// `NetStream.Play.Failed`: this is an ingest.
struct RTMPServerSession {
    /// What the session asks of its connection.
    enum Event {
        /// Send these bytes.
        case send([UInt8])
        /// A publisher was accepted: the stream `key` of application `app`.
        case published(app: String, key: String)
        /// `onMetaData` of the published stream.
        case metadata([AMF0Property])
        /// An audio or video message of the published stream.
        case media(RTMPMessage)
        /// The publisher ended its stream (`FCUnpublish`, `deleteStream`).
        case unpublished
        /// Send what came before, then close the connection: `reason` says why.
        case close(reason: String)
    }

    /// A publisher's request, for ``authorize``.
    struct Request {
        var app: String
        var key: String
    }

    private enum Stage {
        case handshake, acknowledging, messages, closed
    }

    /// Says whether a publisher may publish: `nil` to accept, else the reason it is refused (the
    /// `description` of the `onStatus` it receives).
    let authorize: (Request) -> String?
    private let keyLimit: Int
    private var stage = Stage.handshake
    private var input: [UInt8] = []
    private var parser: RTMPChunkParser
    private var writer = RTMPChunkWriter()
    private var app = ""
    private var publishedStream: UInt32?
    private var nextStreamID: UInt32 = 1
    private var received: Int64 = 0
    private var acknowledged: Int64 = 0
    private var peerWindow: Int64 = 0
    /// The chunk size this side sends with after `connect`.
    static let chunkSize = 4_096
    /// The window this side asks to be acknowledged after.
    static let window: UInt32 = 2_500_000

    init(keyLimit: Int, limits: RTMPChunkParser.Limits, authorize: @escaping (Request) -> String?) {
        self.keyLimit = keyLimit
        self.authorize = authorize
        parser = RTMPChunkParser(limits: limits)
    }

    /// Whether the handshake is over.
    var isPastHandshake: Bool { stage == .messages || stage == .closed }

    /// Bytes held that are not yet handed out (the handshake's, and the chunk parser's).
    var bufferedBytes: Int { input.count + parser.bufferedBytes }

    /// Takes bytes the socket read.
    mutating func receive(_ bytes: [UInt8]) throws(MediaError) -> [Event] {
        guard stage != .closed else { return [] }
        var events: [Event] = []
        if stage != .messages {
            input += bytes
            if stage == .handshake {
                guard let version = input.first else { return [] }
                guard version == 3 else {
                    throw MediaError.invalidData(
                        "RTMP handshake: version byte \(version) (0x\(String(version, radix: 16))), where RTMP sends 3",
                        at: 0)
                }
                guard input.count >= 1 + 1_536 else { return [] }
                var reply: [UInt8] = [3]
                reply += [0, 0, 0, 0, 0, 0, 0, 0]  // S1: time 0, zero (no digest: version field 0)
                var generator = SystemRandomNumberGenerator()
                reply += (0..<1_528).map { _ in UInt8.random(in: 0...255, using: &generator) }
                reply += input[1..<1_537]  // S2: C1 echoed
                input.removeFirst(1_537)
                stage = .acknowledging
                events.append(.send(reply))
            }
            guard input.count >= 1_536 else { return events }
            let rest = Array(input[1_536...])
            input = []
            stage = .messages
            return events + (try messages(rest))
        }
        return try messages(bytes)
    }

    /// Parses chunks and answers each whole message.
    private mutating func messages(_ bytes: [UInt8]) throws(MediaError) -> [Event] {
        var events: [Event] = []
        received += Int64(bytes.count)
        parser.push(bytes)
        while stage == .messages, let message = try parser.next() {
            try handle(message, into: &events)
        }
        if peerWindow > 0, received - acknowledged >= peerWindow {
            acknowledged = received
            events.append(.send(control(.acknowledgement, UInt32(truncatingIfNeeded: received))))
        }
        return events
    }

    private mutating func handle(_ message: RTMPMessage, into events: inout [Event]) throws(MediaError) {
        switch message.type {
        case .windowAcknowledgementSize where message.payload.count >= 4:
            peerWindow = Int64(Self.uint32(message.payload))
        case .userControl where message.payload.count >= 6 && message.payload[1] == 6:
            // Ping request: the pong echoes its timestamp.
            events.append(
                .send(
                    chunks(RTMPMessage(type: .userControl, chunkStreamID: 2, payload: [0, 7] + message.payload[2..<6])))
            )
        case .commandAMF0:
            try command(message, into: &events)
        case .dataAMF0 where message.streamID == publishedStream:
            let values = try AMF0Value.decodeAll(message.payload, baseOffset: message.byteOffset)
            let rest = values.first?.string == "@setDataFrame" ? Array(values.dropFirst()) : values
            if rest.first?.string == "onMetaData", let table = rest.dropFirst().first {
                switch table {
                case .object(let properties), .ecmaArray(let properties): events.append(.metadata(properties))
                default: break
                }
            }
        case .audio, .video:
            if message.streamID == publishedStream { events.append(.media(message)) }
        default:
            break
        }
    }

    private mutating func command(_ message: RTMPMessage, into events: inout [Event]) throws(MediaError) {
        let values = try AMF0Value.decodeAll(message.payload, baseOffset: message.byteOffset)
        guard let name = values.first?.string else {
            throw MediaError.invalidData("RTMP command without a name: \(values.prefix(2))", at: message.byteOffset)
        }
        let transaction = values.count > 1 ? values[1] : .number(0)
        switch name {
        case "connect":
            app = values.count > 2 ? (values[2]["app"]?.string ?? "") : ""
            while app.hasSuffix("/") { app.removeLast() }
            events.append(.send(control(.windowAcknowledgementSize, Self.window)))
            events.append(
                .send(
                    chunks(
                        RTMPMessage(type: .setPeerBandwidth, chunkStreamID: 2, payload: Self.bytes(Self.window) + [2])))
            )
            events.append(.send(control(.setChunkSize, UInt32(Self.chunkSize))))
            writer.chunkSize = Self.chunkSize
            events.append(
                .send(
                    command(
                        [
                            "_result", transaction,
                            .object([AMF0Property("fmsVer", "FMS/3,0,1,123"), AMF0Property("capabilities", .number(31))]
                            ),
                            .object([
                                AMF0Property("level", "status"), AMF0Property("code", "NetConnection.Connect.Success"),
                                AMF0Property("description", "Connection succeeded."),
                                AMF0Property("objectEncoding", .number(0))
                            ])
                        ])))
        case "releaseStream", "FCPublish":
            events.append(.send(command(["_result", transaction, .null, .undefined])))
        case "createStream":
            let id = nextStreamID
            nextStreamID += 1
            events.append(.send(command(["_result", transaction, .null, .number(Double(id))])))
        case "publish":
            let key = values.count > 3 ? (values[3].string ?? "") : ""
            let streamID = message.streamID
            if let refusal = refusal(key: key) {
                events.append(.send(status(streamID, level: "error", code: "NetStream.Publish.BadName", refusal)))
                events.append(.close(reason: "publish of '\(app)/\(key)' refused: \(refusal)"))
                stage = .closed
                return
            }
            publishedStream = streamID
            events.append(
                .send(chunks(RTMPMessage(type: .userControl, chunkStreamID: 2, payload: [0, 0] + Self.bytes(streamID))))
            )
            events.append(
                .send(status(streamID, level: "status", code: "NetStream.Publish.Start", "\(key) is now published.")))
            events.append(.published(app: app, key: key))
        case "play":
            events.append(
                .send(
                    status(
                        message.streamID, level: "error", code: "NetStream.Play.Failed",
                        "This server takes publishers only.")))
            events.append(.close(reason: "a player connected; this server takes publishers only"))
            stage = .closed
        case "FCUnpublish", "deleteStream", "closeStream":
            if publishedStream != nil {
                publishedStream = nil
                events.append(.unpublished)
            }
        default:
            break
        }
    }

    /// Why `key` is refused (a length over the limit, or the authorisation's answer), `nil` if accepted.
    private func refusal(key: String) -> String? {
        if key.isEmpty { return "no stream key" }
        if key.utf8.count > keyLimit { return "the stream key is longer than \(keyLimit) bytes" }
        return authorize(Request(app: app, key: key))
    }

    private func status(_ streamID: UInt32, level: String, code: String, _ description: String) -> [UInt8] {
        let message = RTMPMessage(
            type: .commandAMF0, streamID: streamID, chunkStreamID: 5,
            payload: AMF0Value.encode([
                "onStatus", .number(0), .null,
                .object([
                    AMF0Property("level", .string(level)), AMF0Property("code", .string(code)),
                    AMF0Property("description", .string(description))
                ])
            ]))
        return chunks(message)
    }

    private func command(_ values: [AMF0Value]) -> [UInt8] {
        chunks(RTMPMessage(type: .commandAMF0, chunkStreamID: 3, payload: AMF0Value.encode(values)))
    }

    private func control(_ type: RTMPMessage.MessageType, _ value: UInt32) -> [UInt8] {
        chunks(RTMPMessage(type: type, chunkStreamID: 2, payload: Self.bytes(value)))
    }

    private func chunks(_ message: RTMPMessage) -> [UInt8] { writer.chunks(of: message) }

    private static func bytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func uint32(_ bytes: [UInt8]) -> UInt32 {
        bytes.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}
