/// The tags at the end of an MP3 file, found from the end once the input has ended: an ID3v1 tag (`TAG`
/// in the last 128 bytes) and, before it or at the very end, an APE tag located by its 32-byte footer
/// (`APETAGEX` with flag bit 29 clear; its size counts the items and the footer, plus 32 bytes when flag
/// bit 31 says a header precedes them) and a Lyrics3 v2.00 tag (its 6-digit size and `LYRICS200`),
/// in either order.
///
/// The audio ends where the first of these tags starts, so that the bytes of a tag are never taken
/// for damage and the last frame is confirmed by the tag that follows it. An APE footer whose size
/// reaches back before `floor` (bytes the parser has already decided about) is not believed.
struct MP3Trailer: Sendable, Hashable {
    /// One trailing tag: where it starts in the file, its length and kind.
    struct Tag: Sendable, Hashable {
        /// The file offset of the tag's first byte.
        let offset: Int64
        /// The tag's length in bytes.
        let length: Int64
        /// `ID3v1`, `APEv2` or `APEv1`.
        let kind: String
    }

    /// The bytes a searching parser keeps unconsumed at the end of what it has, because it cannot yet
    /// tell whether they are trailing tags: 4 KiB, so that the end markers of an ID3v1 tag and of two
    /// tags before it (an APE footer, a Lyrics3 size) are still there when the input ends, unless the
    /// nearer of those two is longer than about 3.9 KiB.
    static let lookahead = 4096

    /// The APE tag whose footer ends `tail` bytes into `input`, if its start is not before `floor`.
    private static func apeTag(_ input: ByteWindow, endingAt tail: Int, floor: Int64) -> Tag? {
        let footer = MP3Tag.apeHeaderLength
        guard tail >= footer, Array(input.peek(upTo: tail).suffix(footer).prefix(8)) == MP3Tag.apeSignature,
            let fields = MP3Tag.APEFields(input, at: tail - footer), !fields.isHeader
        else { return nil }
        let length = fields.size + (fields.hasHeader ? Int64(footer) : 0)
        let start = input.position + Int64(tail) - length
        return start >= floor ? Tag(offset: start, length: length, kind: fields.kind) : nil
    }

    /// The Lyrics3 v2.00 tag ending `tail` bytes into `input` (`LYRICSBEGIN` … a 6-digit size of
    /// everything from `LYRICSBEGIN` to it, then `LYRICS200`), if its start is not before `floor`.
    private static func lyrics3Tag(_ input: ByteWindow, endingAt tail: Int, floor: Int64) -> Tag? {
        guard tail >= 15 else { return nil }
        let end = input.peek(upTo: tail).suffix(15)
        guard Array(end.suffix(9)) == Array("LYRICS200".utf8) else { return nil }
        var size: Int64 = 0
        for digit in end.prefix(6) {
            guard digit >= 0x30, digit <= 0x39 else { return nil }
            size = size * 10 + Int64(digit - 0x30)
        }
        let length = size + 15
        let start = input.position + Int64(tail) - length
        guard start >= floor else { return nil }
        // When the tag's start is still here, it must say LYRICSBEGIN.
        let relative = tail - Int(length)
        if relative >= 0, Array(input.peek(upTo: relative + 11).suffix(11)) != Array("LYRICSBEGIN".utf8) { return nil }
        return Tag(offset: start, length: length, kind: "Lyrics3v2")
    }

    /// The file offset where the audio ends: the first trailing tag's, or the end of the file.
    let audioEnd: Int64
    /// The trailing tags in file order.
    let tags: [Tag]

    /// The trailer of a finished input whose unconsumed bytes `input` holds (they run to the end of the
    /// file). `floor` is the earliest file offset a tag may start at.
    init(_ input: ByteWindow, floor: Int64) {
        let end = input.position + Int64(input.available)
        var tags: [Tag] = []
        var tail = input.available  // relative end of what is not yet a tag
        if Int64(tail) >= MP3Tag.id3v1Length {
            let at = tail - Int(MP3Tag.id3v1Length)
            if input[at] == 0x54, input[at + 1] == 0x41, input[at + 2] == 0x47 {
                tags.append(Tag(offset: input.position + Int64(at), length: MP3Tag.id3v1Length, kind: "ID3v1"))
                tail = at
            }
        }
        // Before the ID3v1 tag, an APE tag and a Lyrics3 v2.00 tag, in either order.
        for _ in 0..<2 {
            if let ape = Self.apeTag(input, endingAt: tail, floor: floor) {
                tags.insert(ape, at: 0)
                tail -= Int(min(ape.length, Int64(tail)))
            } else if let lyrics = Self.lyrics3Tag(input, endingAt: tail, floor: floor) {
                tags.insert(lyrics, at: 0)
                tail -= Int(min(lyrics.length, Int64(tail)))
            } else {
                break
            }
        }
        self.tags = tags
        audioEnd = tags.first?.offset ?? end
    }
}
