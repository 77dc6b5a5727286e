import ExampleSupport
import MediaPipeline

/// What a CAF file says, gathered once for both outputs. Encoded as caf-info's `--json` object: the keys
/// README.md lists (a stable interface), `info` an object of the `info` strings in file order.
struct CAFFileInfo: Encodable {
    /// One chunk's header: its type, the offset of the header and the declared size.
    struct Chunk: Encodable {
        var type: String
        var offset: Int64
        var size: Int64
    }

    var path: String
    var description: CAFAudioDescription
    var chunks: [Chunk]
    var cookie: [UInt8]
    var packets: Int64
    var validFrames: Int64
    var primingFrames: Int64
    var remainderFrames: Int64
    var dataOffset: Int64
    var dataSize: Int64
    var info: [(String, String)]

    init(path: String, reader: CAFReader) {
        self.path = path
        description = reader.description
        chunks = reader.chunks.map { Chunk(type: $0.type, offset: $0.offset, size: $0.size) }
        cookie = reader.magicCookie
        packets = reader.packetCount
        dataOffset = reader.dataOffset
        dataSize = reader.dataSize
        info = reader.info
        if let table = reader.packetTable {
            validFrames = table.numberValidFrames
            primingFrames = Int64(table.primingFrames)
            remainderFrames = Int64(table.remainderFrames)
        } else {
            validFrames = reader.totalFrames
            primingFrames = 0
            remainderFrames = 0
        }
    }

    var formatID: String { CAFFile.fourCCString(description.formatID) }
    var seconds: Double { description.sampleRate > 0 ? Double(validFrames) / description.sampleRate : 0 }

    /// The `--json` keys.
    enum CodingKeys: String, CodingKey {
        case file, formatID, formatFlags, sampleRate, channels, bitsPerChannel, framesPerPacket, bytesPerPacket
        case packets, validFrames, primingFrames, remainderFrames, duration, dataOffset, dataSize, cookie, chunks
        case info
    }

    /// A key of the `info` object: any string.
    struct InfoKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(path, forKey: .file)
        try object.encode(formatID, forKey: .formatID)
        try object.encode(description.formatFlags, forKey: .formatFlags)
        try Self.encodeNumber(description.sampleRate, forKey: .sampleRate, in: &object)
        try object.encode(description.channelsPerFrame, forKey: .channels)
        try object.encode(description.bitsPerChannel, forKey: .bitsPerChannel)
        try object.encode(description.framesPerPacket, forKey: .framesPerPacket)
        try object.encode(description.bytesPerPacket, forKey: .bytesPerPacket)
        try object.encode(packets, forKey: .packets)
        try object.encode(validFrames, forKey: .validFrames)
        try object.encode(primingFrames, forKey: .primingFrames)
        try object.encode(remainderFrames, forKey: .remainderFrames)
        try Self.encodeNumber(seconds, forKey: .duration, in: &object)
        try object.encode(dataOffset, forKey: .dataOffset)
        try object.encode(dataSize, forKey: .dataSize)
        try object.encode(hex(cookie), forKey: .cookie)
        try object.encode(chunks, forKey: .chunks)
        var strings = object.nestedContainer(keyedBy: InfoKey.self, forKey: .info)
        for (key, value) in info { try strings.encode(value, forKey: InfoKey(stringValue: key)) }
    }

    /// A Double as JSON: `null` when it is not finite (JSON has no NaN or infinity), as caf-info always did.
    private static func encodeNumber(
        _ value: Double, forKey key: CodingKeys, in object: inout KeyedEncodingContainer<CodingKeys>
    ) throws {
        if value.isFinite { try object.encode(value, forKey: key) } else { try object.encodeNil(forKey: key) }
    }

    /// The text caf-info prints without `--json`.
    var text: String {
        let d = description
        var lines = ["File:           \(path)", "File type ID:   caff", "Chunks:"]
        for chunk in chunks {
            let size = chunk.size == -1 ? "-1 (to end of file)" : String(chunk.size)
            lines.append("    '\(chunk.type)'  offset \(chunk.offset)  size \(size)")
        }
        lines += [
            "Data format (desc):",
            "    mSampleRate        \(d.sampleRate)",
            "    mFormatID          '\(formatID)'",
            "    mFormatFlags       0x\(String(d.formatFlags, radix: 16))",
            "    mBytesPerPacket    \(d.bytesPerPacket)",
            "    mFramesPerPacket   \(d.framesPerPacket)",
            "    mChannelsPerFrame  \(d.channelsPerFrame)",
            "    mBitsPerChannel    \(d.bitsPerChannel)",
            "Magic cookie:   \(cookie.isEmpty ? "none" : "\(count: cookie.count, "byte"): " + hex(cookie, separator: " "))"
        ]
        for (key, value) in info { lines.append("Info:           \(key) = \(value)") }
        lines += [
            "Audio data:     \(count: dataSize, "byte") from offset \(dataOffset)",
            "Packets:        \(packets)",
            "Valid frames:   \(validFrames)",
            "Priming frames: \(primingFrames)",
            "Remainder:      \(remainderFrames)",
            "Duration:       \(seconds) s"
        ]
        return lines.joined(separator: "\n")
    }
}

/// Lowercase hex of `bytes`, optionally with a space between bytes.
func hex(_ bytes: [UInt8], separator: String = "") -> String {
    let digits = Array("0123456789abcdef")
    return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: separator)
}
