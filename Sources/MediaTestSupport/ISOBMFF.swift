import Testing

/// Reading the boxes of an MP4, MOV or M4A file (ISO/IEC 14496-12) by hand, for the tests that judge a
/// muxer's output at the byte level: the box layout, the edit list, the iTunes gapless tag.
public enum ISOBMFF {
    /// The top-level boxes of an MP4: type, offset and size.
    public static func topLevelBoxes(_ bytes: [UInt8]) -> [(type: String, offset: Int, size: Int)] {
        var out: [(String, Int, Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if size == 1, offset + 16 <= bytes.count {
                size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
            }
            if size == 0 { size = bytes.count - offset }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            out.append((type, offset, size))
            guard size >= 8 else { break }
            offset += size
        }
        return out
    }

    /// The payload of the first box found by following `path` (e.g. `["moov", "trak", "edts", "elst"]`)
    /// from the top level, entering container boxes.
    public static func findBox(_ bytes: [UInt8], path: [String], from start: Int = 0, to end: Int? = nil) -> ArraySlice<
        UInt8
    >? {
        let end = end ?? bytes.count
        var offset = start
        while offset + 8 <= end {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= end else { return nil }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if type == path[0] {
                if path.count == 1 { return bytes[offset + 8..<offset + size] }
                let inner = type == "meta" ? offset + 12 : offset + 8
                if let found = findBox(bytes, path: Array(path.dropFirst()), from: inner, to: offset + size) {
                    return found
                }
            }
            offset += size
        }
        return nil
    }

    /// The big-endian 32-bit value `at` bytes into `bytes`.
    public static func uint32(_ bytes: ArraySlice<UInt8>, _ at: Int) -> Int {
        let base = bytes.startIndex + at
        return bytes[base..<base + 4].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The big-endian 64-bit value `at` bytes into `bytes`.
    public static func uint64(_ bytes: ArraySlice<UInt8>, _ at: Int) -> Int {
        let base = bytes.startIndex + at
        return bytes[base..<base + 8].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The edit list, the movie timescale and the iTunSMPB tag of an M4A file's bytes.
    public static func gaplessInfo(_ bytes: [UInt8]) throws -> (
        mediaTime: Int, segmentDuration: Int, movieTimescale: Int, smpb: String
    ) {
        let mvhd = try #require(findBox(bytes, path: ["moov", "mvhd"]))
        let mvhdVersion = mvhd[mvhd.startIndex]
        let timescale = uint32(mvhd, mvhdVersion == 1 ? 20 : 12)
        let elst = try #require(findBox(bytes, path: ["moov", "trak", "edts", "elst"]))
        let version = elst[elst.startIndex]
        #expect(uint32(elst, 4) == 1, "one edit")
        let duration = version == 1 ? uint64(elst, 8) : uint32(elst, 8)
        let mediaTime = version == 1 ? uint64(elst, 16) : uint32(elst, 12)
        let data = try #require(findBox(bytes, path: ["moov", "udta", "meta", "ilst", "----", "data"]))
        let name = try #require(findBox(bytes, path: ["moov", "udta", "meta", "ilst", "----", "name"]))
        let mean = try #require(findBox(bytes, path: ["moov", "udta", "meta", "ilst", "----", "mean"]))
        #expect(String(decoding: mean.dropFirst(4), as: UTF8.self) == "com.apple.iTunes")
        #expect(String(decoding: name.dropFirst(4), as: UTF8.self) == "iTunSMPB")
        return (mediaTime, duration, timescale, String(decoding: data.dropFirst(8), as: UTF8.self))
    }
}
