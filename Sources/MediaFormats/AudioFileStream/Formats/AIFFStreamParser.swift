import MediaCore

/// The AIFF and AIFF-C part of ``AudioFileStreamParser``: a `FORM` of type `AIFF` or `AIFC`, big-endian
/// chunks padded to even sizes.
///
/// Reads `COMM` (see ``AIFFCommonChunk`` for the encodings) and `SSND`, whose audio starts at its body +
/// 8 + `offset` (`blockSize` is ignored). Every other chunk (`FVER`, `NAME`, `ANNO`, `AUTH`, `(c) `,
/// `COMT`, `MARK`, `INST`, `ID3 `, `APPL`, unknown ones) is skipped with
/// ``AudioFileStreamDiagnostic/chunkSkipped(type:byteOffset:size:)``.
///
/// Events: `dataFormat` and `channelLayout` (the channel count's default) when `COMM` is read;
/// `dataOffset`, `audioDataByteCount`, `audioDataPacketCount`, `maximumPacketSize`, `bitRate` and
/// `readyToProducePackets` once `COMM` and `SSND` are both known; then ``CBRPacketBatcher`` batches.
/// The packet count is `numSampleFrames` (IMA4: see ``AIFFCommonChunk``; when the `SSND` chunk cannot
/// hold that many IMA4 packets but can hold `numSampleFrames` / 64 rounded up, it is read as a frame
/// count, with a note and `packetTableInfo` giving the remainder); `SSND` bytes after those packets
/// are reported as ``AudioFileStreamDiagnostic/trailingBytesSkipped(byteOffset:count:)``. Seeking is exact.
///
/// - `COMM` after `SSND` (legal, and FFmpeg cannot read it from a pipe): the `SSND` audio is held, up to
///   ``AudioFileStreamParser/Batching/maxHeldBytes`` bytes, until `COMM` arrives, then handed out; offsets stay file offsets.
/// - An `SSND` size of 0 (FFmpeg writing to a pipe, which also leaves `numSampleFrames` 0) means the
///   audio runs to the end of the file (with a note); the counts are not reported when they are 0.
/// - After the audio, a chunk that runs past the end of the file or bytes that hold no chunk header are
///   notes, not errors; bytes after the `FORM` chunk's end are skipped with a note.
///
/// - Throws: ``/MediaCore/MediaError/Code/truncated`` when the file ends inside a header, or before
///   `COMM` or `SSND`, or inside a chunk before the audio; ``/MediaCore/MediaError/Code/invalidData`` for
///   a second `COMM` or `SSND`, an `SSND` smaller than its 8-byte header or whose `offset` runs past it,
///   a `COMM` smaller than 18 bytes or with impossible fields, `numSampleFrames` needing more bytes than
///   `SSND` holds; ``/MediaCore/MediaError/Code/unsupportedFormat`` for an unknown compression type and for
///   an `SSND` of more than ``AudioFileStreamParser/Batching/maxHeldBytes`` audio bytes before any `COMM`.
struct AIFFStreamParser: ChunkedFormatParser {

    /// What the parser expects next (shared with the other chunked container).
    typealias Phase = ChunkParserPhase

    /// Where the `SSND` chunk's audio is (a declared size of 0 runs to the end).
    typealias SoundData = ChunkAudio

    /// The batch limits.
    let batching: AudioFileStreamParser.Batching
    /// What comes next.
    var phase = Phase.fileHeader
    /// Whether the form type is `AIFC` (its `COMM` has a compression type).
    var isAIFC = false
    /// The end of the `FORM` chunk, when its size is plausible.
    var formEnd: Int64?
    /// The `COMM` chunk and its header's offset.
    var comm: (chunk: AIFFCommonChunk, offset: Int64)?
    /// The `SSND` chunk, once its header has been read.
    var sound: SoundData?
    /// `SSND` audio held until `COMM` arrives.
    var held = HeldAudio()
    /// The end of the late `COMM` chunk, when the reader deferred the held audio: after the audio the
    /// parse goes on from here (the chunks in between were read before).
    var lateChunksEnd: Int64?
    /// Cuts the packets (a placeholder until ``startData(_:fromHeld:)``).
    var batcher = CBRPacketBatcher(
        bytesPerPacket: 1, framesPerPacket: 1, dataOffset: 0, declaredSize: 0, batching: .init())
    /// The packet count, when known.
    var packetCount: Int64?
    /// Whether `readyToProducePackets` has been reported.
    var isReady = false
    /// Whether every packet has been handed out (what follows can no longer fail the parse).
    var isDataDone = false
    /// The chunk being skipped, to name it if the input ends inside it.
    var skipped: SkippedChunk?

