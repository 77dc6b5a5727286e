import MediaCore

/// What ``AudioFileStreamParser`` asks of each container's parser (WAVE, AIFF/AIFC, CAF, NeXT, ADTS,
/// MP3). The stream parser sniffs the file type, reports ``AudioFileStreamEvent/fileType(_:)`` and hands
/// every byte, from the file's first, to one of these.
///
/// The contract, which ``AudioFileStreamParser`` and its tests (the drip-feed verifier) rely on:
/// - ``parse(_:into:)`` appends events in the order the file reveals them and returns once it has
///   appended at least one, or needs more bytes, or (the input finished) has nothing left to say.
///   It decides only on bytes it has or on the end of the input, never on how the bytes were split, so
///   the events and errors are the same for any split.
/// - Properties come first, then ``AudioFileStreamEvent/readyToProducePackets`` exactly once, then
///   ``AudioFileStreamEvent/packets(_:)`` batches (see ``CBRPacketBatcher`` and ``VBRPacketBatch``)
///   with ``AudioFileStreamEvent/diagnostic(_:)`` where it skipped or worked around something.
/// - Errors are ``/MediaCore/MediaError``s with the byte offset of what is wrong: ``truncated`` for a
///   file that ends inside a header (decided at the end of the input), ``invalidData`` for contradictory
///   or impossible fields, ``unsupportedFormat`` for a valid file this parser cannot read. An error
///   ends the parse. Sizes from the file (up to 2^64-1) are never trusted for an allocation.
/// - Memory stays flat: skip what is not needed with ``ByteWindow/skip(_:)``; hold at most a header or
///   one batch.
protocol AudioFileFormatParser: Sendable {
    /// A parser at the start of the file.
    init(batching: AudioFileStreamParser.Batching)

    /// Parses from `input`, appending to `events`; see the protocol's contract.
    mutating func parse(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError)

    /// Where `packet` starts in the file and whether that is an estimate, once the data's properties
    /// are known; `nil` when this format cannot say (yet).
    func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset?

    /// Continues at `packet`, whose first byte is at `byteOffset` (what ``seekOffset(forPacket:)`` said):
    /// the next bytes pushed are that packet's. The next batch has ``AudioFilePackets/isDiscontinuity``.
    mutating func resume(atPacket packet: Int64, byteOffset: Int64)

    /// The file range of audio being held until a chunk the container puts after it; `nil` otherwise
    /// (and for formats that never hold audio).
    var heldAudioRange: Range<Int64>? { get }

    /// Stops holding ``heldAudioRange`` (see ``AudioFileStreamParser/deferHeldAudio()``): resets `input`
    /// to the first byte after the audio and returns that offset; once the late chunk has come, reports
    /// everything, then waits for ``resume(atPacket:byteOffset:)``. `nil` when nothing is held.
    mutating func deferHeldAudio(_ input: inout ByteWindow) -> Int64?
}

/// A format parser that decides one thing at a time (``step(_:into:)``): its ``parse(_:into:)`` steps until
/// a step appends an event, or says nothing can be done until more bytes arrive (or ever).
protocol SteppingFormatParser: AudioFileFormatParser {
    /// One step; `false` when nothing can be done until more bytes arrive (or ever).
    mutating func step(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError) -> Bool
}

extension SteppingFormatParser {
    /// Steps until an event is appended or nothing can be done without more bytes.
    mutating func parse(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError) {
        let before = events.count
        while events.count == before, try step(&input, into: &events) {}
    }
}

extension AudioFileFormatParser {
    /// Formats that never hold audio hold none.
    var heldAudioRange: Range<Int64>? { nil }

    /// Formats that never hold audio have nothing to defer.
    mutating func deferHeldAudio(_ input: inout ByteWindow) -> Int64? { nil }
}

