/// One value of Action Message Format 0, the encoding of RTMP's commands (`connect`, `publish`,
/// `onStatus`) and of FLV's `onMetaData`.
///
/// ```swift
/// let command = try AMF0Value.decodeAll(message.payload)
/// if case .string("publish")? = command.first, case .string(let key)? = command.dropFirst(3).first { … }
/// let reply = AMF0Value.encode([.string("_result"), .number(1), .null, .object([("code", .string("…"))])])
/// ```
///
/// Objects and ECMA arrays keep their keys in order (a command's reader may care, and a round trip
/// gives the same bytes). References (marker 0x07), AMF3 switches (0x11), typed objects' class names and
/// movie clips are not read: ``decodeAll(_:baseOffset:limits:)`` throws
/// ``/MediaCore/MediaError/Code/unsupportedFormat`` naming the marker and its offset.
public enum AMF0Value: Sendable, Hashable, CustomStringConvertible {
    /// Marker 0x00: an IEEE 754 double.
    case number(Double)
    /// Marker 0x01.
    case boolean(Bool)
    /// Marker 0x02 (up to 65,535 UTF-8 bytes) or 0x0C (long string).
    case string(String)
    /// Marker 0x03: key–value pairs in order, ended by an empty key and marker 0x09.
    case object([AMF0Property])
    /// Marker 0x05.
    case null
    /// Marker 0x06.
    case undefined
    /// Marker 0x08: an associative array (a count, which readers ignore, then pairs as an object's).
    case ecmaArray([AMF0Property])
    /// Marker 0x0A: a counted list of values.
    case strictArray([AMF0Value])
    /// Marker 0x0B: milliseconds since 1970 and a time-zone field (which AMF0 says to ignore).
    case date(milliseconds: Double, timeZone: Int16)

    /// The value of `key` in an object or ECMA array, `nil` otherwise or when there is none.
    public subscript(key: String) -> AMF0Value? {
        switch self {
        case .object(let properties), .ecmaArray(let properties):
            return properties.first { $0.key == key }?.value
        default: return nil
        }
    }

    /// The string, when this is one.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, when this is one.
    public var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// As ffmpeg's `-dump` prints AMF: `"publish"`, `1.0`, `{code: "…"}`.
    public var description: String {
        switch self {
        case .number(let value): return "\(value)"
        case .boolean(let value): return "\(value)"
        case .string(let value): return "\"\(value)\""
        case .object(let properties): return "{\(properties.map(\.description).joined(separator: ", "))}"
        case .null: return "null"
        case .undefined: return "undefined"
        case .ecmaArray(let properties): return "[\(properties.map(\.description).joined(separator: ", "))]"
        case .strictArray(let values): return "[\(values.map(\.description).joined(separator: ", "))]"
        case .date(let milliseconds, _): return "date(\(milliseconds))"
        }
    }
}

/// One key–value pair of an AMF0 object or ECMA array.
public struct AMF0Property: Sendable, Hashable, CustomStringConvertible {
    /// The key (a UTF-8 string of up to 65,535 bytes).
    public var key: String
    /// The value.
    public var value: AMF0Value

    /// The pair `key`: `value`.
    public init(_ key: String, _ value: AMF0Value) {
        self.key = key
        self.value = value
    }

    /// `key: value`.
    public var description: String { "\(key): \(value)" }
}

extension AMF0Value: ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A number value.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}