    /// A parser at the start of the file.
    init(batching: AudioFileStreamParser.Batching) { self.batching = batching }

    /// Hands out the next batch of packets from `input` (or the held audio's window); whether it did.
    mutating func emitPackets(from input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) -> Bool {
        batcher.emit(from: &input, into: &events)
    }

    /// Whether every packet has been cut.
    var arePacketsDone: Bool { batcher.isDone }

    /// `FORM`, its size and the form type.
    mutating func fileHeader(_ input: inout ByteWindow) throws(MediaError) -> Bool {
        guard input.available >= 12 else {
            guard input.isFinished else { return false }
            throw MediaError.truncated("AIFF FORM header", needed: 12, available: input.available, at: input.position)
        }
        let type = input.fourCC(at: 8)
        guard input.fourCC(at: 0) == "FORM", type == "AIFF" || type == "AIFC" else {
            throw MediaError.invalidData(
                "not an AIFF file: it starts with '\(input.fourCC(at: 0))' … '\(type)', not 'FORM' … 'AIFF'/'AIFC'",
                at: 0)
        }
        isAIFC = type == "AIFC"
        let size = Int64(input.bigEndian(UInt32.self, at: 4))
        if size >= 4 + 8 { formEnd = input.position + 8 + size }
        input.skip(12)
        phase = .chunkHeader
        return true
    }

    /// A chunk header: `COMM`, `SSND`, or one to skip.
    mutating func chunkHeader(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent])
        throws(MediaError) -> Bool
    {
        if let waited = try endOfSkip(&input, &events) { return waited }
        if isDataDone, let formEnd, input.position >= formEnd {
            phase = .trailing("after the end of the FORM chunk")
            return true
        }
        guard input.available >= 8 else {
            guard input.isFinished else { return false }
            return try endOfInput(&input, &events)
        }
        let offset = input.position
        let type = input.fourCC(at: 0)
        let size = Int64(input.bigEndian(UInt32.self, at: 4))
        let pad = size & 1
        switch type {
        case "COMM":
            return try commonChunk(&input, &events, offset: offset, size: size, pad: pad)
        case "SSND":
            return try soundChunk(&input, &events, offset: offset, size: size)
        default:
            events.append(.diagnostic(.chunkSkipped(type: type, byteOffset: offset, size: size)))
            skip(&input, type: type, offset: offset, size: size, pad: pad, from: offset)
            return true
        }
    }

    /// Lets go of the held audio and goes on with the chunks after it (and its pad byte).
    mutating func deferHeldAudio(_ input: inout ByteWindow) -> Int64? {
        guard case .holding = phase, let range = held.range, let sound else { return nil }
        held.deferToReader()
        let next = range.upperBound + (sound.declaredSize & 1)
        input.reset(at: next)
        phase = .chunkHeader
        return next
    }

    /// Skips to the end of the chunk at `offset` (and its pad byte) from file offset `from`.
    mutating func skip(_ input: inout ByteWindow, type: String, offset: Int64, size: Int64, pad: Int64, from: Int64) {
        input.skip(offset + 8 + size + pad - from)
        skipped = SkippedChunk(
            container: "AIFF", type: type, headerOffset: offset, bodyOffset: offset + 8, declaredSize: size,
            tolerance: pad)
    }

    /// The input ended at a chunk boundary or inside a chunk header.
    private mutating func endOfInput(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent])
        throws(MediaError) -> Bool
    {
        if let done = endAfterAudio(&input, &events) { return done }
        let missing = comm == nil ? "'COMM'" : "'SSND'"
        let before = sound.map { " (after the 'SSND' chunk at byte offset \($0.headerOffset))" } ?? ""
        throw MediaError.truncated(
            "AIFF \(missing) chunk header\(before)", needed: 8, available: input.available, at: input.position)
    }
}
