import MediaBitstream
public import MediaCore

extension AMF0Value {
    /// How much an AMF0 reader accepts from a peer; past either limit it throws
    /// ``/MediaCore/MediaError/Code/limitExceeded``.
    public struct Limits: Sendable, Hashable {
        /// Objects and arrays inside one another (default 16; a command nests 2).
        public var depth: Int = 16
        /// Values in all, counting those inside objects and arrays (default 4,096).
        public var values: Int = 4_096

        /// The defaults.
        public init() {}
    }

    /// Every value in `bytes`, one after another (an RTMP command: its name, transaction ID, command
    /// object and arguments).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` when a value is cut off,
    ///   ``/MediaCore/MediaError/Code/invalidData`` for a string that is not UTF-8 or an object without
    ///   its end marker, ``/MediaCore/MediaError/Code/unsupportedFormat`` for a marker this reader does
    ///   not take, ``/MediaCore/MediaError/Code/limitExceeded`` past `limits`; each with the byte offset
    ///   (`baseOffset` plus the position in `bytes`).
    public static func decodeAll(
        _ bytes: [UInt8], baseOffset: Int64 = 0, limits: Limits = Limits()
    ) throws(MediaError) -> [AMF0Value] {
        var decoder = Decoder(reader: ByteReader(bytes, baseOffset: baseOffset), limits: limits)
        var values: [AMF0Value] = []
        while !decoder.reader.isAtEnd { values.append(try decoder.value(depth: 0)) }
        return values
    }

    /// The bytes of `values`, one after another. A string over 65,535 UTF-8 bytes is written as a long
    /// string (marker 0x0C); a key over 65,535 bytes is cut to that length.
    public static func encode(_ values: [AMF0Value]) -> [UInt8] {
        var writer = ByteWriter()
        for value in values { value.write(into: &writer) }
        return writer.bytes
    }

    private func write(into writer: inout ByteWriter) {
        switch self {
        case .number(let value):
            writer.writeUInt8(0x00)
            writer.writeUInt64BE(value.bitPattern)
        case .boolean(let value):
            writer.writeUInt8(0x01)
            writer.writeUInt8(value ? 1 : 0)
        case .string(let value):
            let utf8 = Array(value.utf8)
            if utf8.count > Int(UInt16.max) {
                writer.writeUInt8(0x0C)
                writer.writeUInt32BE(UInt32(clamping: utf8.count))
                writer.write(utf8.prefix(Int(UInt32.max)))
            } else {
                writer.writeUInt8(0x02)
                writer.writeUInt16BE(UInt16(utf8.count))
                writer.write(utf8)
            }
        case .object(let properties):
            writer.writeUInt8(0x03)
            Self.write(properties, into: &writer)
        case .null:
            writer.writeUInt8(0x05)
        case .undefined:
            writer.writeUInt8(0x06)
        case .ecmaArray(let properties):
            writer.writeUInt8(0x08)
            writer.writeUInt32BE(UInt32(clamping: properties.count))
            Self.write(properties, into: &writer)
        case .strictArray(let values):
            writer.writeUInt8(0x0A)
            writer.writeUInt32BE(UInt32(clamping: values.count))
            for value in values { value.write(into: &writer) }
        case .date(let milliseconds, let timeZone):
            writer.writeUInt8(0x0B)
            writer.writeUInt64BE(milliseconds.bitPattern)
            writer.writeUInt16BE(UInt16(bitPattern: timeZone))
        }
    }

    /// Pairs as an object's, then the empty key and the object-end marker.
    private static func write(_ properties: [AMF0Property], into writer: inout ByteWriter) {
        for property in properties {
            let key = Array(property.key.utf8.prefix(Int(UInt16.max)))
            writer.writeUInt16BE(UInt16(key.count))
            writer.write(key)
            property.value.write(into: &writer)
        }
        writer.writeUInt16BE(0)
        writer.writeUInt8(0x09)
    }

    /// Reads values, counting them against the limits.
    private struct Decoder {
        var reader: ByteReader
        let limits: Limits
        var count = 0

        mutating func value(depth: Int) throws(MediaError) -> AMF0Value {
            let start = reader.absoluteOffset
            count += 1
            guard count <= limits.values else {
                throw MediaError(
                    .limitExceeded, "AMF0 data holds more than \(limits.values) values", byteOffset: start)
            }
            let marker = try reader.readUInt8("AMF0 marker")
            switch marker {
            case 0x00: return .number(Double(bitPattern: try reader.readUInt64BE("AMF0 number")))
            case 0x01: return .boolean(try reader.readUInt8("AMF0 boolean") != 0)
            case 0x02:
                let length = Int(try reader.readUInt16BE("AMF0 string length"))
                return .string(try text(length, "AMF0 string"))
            case 0x0C:
                let length = Int(try reader.readUInt32BE("AMF0 long string length"))
                return .string(try text(length, "AMF0 long string"))
            case 0x03:
                return .object(try properties(depth: depth + 1, at: start))
            case 0x05: return .null
            case 0x06: return .undefined
            case 0x08:
                _ = try reader.readUInt32BE("AMF0 ECMA array count")  // a hint only; the end marker ends it
                return .ecmaArray(try properties(depth: depth + 1, at: start))
            case 0x0A:
                let declared = try reader.readUInt32BE("AMF0 strict array count")
                try enter(depth + 1, at: start)
                // Each value takes at least one byte: a count the bytes left cannot hold is cut off.
                guard Int(declared) <= reader.remaining else {
                    throw MediaError.truncated(
                        "AMF0 strict array of \(declared) values", needed: Int(declared), available: reader.remaining,
                        at: reader.absoluteOffset)
                }
                var values: [AMF0Value] = []
                for _ in 0..<declared { values.append(try value(depth: depth + 1)) }
                return .strictArray(values)
            case 0x0B:
                let milliseconds = Double(bitPattern: try reader.readUInt64BE("AMF0 date"))
                let zone = Int16(bitPattern: try reader.readUInt16BE("AMF0 date time zone"))
                return .date(milliseconds: milliseconds, timeZone: zone)
            case 0x09:
                throw MediaError.invalidData("AMF0 object-end marker outside an object", at: start)
            default:
                throw MediaError(
                    .unsupportedFormat, "AMF0 marker 0x\(String(marker, radix: 16)) is not read here", byteOffset: start
                )
            }
        }

        private func enter(_ depth: Int, at offset: Int64) throws(MediaError) {
            guard depth <= limits.depth else {
                throw MediaError(
                    .limitExceeded, "AMF0 objects nested more than \(limits.depth) deep", byteOffset: offset)
            }
        }

        private mutating func properties(depth: Int, at start: Int64) throws(MediaError) -> [AMF0Property] {
            try enter(depth, at: start)
            var properties: [AMF0Property] = []
            while true {
                let length = Int(try reader.readUInt16BE("AMF0 property key length"))
                if length == 0, reader.peek(1).first == 0x09 {
                    _ = try reader.readUInt8()
                    return properties
                }
                let key = try text(length, "AMF0 property key")
                properties.append(AMF0Property(key, try value(depth: depth)))
            }
        }

        private mutating func text(_ length: Int, _ what: String) throws(MediaError) -> String {
            let offset = reader.absoluteOffset
            let bytes = try reader.readBytes(length, what)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw MediaError.invalidData("\(what) is not UTF-8", at: offset)
            }
            return text
        }
    }
}
