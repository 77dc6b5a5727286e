import MediaCore

/// The ADTS part of ``AudioFileStreamParser``: ``ADTSParser`` (ID3v2 tags skipped, frames confirmed by
/// the next header, resynchronisation with diagnostics) with its packets and diagnostics turned into
/// stream events.
///
/// - Properties come from the first frame's header: `dataFormat` (`aac `, 1024 frames per packet,
///   variable size), `channelLayout`, `magicCookie` (the AudioSpecificConfig), `dataOffset` (the first
///   frame's header), `maximumPacketSize` (8191 minus the header: the most a 13-bit frame length
///   allows), then `readyToProducePackets`. ADTS states neither a packet count nor a bit rate.
/// - Packets are the raw access units (headers stripped, as Core Audio delivers them) in
///   ``VBRPacketBatch`` batches; a batch's ``AudioFilePackets/fileOffset`` is its first frame's header.
/// - ``ADTSParser``'s diagnostics become stream diagnostics just before the packet that follows them
///   (the batch is cut there), or at the end: ID3v2 tags as `tagSkipped`, resynchronisation as
///   `resynchronized` (the next batch has ``AudioFilePackets/isDiscontinuity``), cut-off frames as
///   `truncatedPacket`, trailing bytes, format changes and unsupported frames as notes.
/// - Seeking: the offset of every packet parsed so far is kept (8 bytes a packet: 1.2 MB an hour at
///   48 kHz), so a packet already seen is found exactly; one beyond is estimated from the average
///   packet size so far, and the parser resynchronises there (ADTS has no index).
struct ADTSStreamParser: AudioFileFormatParser {
    private var parser = ADTSParser()
    private var batch: VBRPacketBatch
    /// Diagnostics of `parser` already turned into events.
    private var reported = 0
    private var announced = false
    private var ended = false
    /// The header offset of every packet parsed, by index.
    private var packetOffsets: [Int64] = []
    /// The packet index of the next packet (after a seek, counted from the target).
    private var nextPacket: Int64 = 0
    /// The file offset of the parser's first byte (after a seek, the seek's offset).
    private var base: Int64 = 0
    /// A packet that did not fit the batch taken before it: added at the next call, once the consumer
    /// has let go of that batch, so that the batch's buffer is reused in place.
    private var held: (packet: MediaSample, offset: Int64, frameLength: Int)?

    init(batching: AudioFileStreamParser.Batching) {
        batch = VBRPacketBatch(batching: batching)
    }

    mutating func parse(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) throws(MediaError) {
        if let bytes = input.take(input.available), !bytes.isEmpty { parser.push(bytes) }
        if input.isFinished, !ended { parser.finish() }
        if let waiting = held.take() {
            append(waiting.packet, at: waiting.offset, frameLength: waiting.frameLength)
        }
        while events.isEmpty {
            let packet: MediaSample?
            do throws(MediaError) {
                packet = try parser.next()
            } catch {
                var shifted = error  // offsets in the file, not in what the parser was given since a seek
                shifted.byteOffset = error.byteOffset.map { $0 + base }
                throw shifted
            }
            guard let packet else {
                if input.isFinished, !ended {
                    ended = true
                    if let full = batch.take() { events.append(full) }
                    reportDiagnostics(into: &events)
                }
                return
            }
            if parser.diagnostics.count > reported {
                if let full = batch.take() { events.append(full) }
                reportDiagnostics(into: &events)
            }
            if !announced, case .audio(let format) = packet.format {
                announce(format, at: parser.lastPacketByteOffset + base, into: &events)
            }
            if packet.flags.contains(.discontinuity) {
                if let full = batch.take() { events.append(full) }
                batch.markDiscontinuity()
            }
            let offset = parser.lastPacketByteOffset + base
            let frameLength = Int(parser.bytesConsumed + base - offset)  // the ADTS frame, header included
            if batch.isFull(adding: packet.byteCount), let full = batch.take() {
                events.append(full)
                held = (packet, offset, frameLength)
                return
            }
            append(packet, at: offset, frameLength: frameLength)
        }
    }

    /// Adds `packet`, whose ADTS frame starts at file offset `offset` and is `frameLength` bytes long, to
    /// the batch.
    private mutating func append(_ packet: MediaSample, at offset: Int64, frameLength: Int) {
        if nextPacket == Int64(packetOffsets.count) { packetOffsets.append(offset) }
        packet.withUnsafeBytes { batch.append($0, frames: packet.frameCount, at: offset, fileLength: frameLength) }
        nextPacket += 1
    }

    func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? {
        guard announced else { return nil }
        if packet < Int64(packetOffsets.count) {
            return AudioFileStreamSeekOffset(byteOffset: packetOffsets[Int(packet)], isEstimated: false)
        }
        guard let first = packetOffsets.first, let last = packetOffsets.last, packetOffsets.count > 1 else {
            return nil
        }
        let average = Double(last - first) / Double(packetOffsets.count - 1)
        return AudioFileStreamSeekOffset(
            byteOffset: first + Int64((Double(packet) * average).rounded()), isEstimated: true)
    }

    mutating func resume(atPacket packet: Int64, byteOffset: Int64) {
        parser = ADTSParser()
        reported = 0
        ended = false
        base = byteOffset
        nextPacket = packet
        held = nil
        batch.resume(atPacket: packet)
    }

    /// The properties, from the first frame.
    private mutating func announce(_ format: AudioFormat, at offset: Int64, into events: inout [AudioFileStreamEvent]) {
        announced = true
        events.append(
            .dataFormat(
                AudioStreamBasicDescription(
                    sampleRate: Double(format.sampleRate), formatID: AudioStreamBasicDescription.mpeg4AAC,
                    bytesPerPacket: 0,
                    framesPerPacket: UInt32(format.framesPerPacket), bytesPerFrame: 0,
                    channelsPerFrame: UInt32(format.channelCount), bitsPerChannel: 0)))
        events.append(.channelLayout(format.channelLayout))
        events.append(.magicCookie(format.magicCookie))
        events.append(.dataOffset(offset))
        events.append(.maximumPacketSize(8191 - 7))
        events.append(.readyToProducePackets)
    }

    /// The parser's new diagnostics as events.
    private mutating func reportDiagnostics(into events: inout [AudioFileStreamEvent]) {
        while reported < parser.diagnostics.count {
            let diagnostic = parser.diagnostics[reported]
            reported += 1
            let offset = diagnostic.byteOffset + base
            switch diagnostic {
            case .id3TagSkipped(_, let length):
                events.append(.diagnostic(.tagSkipped(kind: "ID3v2", byteOffset: offset, length: Int64(length))))
            case .resynchronized(_, let skipped):
                events.append(.diagnostic(.resynchronized(byteOffset: offset, skippedBytes: Int64(skipped))))
            case .truncatedFrame(_, let declared, let available):
                events.append(
                    .diagnostic(.truncatedPacket(byteOffset: offset, declared: declared, available: available)))
            case .trailingBytesSkipped(_, let count):
                events.append(.diagnostic(.trailingBytesSkipped(byteOffset: offset, count: Int64(count))))
            case .formatChanged, .truncatedID3Tag, .unsupportedFrame:
                events.append(.diagnostic(.note(diagnostic.description.replacingTrailingPeriod(), byteOffset: offset)))
            }
        }
    }
}

extension String {
    /// The sentence without its final full stop (diagnostic notes add their own).
    fileprivate func replacingTrailingPeriod() -> String { hasSuffix(".") ? String(dropLast()) : self }
}
