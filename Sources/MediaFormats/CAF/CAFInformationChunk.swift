import MediaCore

/// A CAF `info` chunk: `mNumEntries`, then each key and value as a NUL-terminated UTF-8 string.
enum CAFInformationChunk {
    /// The key/value strings of the `info` chunk whose body is `body` and whose header is at `offset`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` at the chunk for a count the body cannot hold
    ///   or a string without its NUL; ``/MediaCore/MediaError/Code/truncated`` for a body shorter than
    ///   its count.
    static func entries(_ body: [UInt8], at offset: Int64) throws(MediaError) -> [(String, String)] {
        var r = ByteReader(body, baseOffset: offset + Int64(CAFFile.chunkHeaderSize))
        let count = try r.readUInt32BE("CAF 'info' mNumEntries")
        guard Int(count) <= r.remaining / 2 else {
            throw MediaError.invalidData(
                "CAF 'info' declares \(count: count, "entry", plural: "entries") but holds \(count: r.remaining, "byte")",
                at: offset)
        }
        var strings: [String] = []
        while strings.count < Int(count) * 2 {
            guard let end = body[r.offset...].firstIndex(of: 0) else {
                throw MediaError.invalidData("CAF 'info' string \(strings.count) has no terminating NUL", at: offset)
            }
            let text = try r.readBytes(end - r.offset, "CAF 'info' string")
            try r.skip(1, "CAF 'info' NUL")
            strings.append(String(decoding: text, as: UTF8.self))
        }
        return stride(from: 0, to: strings.count, by: 2).map { (strings[$0], strings[$0 + 1]) }
    }
}
