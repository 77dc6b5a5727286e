import MediaCore

/// The CAF part of ``AudioFileStreamParser``: Core Audio Format files, read front to back with the
/// pieces ``CAFReader`` uses (``CAFAudioDescription``, ``CAFPacketTable`` and its checks,
/// ``CAFMagicCookie``, ``CAFChannelLayoutChunk``), so both accept and refuse the same files. It also
/// walks a whole file's chunks for ``CAFReader`` (``init(walkingFileOf:)``): one chunk walk for both.
///
/// Chunks before `data` come in any order: `desc` (see ``CAFStreamFormat``), `kuki`, `pakt`, `chan`
/// (its first 12 bytes). `info`, `free`, `uuid` and unknown chunks are skipped with
/// ``AudioFileStreamDiagnostic/chunkSkipped(type:byteOffset:size:)`` (`AudioFileStream` has no event
/// for `info`'s strings). `data` skips `mEditCount`; a size of -1 runs to the end of the file.
///
/// At `data` (or, see below, at a late `pakt`) it reports `dataFormat`, `channelLayout` (from `chan`,
/// else the count's default), `magicCookie` (for AAC the AudioSpecificConfig unwrapped from the
/// `ES_Descriptor` Apple stores, as ``CAFReader`` gives it; for ALAC and others the `kuki` bytes as
/// stored), `dataOffset`, `audioDataByteCount` and `audioDataPacketCount` (when known),
/// `packetTableInfo` (from `pakt`: priming, remainder, valid frames), `maximumPacketSize` (the largest
/// packet in `pakt` for variable packets), `bitRate` (the average for variable packets) and
/// `readyToProducePackets`; then packets: constant ones through ``CBRPacketBatcher`` (the count from
/// `pakt`, whose `mNumberPackets` of 0 means the data's count, or from the data), variable ones through
/// ``PacketTableBatcher`` with `pakt`'s sizes and, when `mFramesPerPacket` is 0, frame counts. Seeking
/// is exact: by multiplication, or from the packet table's cumulative offsets.
///
/// A push parser cannot look ahead. So:
/// - A `pakt` after `data` (FFmpeg writes ALAC so) for variable packets: the `data` audio is held, up to
///   ``AudioFileStreamParser/Batching/maxHeldBytes`` bytes, until `pakt` arrives; then everything is reported and the held packets handed
///   out (offsets stay file offsets). `kuki` and `chan` may come after `data` too, before `pakt`.
/// - A `pakt` after `data` for constant packets comes after the packets: it is skipped with a
///   diagnostic (its priming and remainder are not reported).
/// - Variable packets with no `pakt` before a `data` that runs to the end cannot be cut: refused.
///
/// After the audio, a chunk running past the end of the file or bytes holding no chunk header are notes.
///
/// - Throws: ``/MediaCore/MediaError/Code/truncated`` when the file ends in its header, a chunk header or
///   a chunk before the audio, or before `data`; ``/MediaCore/MediaError/Code/invalidData`` for a negative
///   chunk size (but -1 for `data`), a `desc` shorter than 32 bytes or with an unusable rate or channel
///   count, no `desc` before `data`, a second `data`, variable packets and no `pakt` at all, and
///   whatever ``CAFPacketTable`` and ``CAFMagicCookie`` refuse; ``/MediaCore/MediaError/Code/unsupportedFormat``
///   for a version other than 1, the cases above, a `kuki` over ``cookieLimit``, a `pakt` over
///   ``tableLimit``, a packet over ``packetLimit`` and a held `data` over ``AudioFileStreamParser/Batching/maxHeldBytes``.
struct CAFStreamParser: ChunkedFormatParser {
    /// The largest `pakt` read: 16 MiB (some 8 million AAC packets, 50 hours at 44.1 kHz).
    static let tableLimit: Int64 = 16 << 20
    /// The largest `kuki` read: 1 MiB.
    static let cookieLimit: Int64 = 1 << 20
    /// The largest packet: 16 MiB.
    static let packetLimit = 16 << 20
    /// Skips stop here, so that offsets cannot overflow; no input holds as much.
    static let skipCap: Int64 = 1 << 62

    /// What the parser expects next (shared with the other chunked container).
    typealias Phase = ChunkParserPhase

    /// Where the `data` chunk's audio is (a declared size of -1 runs to the end; the audio starts after
    /// `mEditCount`).
    typealias AudioData = ChunkAudio

