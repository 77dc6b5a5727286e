/// A four-character code: four bytes read as one big-endian 32-bit value, as Core Audio's format ids
/// (`'aac '`), QuickTime and MP4 box types and sample entries (`'avc1'`, `'hvc1'`), RIFF chunk ids
/// (`'fmt '`) and ``/MediaCore/AudioCodec/other(fourCC:)`` use them.
///
/// It accepts any four bytes; ``description`` shows the code legibly (quoted when all four bytes are
/// printable ASCII, in hex otherwise), which is how errors show a code read from a damaged file.
///
/// ```swift
/// let code = FourCC("hvc1")
/// assert(code.rawValue == 0x6876_6331 && code.bytes == Array("hvc1".utf8) && "\(code)" == "'hvc1'")
/// assert(FourCC(tag: 0x3163_7668) == code)              // FFmpeg's MKTAG('h', 'v', 'c', '1')
/// assert(FourCC.describe([0x00, 0xFF]) == "0x00 0xFF")
/// ```
public struct FourCC: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The four bytes as a big-endian value: the first character in the most significant byte.
    public let rawValue: UInt32

    /// The code whose big-endian value is `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The code spelled by the first four bytes of `text` (a literal such as `"avc1"`); missing bytes
    /// count as spaces, as Core Audio pads `'.mp3'`-style codes.
    public init(_ text: StaticString) {
        var value: UInt32 = 0
        text.withUTF8Buffer { utf8 in
            for index in 0..<4 { value = value << 8 | UInt32(index < utf8.count ? utf8[index] : 0x20) }
        }
        rawValue = value
    }

    /// The code of four bytes as they appear in a file, or `nil` when `bytes` does not hold exactly four.
    public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        guard bytes.count == 4 else { return nil }
        rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A container's codec tag as FFmpeg stores it (`MKTAG`: the first character in the low byte), when
    /// it is not 0 and its four bytes are printable ASCII; `nil` otherwise.
    public init?(tag: UInt32) {
        let bytes = [tag & 0xFF, tag >> 8 & 0xFF, tag >> 16 & 0xFF, tag >> 24]
        guard tag != 0, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        rawValue = bytes.reduce(0) { $0 << 8 | $1 }
    }

    /// The four bytes, first character first, as they appear in a file.
    public var bytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (24 - 8 * $0)) } }

    /// The four bytes as text, each byte as its Unicode scalar (no quotes): `avc1`.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// `'avc1'` when the four bytes are printable ASCII, else their hex values (see ``describe(_:)``).
    public var description: String { Self.describe(bytes) }

    /// `'fmt '` for printable ASCII, otherwise the bytes in hex (`0x00 0x01 0xFF 0x7F`); `nothing` when
    /// empty. Used in error messages, so that a binary file's first bytes are shown legibly.
    public static func describe<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if bytes.isEmpty { return "nothing" }
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return "'" + String(decoding: bytes, as: UTF8.self) + "'"
        }
        return bytes.map { "0x" + hex($0, digits: 2) }.joined(separator: " ")
    }

    /// `value` in upper-case hex, zero-padded to `digits`.
    public static func hex<T: BinaryInteger>(_ value: T, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
