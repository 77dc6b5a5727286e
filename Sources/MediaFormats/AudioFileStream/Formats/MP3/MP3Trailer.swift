/// The tags at the end of an MP3 file, found from the end once the input has ended: an ID3v1 tag (`TAG`
/// in the last 128 bytes) and, before it or at the very end, an APE tag located by its 32-byte footer
/// (`APETAGEX` with flag bit 29 clear; its size counts the items and the footer, plus 32 bytes when flag
/// bit 31 says a header precedes them).
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

    /// The bytes a parser keeps unconsumed at the end of what it has while it cannot yet tell whether they
    /// are a trailing tag: an ID3v1 tag and an APE footer.
    static let lookahead = Int(MP3Tag.id3v1Length) + MP3Tag.apeHeaderLength

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
        let footerLength = MP3Tag.apeHeaderLength
        if tail >= footerLength, Array(input.peek(upTo: tail).suffix(footerLength).prefix(8)) == MP3Tag.apeSignature,
            let fields = MP3Tag.APEFields(input, at: tail - footerLength), !fields.isHeader
        {
            let length = fields.size + (fields.hasHeader ? Int64(footerLength) : 0)
            let start = input.position + Int64(tail) - length
            if start >= floor {
                tags.insert(Tag(offset: start, length: length, kind: fields.kind), at: 0)
            }
        }
        self.tags = tags
        audioEnd = tags.first?.offset ?? end
    }
}
