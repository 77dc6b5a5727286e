import MediaCore

/// The constant-bit-rate audio data of a WAVE or NeXT/Sun file (linear PCM, A-law, µ-law, IMA ADPCM
/// blocks): announces its properties the way `AudioFileStream` reports them, cuts the packets with a
/// ``CBRPacketBatcher`` and answers seeks exactly.
///
/// It accepts any format with ``AudioStreamBasicDescription/bytesPerPacket`` > 0 (the format parsers
/// refuse the others before they get here) and a data size that is declared or runs to the end of the
/// input (`nil`). It throws nothing: the end of the data is reported with the batcher's diagnostics
/// (``AudioFileStreamDiagnostic/dataTruncated(byteOffset:declared:available:)``,
/// ``AudioFileStreamDiagnostic/trailingBytesSkipped(byteOffset:count:)``).
struct CBRAudioData: Sendable {
    /// Cuts the packets.
    private var batcher: CBRPacketBatcher
    /// The number of packets, when the data size (or a frame count) says.
    let packetCount: Int64?

    /// Data of `declaredSize` bytes (`nil`: to the end of the input) at `dataOffset`, in packets of
    /// `format`; `packetCount` when it is known.
    init(
        format: AudioStreamBasicDescription, dataOffset: Int64, declaredSize: Int64?, packetCount: Int64?,
        batching: AudioFileStreamParser.Batching
    ) {
        batcher = CBRPacketBatcher(
            bytesPerPacket: Int(format.bytesPerPacket), framesPerPacket: Int(format.framesPerPacket),
            dataOffset: dataOffset, declaredSize: declaredSize, batching: batching)
        self.packetCount = packetCount
    }

    /// Whether every packet has been emitted and the end of the data reported.
    var isDone: Bool { batcher.isDone }

    /// The data's declared size, `nil` when it runs to the end of the input.
    var declaredSize: Int64? { batcher.declaredSize }

    /// Appends the properties, in `AudioFileStream`'s order: `dataFormat`, `channelLayout`, `dataOffset`,
    /// `audioDataByteCount` (when declared), `audioDataPacketCount` (when known), `packetTableInfo`
    /// (when given), `maximumPacketSize`, `bitRate`, then `readyToProducePackets`.
    func announce(
        _ format: AudioStreamBasicDescription, layout: ChannelLayout, packetTable: AudioFilePacketTableInfo? = nil,
        into events: inout [AudioFileStreamEvent]
    ) {
        events.append(.dataFormat(format))
        events.append(.channelLayout(layout))
        events.append(.dataOffset(batcher.dataOffset))
        if let size = batcher.declaredSize { events.append(.audioDataByteCount(size)) }
        if let packetCount { events.append(.audioDataPacketCount(packetCount)) }
        if let packetTable { events.append(.packetTableInfo(packetTable)) }
        events.append(.maximumPacketSize(Int(format.bytesPerPacket)))
        events.append(.bitRate(Self.bitRate(of: format)))
        events.append(.readyToProducePackets)
    }

    /// The exact bit rate of a constant-bit-rate format: rate × bytes per packet × 8 / frames per packet,
    /// rounded; 0 when the format does not say (no frames per packet).
    static func bitRate(of format: AudioStreamBasicDescription) -> Int {
        guard format.framesPerPacket > 0 else { return 0 }
        let rate = format.sampleRate * Double(format.bytesPerPacket) * 8 / Double(format.framesPerPacket)
        guard rate.isFinite, rate >= 0, rate < 9e18 else { return 0 }
        return Int(rate.rounded())
    }

    /// The next batch or end-of-data diagnostics; see ``CBRPacketBatcher/emit(from:into:)``.
    mutating func emit(from input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) -> Bool {
        batcher.emit(from: &input, into: &events)
    }

    /// The exact offset of `packet`; `nil` past the last packet (when the count is known) or when the
    /// offset does not fit in 64 bits.
    func seekOffset(forPacket packet: Int64) -> AudioFileStreamSeekOffset? {
        guard packet >= 0 else { return nil }
        if let packetCount, packet > packetCount { return nil }
        let (bytes, overflow) = packet.multipliedReportingOverflow(by: Int64(batcher.bytesPerPacket))
        guard !overflow, !batcher.dataOffset.addingReportingOverflow(bytes).overflow else { return nil }
        return AudioFileStreamSeekOffset(byteOffset: batcher.offset(ofPacket: packet), isEstimated: false)
    }

    /// Continues at `packet` (an answer of ``seekOffset(forPacket:)``).
    mutating func resume(atPacket packet: Int64) { batcher.resume(atPacket: packet) }
}
