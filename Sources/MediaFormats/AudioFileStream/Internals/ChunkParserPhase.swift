import MediaCore

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

/// A chunked container's parser (AIFF/AIFC, CAF): what both keep in the same phases, and what they do
/// alike with it.
protocol ChunkedFormatParser: SteppingFormatParser {
    /// What the parser expects next.
    var phase: ChunkParserPhase { get set }
    /// Audio held until the chunk that describes it arrives.
    var held: HeldAudio { get set }
    /// Whether every packet has been handed out (what follows can no longer fail the parse).
    var isDataDone: Bool { get set }
}

extension ChunkedFormatParser {
    /// The held audio's range, while it is being held.
    var heldAudioRange: Range<Int64>? {
        guard case .holding = phase else { return nil }
        return held.range
    }

    /// After the last packet from ``held``: reports held audio beyond the packets, then goes on with the
    /// chunks after the late one.
    mutating func finishHeldData(_ events: inout [AudioFileStreamEvent]) {
        isDataDone = true
        held.finish(into: &events)
        phase = .chunkHeader
    }

    /// The input ended at a chunk boundary or inside a chunk header, after the audio: bytes that hold no
    /// chunk header get a note and the parse is done. `nil` while the audio is not done (the caller says
    /// what is missing).
    mutating func endAfterAudio(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent]) -> Bool? {
        guard isDataDone else { return nil }
        phase = .done
        guard input.available > 0 else { return false }
        events.append(
            .diagnostic(
                .note(
                    "Skipped \(count: input.available, "byte") after the audio data that hold no chunk header",
                    byteOffset: input.position)))
        return true
    }
}
