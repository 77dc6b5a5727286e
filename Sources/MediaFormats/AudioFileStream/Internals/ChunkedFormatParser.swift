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
    /// Whether every packet of the audio has been cut.
    var arePacketsDone: Bool { get }
    /// The chunk being skipped, to name it if the input ends inside it.
    var skipped: SkippedChunk? { get }

    /// Reads the file header.
    mutating func fileHeader(_ input: inout ByteWindow) throws(MediaError) -> Bool
    /// Reads a chunk header: the audio chunk, a chunk to read, or one to skip.
    mutating func chunkHeader(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent]) throws(MediaError)
        -> Bool
    /// Copies audio whose describing chunk comes after it into ``held``.
    mutating func hold(_ input: inout ByteWindow) throws(MediaError) -> Bool
    /// Hands out the next batch of packets from `input` (or the held audio's window); whether it did.
    mutating func emitPackets(from input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) -> Bool
    /// After the last packet from the input: skips the rest of the audio chunk and goes on with the
    /// chunks after it.
    mutating func finishData(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent])
}

extension ChunkedFormatParser {
    /// One step; `false` when nothing can be done until more bytes arrive (or ever).
    mutating func step(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError)
        -> Bool
    {
        switch phase {
        case .fileHeader: return try fileHeader(&input)
        case .chunkHeader: return try chunkHeader(&input, &events)
        case .holding: return try hold(&input)
        case .data:
            if emitPackets(from: &input, into: &events) { return true }
            guard arePacketsDone else { return false }
            finishData(&input, &events)
            return true
        case .heldData:
            var window = ByteWindow()
            swap(&window, &held.window)  // not a copy: the held bytes move out and back
            let emitted = emitPackets(from: &window, into: &events)
            swap(&window, &held.window)
            if emitted { return true }
            finishHeldData(&events)
            return true
        case .awaitingAudio, .trailing, .done:
            return stepAfterAudio(&input, into: &events)
        }
    }

    /// The held audio's range, while it is being held.
    var heldAudioRange: Range<Int64>? {
        guard case .holding = phase else { return nil }
        return held.range
    }

    /// A step in the phases after the packets, alike in both: waiting for a deferred audio's
    /// resumption, skipping what is left with one note saying why, and done.
    mutating func stepAfterAudio(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) -> Bool {
        switch phase {
        case .trailing(let why):
            if input.available > 0 {
                events.append(.diagnostic(.note("Skipped the bytes \(why)", byteOffset: input.position)))
                input.skip(Int64(input.available))
                phase = .done
                return true
            }
            if input.isFinished && input.pendingSkip == 0 { phase = .done }
            return false
        case .done:
            input.skip(Int64(input.available))
            return false
        default:
            return false
        }
    }

    /// Before a chunk header, while a skip is pending: waits for it (`false`), or, when the input ended
    /// inside the skipped chunk, throws its truncation before the audio is done and notes it after
    /// (`true`). `nil` when the chunk header can be read.
    mutating func endOfSkip(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent]) throws(MediaError)
        -> Bool?
    {
        guard input.pendingSkip > 0 else { return nil }
        guard input.isFinished else { return false }
        guard let skipped, skipped.ranPastEnd(input) else { return nil }
        guard isDataDone else { throw skipped.truncation(input) }
        events.append(.diagnostic(skipped.diagnostic(input)))
        phase = .done
        return true
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

/// Where a chunked container's audio chunk (AIFF `SSND`, CAF `data`) and its audio are.
struct ChunkAudio: Sendable {
    /// The chunk header's offset.
    var headerOffset: Int64
    /// The chunk's declared size, as written (its container's value for "to the end" included).
    var declaredSize: Int64
    /// The first audio byte's offset.
    var audioStart: Int64
    /// The audio's size, `nil` when it runs to the end of the file.
    var audioSize: Int64?
}
