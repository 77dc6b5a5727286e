/// The LAME tag (LAME's "Mp3 Info Tag rev 1", also written by FFmpeg) right after a Xing/Info tag: a
/// 9-byte encoder string starting `LAME`, `Lavf` or `Lavc` (the strings FFmpeg accepts), then at byte
/// 21 the encoder delay and the padding as two 12-bit numbers.
///
/// The delay is what the encoder added before the audio (576 for LAME), the padding what it added after.
/// An MPEG Layer III decoder adds 529 frames of its own delay (528 of the synthesis filter bank plus
/// one), which is why a player trims `delay + 529` at the start and `padding - 529` at the end (FFmpeg's
/// `start_skip_samples` and `first_discard_sample`; ``MP3StreamParser`` reports them that way).
struct MP3LAMETag: Sendable, Hashable {
    /// The 9-byte encoder string, e.g. `LAME3.100` or `Lavc59.37`.
    let encoder: String
    /// Frames the encoder added before the audio.
    let encoderDelay: Int
    /// Frames the encoder added after the audio.
    let padding: Int

    /// The decoder delay of MPEG audio decoders, added to the encoder delay: 528 + 1.
    static let decoderDelay = 529

    /// The tag `offset` bytes into `frame`; `nil` when the encoder string is not one of the three or
    /// the tag does not fit in the frame.
    init?(frame: ArraySlice<UInt8>, at offset: Int) {
        guard offset >= 0, offset + 24 <= frame.count else { return nil }
        let base = frame.startIndex + offset
        let name = Array(frame[base..<(base + 4)])
        guard name == Array("LAME".utf8) || name == Array("Lavf".utf8) || name == Array("Lavc".utf8) else { return nil }
        encoder = String(decoding: frame[base..<(base + 9)].map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
        let packed = Int(frame[base + 21]) << 16 | Int(frame[base + 22]) << 8 | Int(frame[base + 23])
        encoderDelay = packed >> 12
        padding = packed & 0xFFF
    }
}