/// Cuts constant-size packets (linear PCM frames, A-law/µ-law, IMA4 blocks) out of a data chunk into
/// batches of ``AudioFileStreamParser/Batching`` size, whatever the split of the input.
///
/// A batch is emitted when it is full, or at the end of the data (the chunk's declared end or, when the
/// size is unknown, the end of the input). At the end, a partial packet is reported as
/// ``AudioFileStreamDiagnostic/trailingBytesSkipped(byteOffset:count:)`` and a data chunk that declares
/// more than the file holds as ``AudioFileStreamDiagnostic/dataTruncated(byteOffset:declared:available:)``.
struct CBRPacketBatcher: Sendable {
    let bytesPerPacket: Int
    let framesPerPacket: Int
    /// The file offset of the data's first byte.
    let dataOffset: Int64
    /// The data's declared size, or `nil` when it runs to the end of the input.
    let declaredSize: Int64?
    private let packetsPerBatch: Int
    /// The next packet's index.
    private(set) var nextPacket: Int64 = 0
    /// Data bytes consumed so far (from `dataOffset`).
    private var consumed: Int64 = 0
    private var discontinuity = false
    /// Whether the data is done: every packet has been emitted and the end reported.
    private(set) var isDone = false
    /// The last batch's bytes, kept to be refilled: once the event that carried them is gone, the
    /// buffer is only referenced here and is reused in place (a batch still held somewhere is never
    /// changed: emptying a shared array gives a new one). So a parse whose consumer lets go of each
    /// batch allocates nothing per batch.
    private var buffer: [UInt8] = []

    /// A batcher for data of `declaredSize` bytes (`nil`: to the end) starting at `dataOffset`.
    init(
        bytesPerPacket: Int, framesPerPacket: Int, dataOffset: Int64, declaredSize: Int64?,
        batching: AudioFileStreamParser.Batching
    ) {
        self.bytesPerPacket = max(1, bytesPerPacket)
        self.framesPerPacket = framesPerPacket
        self.dataOffset = dataOffset
        self.declaredSize = declaredSize
        packetsPerBatch = max(1, min(batching.maxPackets, batching.maxBytes / max(1, bytesPerPacket)))
    }

    /// The file offset of `packet` (exact: packets are all the same size).
    func offset(ofPacket packet: Int64) -> Int64 { dataOffset + packet * Int64(bytesPerPacket) }

    /// Continues at `packet`; the input's next byte is that packet's first.
    mutating func resume(atPacket packet: Int64) {
        nextPacket = packet
        consumed = packet * Int64(bytesPerPacket)
        discontinuity = true
        isDone = declaredSize.map { consumed >= $0 } ?? false
    }

    /// Appends the next batch (and end-of-data diagnostics) to `events`; returns whether it appended
    /// anything. When it returns `false` and ``isDone`` is false, it needs more bytes.
    mutating func emit(from input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) -> Bool {
        guard !isDone else { return false }
        let left = declaredSize.map { max(0, $0 - consumed) }
        var wanted = Int64(packetsPerBatch * bytesPerPacket)
        if let left { wanted = min(wanted, left / Int64(bytesPerPacket) * Int64(bytesPerPacket)) }
        if wanted > 0, input.available >= Int(wanted) {
            append(packets: Int(wanted) / bytesPerPacket, from: &input, into: &events)
            return true
        }
        if wanted == 0, let left {
            // No whole packet is left in the declared data: at most a partial one.
            if left == 0 {
                isDone = true
                return false
            }
            if input.available >= Int(left) {
                events.append(.diagnostic(.trailingBytesSkipped(byteOffset: input.position, count: left)))
                input.skip(left)
                consumed += left
                isDone = true
                return true
            }
        }
        guard input.isFinished else { return false }
        // The input ended inside the data (fewer bytes than one batch are here): the whole packets
        // there are, then the rest reported.
        var appended = false
        let whole = input.available / bytesPerPacket
        if whole > 0 {
            append(packets: whole, from: &input, into: &events)
            appended = true
        }
        if input.available > 0 {
            events.append(.diagnostic(.trailingBytesSkipped(byteOffset: input.position, count: Int64(input.available))))
            consumed += Int64(input.available)
            input.skip(Int64(input.available))
            appended = true
        }
        if let declaredSize, consumed < declaredSize {
            events.append(
                .diagnostic(.dataTruncated(byteOffset: dataOffset, declared: declaredSize, available: consumed)))
            appended = true
        }
        isDone = true
        return appended
    }

    private mutating func append(packets: Int, from input: inout ByteWindow, into events: inout [AudioFileStreamEvent])
    {
        let size = packets * bytesPerPacket
        let offset = input.position
        guard let bytes = input.take(size) else { return }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: bytes)
        events.append(
            .packets(
                AudioFilePackets(
                    bytes: buffer, fileOffset: offset, firstPacket: nextPacket, packetCount: packets,
                    frameCount: Int64(packets) * Int64(framesPerPacket), isDiscontinuity: discontinuity)))
        discontinuity = false
        nextPacket += Int64(packets)
        consumed += Int64(size)
    }
}

