/// The 10-byte header of an ID3v2 tag (id3.org ID3v2.4.0-structure section 3.1): "ID3", the version,
/// flags and the 28-bit syncsafe size of what follows, plus a 10-byte footer when flag 0x10 is set.
///
/// HLS packed-audio segments and FFmpeg's ADTS muxer (`-write_id3v2 1`) put one before the first frame.
struct ID3v2TagHeader {
    /// The length of the header.
    static let headerLength = 10

    /// The whole tag's length: header, body and footer.
    let totalLength: Int

    /// Reads the header from `bytes[index...]`, which holds at least 10 bytes; `nil` when they are not an
    /// ID3v2 header.
    init?(_ bytes: [UInt8], at index: Int) {
        guard index >= 0, bytes.count - index >= Self.headerLength else { return nil }
        guard bytes[index] == 0x49, bytes[index + 1] == 0x44, bytes[index + 2] == 0x33 else { return nil }  // "ID3"
        let majorVersion = bytes[index + 3]  // version (major)
        let revision = bytes[index + 4]  // version (revision)
        let flags = bytes[index + 5]  // flags
        guard majorVersion != 0xFF, revision != 0xFF else { return nil }
        var size = 0
        for i in 6..<10 {  // size (syncsafe, 4 x 7 bits)
            let byte = bytes[index + i]
            guard byte & 0x80 == 0 else { return nil }
            size = size << 7 | Int(byte)
        }
        let footer = flags & 0x10 != 0 ? Self.headerLength : 0
        totalLength = Self.headerLength + size + footer
    }
}
