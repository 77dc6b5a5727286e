/// What a chunked container's parser (AIFF/AIFC, CAF) expects next. Both read a file header, then
/// chunks, and may meet their audio before the chunk that describes it (an AIFF `COMM` after `SSND`, a
/// CAF `pakt` after `data`), so they share the phases of holding, or deferring, that audio.
enum ChunkParserPhase: Sendable {
    /// The file header (`FORM` … `AIFF`/`AIFC`; `caff`, version and flags).
    case fileHeader
    /// A chunk header (after any pending skip).
    case chunkHeader
    /// Audio to copy into the parser's ``HeldAudio``: its describing chunk comes after it.
    case holding
    /// Packets from the input.
    case data
    /// Packets from the held audio.
    case heldData
    /// Everything is reported; the reader that deferred the held audio
    /// (``AudioFileStreamParser/deferHeldAudio()``) pushes it again after `resume(atPacket:byteOffset:)`.
    case awaitingAudio
    /// Everything left is skipped, with one note saying why.
    case trailing(String)
    /// Nothing more to say.
    case done
}
