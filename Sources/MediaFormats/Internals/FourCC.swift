/// Four-character codes (RIFF chunk IDs) as they appear in a file, and how errors show them.
enum FourCC {
    static let riff: [UInt8] = Array("RIFF".utf8)
    static let rf64: [UInt8] = Array("RF64".utf8)
    static let bw64: [UInt8] = Array("BW64".utf8)
    static let wave: [UInt8] = Array("WAVE".utf8)
    static let ds64: [UInt8] = Array("ds64".utf8)
    static let fmt: [UInt8] = Array("fmt ".utf8)
    static let fact: [UInt8] = Array("fact".utf8)
    static let data: [UInt8] = Array("data".utf8)

    /// `'fmt '` for printable ASCII, otherwise the bytes in hex (`0x00 0x01 0xFF 0x7F`); `nothing` when
    /// empty. Used in error messages, so that a binary file's first bytes are shown legibly.
    static func describe<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if bytes.isEmpty { return "nothing" }
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return "'" + String(decoding: bytes, as: UTF8.self) + "'"
        }
        return bytes.map { "0x" + hex($0, digits: 2) }.joined(separator: " ")
    }

    /// `value` in upper-case hex, zero-padded to `digits`.
    static func hex<T: BinaryInteger>(_ value: T, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
