import MediaCore

/// The small amount of H.264 byte-stream handling MediaFFmpeg needs (it cannot import MediaFormats):
/// splitting Annex-B at start codes, and converting between Annex-B and AVCC.
enum AnnexB {
    /// The NAL units of an Annex-B buffer (3- or 4-byte start codes), without their start codes.
    /// Bytes before the first start code are ignored; trailing zero bytes of a unit belong to the next
    /// start code (`trailing_zero_8bits`) and are dropped.
    static func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var start: Int? = nil
        var index = 0
        let count = bytes.count
        while index + 2 < count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if let start {
                    var end = index
                    while end > start, bytes[end - 1] == 0 { end -= 1 }
                    if end > start { units.append(bytes[start..<end]) }
                }
                index += 3
                start = index
            } else {
                index += 1
            }
        }
        if let start, start < count {
            var end = count
            while end > start, bytes[end - 1] == 0 { end -= 1 }
            if end > start { units.append(bytes[start..<end]) }
        }
        return units
    }

    /// `nal_unit_type` of a NAL unit (its header byte's low five bits).
    static func type(of unit: ArraySlice<UInt8>) -> UInt8 {
        unit.first.map { $0 & 0x1F } ?? 0
    }

    /// AVCC: each unit behind its length as 4 bytes big-endian.
    static func avcc(_ units: [ArraySlice<UInt8>]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for unit in units {
            let length = UInt32(unit.count)
            out += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            out += unit
        }
        return out
    }

    /// Annex-B: each unit behind a 4-byte start code.
    static func annexB(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for unit in units { out += [0, 0, 0, 1]; out += unit }
        return out
    }

    /// The NAL units of an AVCC buffer; throws ``/MediaCore/MediaError/Code/invalidData`` when a length runs past
    /// the end (with the byte offset of that length field).
    static func unitsOfAVCC(_ bytes: [UInt8]) throws(MediaError) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else {
                throw MediaError.truncated("AVCC NAL unit length", needed: 4, available: bytes.count - offset, at: Int64(offset))
            }
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length <= bytes.count - offset - 4 else {
                throw MediaError.truncated("AVCC NAL unit", needed: length, available: bytes.count - offset - 4, at: Int64(offset))
            }
            if length > 0 { units.append(bytes[(offset + 4)..<(offset + 4 + length)]) }
            offset += 4 + length
        }
        return units
    }
}