/// Collects variable-size packets (MP3 and ADTS frames) into one ``AudioFilePackets`` batch of at most
/// ``AudioFileStreamParser/Batching`` size.
struct VBRPacketBatch: Sendable {
    private let batching: AudioFileStreamParser.Batching
    /// The batch's bytes and descriptions. After ``take()`` they still hold the batch taken (shared
    /// with its event) until the next batch starts: emptying them then reuses their buffers in place
    /// once the event is gone, so a parse whose consumer lets go of each batch allocates nothing per
    /// batch (a batch still held somewhere is never changed: emptying a shared array gives a new one).
    private var bytes: [UInt8] = []
    private var descriptions: [AudioStreamPacketDescription] = []
    /// The packets in the batch being collected (the arrays may still hold the last one taken).
    private var packets = 0
    private var fileOffset: Int64 = 0
    /// The file offset where the last packet appended ends.
    private var fileEnd: Int64 = 0
    private var firstPacket: Int64 = 0
    private var frames: Int64 = 0
    private var discontinuity = false
    /// The index of the next packet appended.
    private(set) var nextPacket: Int64 = 0
    /// The largest batch taken so far and an eighth more: the size a new buffer is given (the first
    /// one, or one dropped after an outsize packet), so that it is allocated once, not grown by
    /// doubling (which cost about 18 allocations a batch). A reused buffer keeps its capacity.
    private var reserve = (bytes: 0, packets: 0)

    /// An empty batch.
    init(batching: AudioFileStreamParser.Batching) { self.batching = batching }

    /// Whether the batch holds no packet.
    var isEmpty: Bool { packets == 0 }

    /// Whether a packet of `size` bytes would go past the limits (so the batch must be taken first).
    func isFull(adding size: Int) -> Bool {
        !isEmpty && (packets >= batching.maxPackets || bytes.count + size > batching.maxBytes)
    }

    /// Appends one packet of `frames` frames (`variableFrames`: the description's
    /// `variableFramesInPacket`, 0 when the format's count applies) that starts at file offset `offset`
    /// and spans `fileLength` bytes of the file (its size unless the container wraps it).
    mutating func append(
        _ packet: some Collection<UInt8>, frames: Int, variableFrames: Int = 0, at offset: Int64, fileLength: Int? = nil
    ) {
        if isEmpty {
            fileOffset = offset
            firstPacket = nextPacket
            let target = min(batching.maxBytes, max(reserve.bytes, packet.count))
            if bytes.capacity > 2 * target {
                // Grown for an outsize packet: a new, smaller buffer, so that batches a consumer keeps
                // do not each hold that size (emptying a shared array keeps its capacity).
                bytes = []
            }
            bytes.removeAll(keepingCapacity: true)
            descriptions.removeAll(keepingCapacity: true)
            // Sized once for a new buffer (or one too small for this packet); a reused one keeps its
            // capacity, and grows only when a batch does not fit it (reserving a few bytes more than
            // it has would reallocate it for nothing: malloc does not always round sizes up).
            if bytes.capacity < max(1, packet.count) { bytes.reserveCapacity(target) }
            if descriptions.capacity == 0 {
                descriptions.reserveCapacity(min(batching.maxPackets, reserve.packets + 1))
            }
        }
        descriptions.append(
            AudioStreamPacketDescription(
                startOffset: bytes.count, dataByteSize: packet.count, variableFramesInPacket: variableFrames))
        bytes.append(contentsOf: packet)
        packets += 1
        fileEnd = offset + Int64(fileLength ?? packet.count)
        self.frames += Int64(frames)
        nextPacket += 1
    }

    /// Marks the next batch (this one, when it is still empty) as following a gap.
    mutating func markDiscontinuity() { discontinuity = true }

    /// Continues the packet count at `packet` after a seek; the next batch follows a gap.
    mutating func resume(atPacket packet: Int64) {
        packets = 0
        frames = 0
        nextPacket = packet
        discontinuity = true
    }

    /// The batch as an event, emptying it; `nil` when it is empty.
    mutating func take() -> AudioFileStreamEvent? {
        guard !isEmpty else { return nil }
        let batch = AudioFilePackets(
            bytes: bytes, fileOffset: fileOffset, fileByteCount: fileEnd - fileOffset, firstPacket: firstPacket,
            packetCount: packets,
            frameCount: frames, descriptions: descriptions, isDiscontinuity: discontinuity)
        // room for a slightly larger one
        reserve = (max(reserve.bytes, bytes.count + bytes.count / 8), max(reserve.packets, packets + packets / 8))
        packets = 0
        frames = 0
        discontinuity = false
        return .packets(batch)
    }
}
