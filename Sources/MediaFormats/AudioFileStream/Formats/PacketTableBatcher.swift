import MediaCore

/// Cuts the variable-size packets a packet table (a CAF `pakt`) describes out of the audio data into
/// ``VBRPacketBatch`` batches, whatever the split of the input, and knows where each packet starts.
///
/// It keeps the table as cumulative offsets (`count` + 1 of them), so ``offset(ofPacket:)`` is exact and
/// constant-time, and the frame counts when they vary (each packet's description then carries its
/// `variableFramesInPacket`).
///
/// A batch is emitted when the next packet would not fit it, or after the last packet. When the input
/// ends inside a packet, the batch so far is emitted, then
/// ``AudioFileStreamDiagnostic/truncatedPacket(byteOffset:declared:available:)`` and
/// ``AudioFileStreamDiagnostic/dataTruncated(byteOffset:declared:available:)``.
struct PacketTableBatcher: Sendable {
    /// Where each packet starts, relative to the first, and where the last ends.
    private let starts: [Int64]
    /// Each packet's frames when they vary; empty when every packet has ``framesPerPacket``.
    private let frames: [Int]
    private let framesPerPacket: Int
    /// The file offset of the first packet.
    let dataOffset: Int64
    private var batch: VBRPacketBatch
    /// Whether every packet has been emitted (or the input ended).
    private(set) var isDone = false

    /// A batcher for packets of `sizes` bytes (or, when `sizes` is empty, `count` packets of
    /// `fixedBytes`), of `frames` frames each (or, when empty, `framesPerPacket`), from `dataOffset`.
    init(
        sizes: [Int], fixedBytes: Int, count: Int64, frames: [Int], framesPerPacket: Int, dataOffset: Int64,
        batching: AudioFileStreamParser.Batching
    ) {
        var starts: [Int64] = [0]
        if sizes.isEmpty {
            starts.reserveCapacity(Int(count) + 1)
            for index in 0..<count { starts.append((index + 1) * Int64(fixedBytes)) }
        } else {
            starts.reserveCapacity(sizes.count + 1)
            var end: Int64 = 0
            for size in sizes {
                end += Int64(size)
                starts.append(end)
            }
        }
        self.starts = starts
        self.frames = frames
        self.framesPerPacket = framesPerPacket
        self.dataOffset = dataOffset
        batch = VBRPacketBatch(batching: batching)
    }

    /// The number of packets.
    var packetCount: Int64 { Int64(starts.count - 1) }

    /// The bytes of all packets.
    var byteCount: Int64 { starts.last ?? 0 }

    /// The largest packet's size.
    var maximumPacketSize: Int {
        var largest: Int64 = 0
        for index in 1..<starts.count { largest = max(largest, starts[index] - starts[index - 1]) }
        return Int(largest)
    }

    /// The file offset of `packet` (`packetCount`: the end of the last), `nil` beyond the table.
    func offset(ofPacket packet: Int64) -> Int64? {
        guard packet >= 0, packet <= packetCount else { return nil }
        return dataOffset + starts[Int(packet)]
    }

    /// Continues at `packet`; the input's next byte is that packet's first.
    mutating func resume(atPacket packet: Int64) {
        batch.resume(atPacket: packet)
        isDone = packet >= packetCount
    }

    /// Appends the next batch (or end-of-data diagnostics) to `events`; returns whether it appended
    /// anything. When it returns `false` and ``isDone`` is false, it needs more bytes.
    mutating func emit(from input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) -> Bool {
        guard !isDone else { return false }
        while batch.nextPacket < packetCount {
            let index = Int(batch.nextPacket)
            let size = Int(starts[index + 1] - starts[index])
            if batch.isFull(adding: size), let full = batch.take() {
                events.append(full)
                return true
            }
            guard let bytes = input.peek(size) else {
                guard input.isFinished else { return false }
                if let partial = batch.take() { events.append(partial) }
                let end = input.position - input.pendingSkip + Int64(input.available)
                events.append(
                    .diagnostic(
                        .truncatedPacket(byteOffset: input.position, declared: size, available: input.available)))
                events.append(
                    .diagnostic(
                        .dataTruncated(byteOffset: dataOffset, declared: byteCount, available: max(0, end - dataOffset))
                    ))
                input.skip(Int64(input.available))
                isDone = true
                return true
            }
            let count = frames.isEmpty ? framesPerPacket : frames[index]
            batch.append(bytes, frames: count, variableFrames: frames.isEmpty ? 0 : count, at: input.position)
            input.skip(Int64(size))
        }
        isDone = true
        guard let last = batch.take() else { return false }
        events.append(last)
        return true
    }
}
