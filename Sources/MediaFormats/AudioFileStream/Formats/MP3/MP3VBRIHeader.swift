/// The VBRI header that Fraunhofer's encoders put in the first frame of a variable-bit-rate MP3 file, in
/// place of audio: always 32 bytes after the 4-byte frame header.
///
/// Layout (big-endian): `VBRI`, version (2), delay (2), quality (2), bytes (4), frames (4), TOC entry
/// count (2), TOC scale factor (2), bytes per TOC entry (2, 1–4), frames per TOC entry (2), then the
/// entries: each the size in bytes, divided by the scale factor, of the next run of that many frames.
/// A table that does not fit inside the frame, or has an entry size outside 1–4 or 0 frames per entry,
/// is dropped (the counts are kept).
struct MP3VBRIHeader: Sendable, Hashable {
    /// The offset of `VBRI` from the frame's start.
    static let offset = 36

    /// The stream's byte count (as Fraunhofer counts it, from the VBRI frame).
    let byteCount: Int64
    /// The number of audio frames.
    let frameCount: Int64
    /// Each run's size in bytes (already multiplied by the scale factor).
    let tableOfContents: [Int64]
    /// How many frames each table entry covers.
    let framesPerEntry: Int

    /// The header in `frame`, the whole first frame; `nil` when there is none.
    init?(frame: ArraySlice<UInt8>) {
        let start = Self.offset
        guard start + 26 <= frame.count,
            Array(frame[(frame.startIndex + start)..<(frame.startIndex + start + 4)]) == Array("VBRI".utf8),
            let bytes = Self.bigEndian(frame, at: start + 10, bytes: 4),
            let frames = Self.bigEndian(frame, at: start + 14, bytes: 4),
            let entries = Self.bigEndian(frame, at: start + 18, bytes: 2),
            let scale = Self.bigEndian(frame, at: start + 20, bytes: 2),
            let entrySize = Self.bigEndian(frame, at: start + 22, bytes: 2),
            let perEntry = Self.bigEndian(frame, at: start + 24, bytes: 2)
        else { return nil }
        byteCount = bytes
        frameCount = frames
        let tableStart = start + 26
        if (1...4).contains(entrySize), perEntry > 0, entries > 0, tableStart + Int(entries * entrySize) <= frame.count
        {
            tableOfContents = (0..<Int(entries)).map { i in
                (Self.bigEndian(frame, at: tableStart + i * Int(entrySize), bytes: Int(entrySize)) ?? 0) * max(1, scale)
            }
            framesPerEntry = Int(perEntry)
        } else {
            tableOfContents = []
            framesPerEntry = 0
        }
    }

    /// The big-endian unsigned integer of `bytes` (at most 4) bytes `offset` bytes into `frame`, or `nil`
    /// when it does not fit.
    static func bigEndian(_ frame: ArraySlice<UInt8>, at offset: Int, bytes: Int) -> Int64? {
        guard offset >= 0, bytes <= 4, offset + bytes <= frame.count else { return nil }
        var value: Int64 = 0
        for i in 0..<bytes { value = value << 8 | Int64(frame[frame.startIndex + offset + i]) }
        return value
    }
}
