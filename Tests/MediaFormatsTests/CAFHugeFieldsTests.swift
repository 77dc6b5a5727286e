import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// CAF fields at the edges of their 64-bit and 32-bit ranges, which made the CAF stream parser trap
/// (arithmetic overflow, or a Double too large for Int) in `media-info` and `audio-convert`, found by
/// reading the parsers for unchecked sums (issue 33). Each file is now read or refused with a typed
/// error, by AudioFileSummary and by AudioFileReader to the end.
@Suite(.timeLimit(.minutes(1))) struct CAFHugeFieldsTests {
    /// A `desc` chunk.
    static func desc(rate: Double, format: String, flags: UInt32 = 0, bytes: UInt32, frames: UInt32, bits: UInt32)
        -> [UInt8]
    {
        let body =
            CAFTest.be64(Int64(bitPattern: rate.bitPattern)) + Array(format.utf8) + CAFTest.be32(flags)
            + CAFTest.be32(bytes) + CAFTest.be32(frames) + CAFTest.be32(1) + CAFTest.be32(bits)
        return CAFTest.chunk("desc", body)
    }

    /// A CAF variable-length integer.
    static func varint(_ value: Int) -> [UInt8] {
        var out = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            out.insert(UInt8(0x80 | (rest & 0x7F)), at: 0)
            rest >>= 7
        }
        return out
    }

    static func pakt(packets: Int64, valid: Int64, table: [UInt8] = []) -> [UInt8] {
        CAFTest.chunk("pakt", CAFTest.be64(packets) + CAFTest.be64(valid) + CAFTest.be32(0) + CAFTest.be32(0) + table)
    }

    /// The four files, and what reading each must give: `nil` for a read, else the error code.
    static let files: [(name: String, bytes: [UInt8], refusal: MediaError.Code?)] = [
        // A 'data' size of 2^63-1 after a 'pakt' of one packet: the end of 'data' overflowed.
        (
            "data size 2^63-1 after pakt",
            CAFTest.fileHeader + desc(rate: 8_000, format: "ulaw", bytes: 1, frames: 1, bits: 8)
                + pakt(packets: 1, valid: 1) + CAFTest.chunk("data", [0, 0, 0, 0, 0x7F], size: .max), nil
        ),
        // Packets sized in a 'pakt' after a 'data' of 2^63-1 bytes: the refusal's own message overflowed.
        (
            "held data of 2^63-1 bytes",
            CAFTest.fileHeader + desc(rate: 44_100, format: "aac ", bytes: 0, frames: 1024, bits: 0)
                + CAFTest.chunk("data", [0, 0, 0, 0] + [UInt8](repeating: 1, count: 16), size: .max),
            .unsupportedFormat
        ),
        // 1 GHz PCM with 2^32-1 bytes a packet: a bit rate past Int.max.
        (
            "bit rate past Int.max",
            CAFTest.fileHeader + desc(rate: 1e9, format: "lpcm", flags: 0xC, bytes: .max, frames: 1, bits: 16)
                + CAFTest.chunk("data", [0, 0, 0, 0] + [UInt8](repeating: 0, count: 64), size: -1), nil
        ),
        // 64 packets of 16 MiB holding one frame at 2^31-1 Hz: an average bit rate past Int.max.
        (
            "average bit rate past Int.max",
            CAFTest.fileHeader + desc(rate: 2_147_483_647, format: "alac", bytes: 0, frames: 0, bits: 0)
                + pakt(
                    packets: 64, valid: 1, table: (0..<64).flatMap { varint(16_777_216) + varint($0 == 0 ? 1 : 0) })
                + CAFTest.chunk("data", [0, 0, 0, 0], size: 64 << 24 + 4), nil
        )
    ]

    @Test(arguments: 0..<4)
    func isReadOrRefusedWithoutATrap(index: Int) throws {
        let (name, bytes, refusal) = Self.files[index]
        if let refusal {
            let error = #expect(throws: MediaError.self, "\(name)") { try AudioFileSummary(bytes: bytes) }
            #expect(error?.code == refusal, "\(name): \(String(describing: error))")
        } else {
            let summary = try AudioFileSummary(bytes: bytes)
            #expect(summary.properties.fileType == .caf, "\(name)")
            if let rate = summary.properties.bitRate { #expect(rate >= 0, "\(name)") }
        }
        // The reader, to the end of what it can read (a format without a PCM layout is refused at open).
        let dir = try TemporaryDirectory()
        let path = dir.file("huge.caf")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            let reader = try AudioFileReader(path: path)
            while try reader.next() != nil {}
        } catch let error as MediaError {
            #expect(error.byteOffset != nil || error.code == .unsupportedFormat, "\(name): \(error)")
        }
    }
}
