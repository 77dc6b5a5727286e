/// The Xing or Info tag that LAME, FFmpeg and most encoders put in the first frame of an MP3 file, in
/// place of audio: how many frames and bytes follow, and a 100-entry table of contents for seeking.
/// `Xing` marks a variable bit rate, `Info` a constant one (LAME's convention).
///
/// Layout (all big-endian), at the end of the frame's side information (``MP3FrameHeader/sideInfoEnd``;
/// with a CRC also 2 bytes earlier, where FFmpeg looks): `Xing`/`Info`, 32-bit flags, then, each present
/// only when its flag is set, the frame count (0x1), the byte count (0x2), the TOC (0x4, 100 bytes) and
/// a quality indicator (0x8). A LAME-style tag (``MP3LAMETag``) may follow at once.
///
/// Fields that do not fit inside the frame are treated as absent. LAME's counts: the frame count
/// excludes the tag's own frame; the byte count includes it (and excludes an ID3v2 tag before it).
struct MP3XingTag: Sendable, Hashable {
    /// Whether the tag says `Info` (constant bit rate) rather than `Xing`.
    let isInfo: Bool
    /// The number of audio frames after the tag's frame.
    let frameCount: Int64?
    /// The number of bytes from the tag's frame to the end of the audio, that frame included.
    let byteCount: Int64?
    /// The table of contents: for each percent of the duration, the byte position at which it starts
    /// in 256ths of ``byteCount``.
    let tableOfContents: [UInt8]?
    /// The encoder's delay and padding, when a LAME-style tag follows.
    let lame: MP3LAMETag?

    /// The tag in `frame`, the whole first frame (header included) whose header is `header`; `nil` when
    /// there is none.
    init?(frame: ArraySlice<UInt8>, header: MP3FrameHeader) {
        var candidates = [header.sideInfoEnd]
        if header.hasCRC { candidates.append(header.sideInfoEnd - 2) }
        guard let start = candidates.first(where: { Self.hasSignature(frame, at: $0) }) else { return nil }
        let base = frame.startIndex
        isInfo = frame[base + start] == 0x49  // "I"
        let flags = MP3VBRIHeader.bigEndian(frame, at: start + 4, bytes: 4) ?? 0
        var next = start + 8
        func field(_ flag: Int64, bytes: Int) -> Int64? {
            guard flags & flag != 0 else { return nil }
            defer { next += bytes }
            return MP3VBRIHeader.bigEndian(frame, at: next, bytes: min(bytes, 4))
        }
        frameCount = field(0x1, bytes: 4)
        byteCount = field(0x2, bytes: 4)
        if flags & 0x4 != 0, next + 100 <= frame.count {
            tableOfContents = Array(frame[(base + next)..<(base + next + 100)])
        } else {
            tableOfContents = nil
        }
        if flags & 0x4 != 0 { next += 100 }
        if flags & 0x8 != 0 { next += 4 }
        lame = MP3LAMETag(frame: frame, at: next)
    }

    /// Whether `Xing` or `Info` starts `offset` bytes into `frame`.
    private static func hasSignature(_ frame: ArraySlice<UInt8>, at offset: Int) -> Bool {
        guard offset >= 0, offset + 8 <= frame.count else { return false }
        let bytes = Array(frame[(frame.startIndex + offset)..<(frame.startIndex + offset + 4)])
        return bytes == [0x58, 0x69, 0x6E, 0x67] || bytes == [0x49, 0x6E, 0x66, 0x6F]  // "Xing", "Info"
    }
}