    /// The batch limits.
    let batching: AudioFileStreamParser.Batching
    /// What comes next.
    var phase = Phase.fileHeader
    /// The checked `desc` chunk and its header's offset.
    var desc: (format: CAFStreamFormat, offset: Int64)?
    /// The `kuki` chunk's body and the body's offset.
    var cookie: (bytes: [UInt8], offset: Int64)?
    /// The `pakt` chunk's body and its header's offset.
    var pakt: (body: [UInt8], offset: Int64)?
    /// The first bytes of the `chan` chunk's body.
    var chan: [UInt8]?
    /// The `data` chunk, once its header has been read.
    var audio: AudioData?
    /// `data` audio held until `pakt` arrives.
    var held = HeldAudio()
    /// The end of the late `pakt` chunk, when the reader deferred the held audio: after the audio the
    /// parse goes on from here (the chunks in between were read before).
    var lateChunksEnd: Int64?
    /// Cuts constant-size packets (a placeholder until ``ready(_:fromHeld:)``).
    var cbr = CBRPacketBatcher(bytesPerPacket: 1, framesPerPacket: 1, dataOffset: 0, declaredSize: 0, batching: .init())
    /// The packet table's batcher, for variable packets.
    var vbr: PacketTableBatcher?
    /// The packet count, when known.
    var packetCount: Int64?
    /// Whether `readyToProducePackets` has been reported.
    var isReady = false
    /// Whether every packet has been handed out (what follows can no longer fail the parse).
    var isDataDone = false
    /// The chunk being skipped, to name it if the input ends inside it.
    var skipped: SkippedChunk?
    /// What a walk for ``CAFReader`` collects; `nil` for a stream parse (see ``init(walkingFileOf:)``).
    var walk: CAFFileWalk?

    /// A parser at the start of the file.
    init(batching: AudioFileStreamParser.Batching) { self.batching = batching }

    /// Hands out the next batch of packets from `input` (or the held audio's window, which only
    /// variable packets have); whether it did.
    mutating func emitPackets(from input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) -> Bool {
        if vbr != nil { return vbr?.emit(from: &input, into: &events) == true }
        return cbr.emit(from: &input, into: &events)
    }

    /// Whether every packet has been cut.
    var arePacketsDone: Bool { vbr?.isDone ?? cbr.isDone }

    /// `caff`, `mFileVersion` 1 and `mFileFlags`.
    mutating func fileHeader(_ input: inout ByteWindow) throws(MediaError) -> Bool {
        guard input.available >= CAFFile.fileHeaderSize else {
            guard input.isFinished else { return false }
            throw MediaError.truncated(
                "CAF file header", needed: CAFFile.fileHeaderSize, available: input.available, at: input.position)
        }
        guard input.fourCC(at: 0) == "caff" else {
            throw MediaError.invalidData(
                "not a CAF file: it starts with \(FourCC.describe(input.peek(upTo: 4))), not 'caff'", at: 0)
        }
        let version = input.bigEndian(UInt16.self, at: 4)
        guard version == CAFFile.fileVersion else {
            throw MediaError(.unsupportedFormat, "CAF mFileVersion \(version) is not 1", byteOffset: 4)
        }
        input.skip(Int64(CAFFile.fileHeaderSize))
        phase = .chunkHeader
        return true
    }

    /// Lets go of the held audio and goes on with the chunks after it, from its end.
    mutating func deferHeldAudio(_ input: inout ByteWindow) -> Int64? {
        guard case .holding = phase, let range = held.range else { return nil }
        held.deferToReader()
        input.reset(at: range.upperBound)
        phase = .chunkHeader
        return range.upperBound
    }

    /// Skips the rest of the chunk at `offset`, from file offset `from`.
    mutating func skip(
        _ input: inout ByteWindow, type: String, offset: Int64, size: Int64, from: Int64, tolerance: Int64 = 0
    ) {
        let header = Int64(CAFFile.chunkHeaderSize)
        input.skip(offset + header + min(size, Self.skipCap) - from)
        skipped = SkippedChunk(
            container: "CAF", type: type, headerOffset: offset, bodyOffset: offset + header, declaredSize: size,
            tolerance: tolerance)
    }

    /// A chunk header: `data`, a chunk to read, or one to skip.
    mutating func chunkHeader(_ input: inout ByteWindow, _ events: inout [AudioFileStreamEvent])
        throws(MediaError) -> Bool
    {
        if let waited = try endOfSkip(&input, &events) { return waited }
        guard input.available >= CAFFile.chunkHeaderSize else {
            guard input.isFinished else { return false }
            return try endOfInput(&input, &events)
        }
        let offset = input.position
        let type = input.fourCC(at: 0)
        let size = Int64(bitPattern: input.bigEndian(UInt64.self, at: 4))
        if walk != nil { return try walkChunk(&input, offset: offset, size: size) }
        if type == "data" { return try dataChunk(&input, &events, offset: offset, size: size) }
        guard size >= 0 else {
            guard isDataDone else {
                throw MediaError.invalidData(
                    "CAF '\(type)' chunk declares a size of \(count: size, "byte")", at: offset)
            }
            phase = .trailing(
                "from the '\(type)' chunk after the audio data, which declares a size of \(count: size, "byte")")
            return true
        }
        if audio != nil {
            return try chunkAfterData(&input, &events, type: type, offset: offset, size: size)
        }
        switch type {
        case "desc", "kuki", "pakt", "chan":
            return try readChunk(&input, &events, type: type, offset: offset, size: size)
        default:
            events.append(.diagnostic(.chunkSkipped(type: type, byteOffset: offset, size: size)))
            skip(&input, type: type, offset: offset, size: size, from: offset)
            return true
        }
    }
}
