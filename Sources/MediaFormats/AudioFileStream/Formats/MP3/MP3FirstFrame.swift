/// What the first frame of an MP3 stream tells: whether it is a tag frame (a Xing/Info tag, with a LAME
/// tag, or a VBRI header: metadata, not audio, so not a packet) and the properties
/// ``AudioFileStreamParser`` reports before the first packet.
///
/// - `audioDataPacketCount`: the tag's frame count (which excludes the tag frame); none without a tag or
///   with a count of 0 (an encoder that could not go back to fill it in).
/// - `audioDataByteCount`: the tag's byte count minus the tag frame (the count includes it).
/// - `packetTableInfo` from a LAME tag: priming = delay + 529, remainder = max(0, padding - 529),
///   valid = packets × framesPerPacket − priming − remainder (−1 without a packet count).
/// - `maximumPacketSize`: the longest frame the version, layer and sample rate allow.
/// - `bitRate`: with a Xing (not `Info`) or VBRI tag that has both counts, audio bytes × 8 × sample
///   rate / (packets × framesPerPacket); otherwise the first audio frame's bit rate.
struct MP3FirstFrame: Sendable {
    /// The first frame's header.
    let header: MP3FrameHeader
    /// The first frame's file offset.
    let offset: Int64
    /// The Xing/Info tag it holds, if any.
    let xing: MP3XingTag?
    /// The VBRI header it holds, if any (only looked for without a Xing tag).
    let vbri: MP3VBRIHeader?
    /// The packet count a tag gives.
    let packetCount: Int64?
    /// The audio bytes a tag gives (without the tag frame).
    let audioBytes: Int64?
    /// The first audio frame's header: the one after a tag frame, else the first.
    let firstAudio: MP3FrameHeader

    /// Reads the first frame: `frame` its bytes (`nil` when not all are here), `next` the header after
    /// it when that belongs to the same stream.
    init(header: MP3FrameHeader, frame: ArraySlice<UInt8>?, offset: Int64, next: MP3FrameHeader?) {
        self.header = header
        self.offset = offset
        xing = frame.flatMap { MP3XingTag(frame: $0, header: header) }
        vbri = xing == nil ? frame.flatMap { MP3VBRIHeader(frame: $0) } : nil
        let length = Int64(header.frameLength)
        packetCount = (xing?.frameCount ?? vbri?.frameCount).flatMap { $0 > 0 ? $0 : nil }
        audioBytes = (xing?.byteCount ?? vbri?.byteCount).flatMap { $0 > length ? $0 - length : nil }
        firstAudio = (xing != nil || vbri != nil) ? next ?? header : header
    }

    /// Whether the frame is a tag frame, not audio.
    var isTagFrame: Bool { xing != nil || vbri != nil }

    /// The first audio frame's offset.
    var dataOffset: Int64 { offset + (isTagFrame ? Int64(header.frameLength) : 0) }

    /// The packet table from a LAME tag.
    var packetTable: AudioFilePacketTableInfo? {
        guard let lame = xing?.lame else { return nil }
        let priming = Int64(lame.encoderDelay + MP3LAMETag.decoderDelay)
        let remainder = Int64(max(0, lame.padding - MP3LAMETag.decoderDelay))
        let valid = packetCount.map { max(0, $0 * Int64(header.framesPerPacket) - priming - remainder) } ?? -1
        return AudioFilePacketTableInfo(primingFrames: priming, remainderFrames: remainder, validFrames: valid)
    }

    /// The bit rate in bits per second.
    var bitRate: Int {
        let isVariable = xing.map { !$0.isInfo } ?? (vbri != nil)
        guard isVariable, let packetCount, let audioBytes else { return firstAudio.bitRate }
        return Int(clamping: audioBytes * 8 * Int64(header.sampleRate) / (packetCount * Int64(header.framesPerPacket)))
    }

    /// The events from `dataFormat` to `readyToProducePackets`, in order.
    var events: [AudioFileStreamEvent] {
        var events: [AudioFileStreamEvent] = [
            .dataFormat(header.streamFormat), .channelLayout(header.channelLayout), .dataOffset(dataOffset)
        ]
        if let audioBytes { events.append(.audioDataByteCount(audioBytes)) }
        if let packetCount { events.append(.audioDataPacketCount(packetCount)) }
        if let packetTable { events.append(.packetTableInfo(packetTable)) }
        events += [.maximumPacketSize(header.maximumFrameLength), .bitRate(bitRate), .readyToProducePackets]
        return events
    }

    /// Gives `index` the data offset, the packet count and the table a Xing (not `Info`) or VBRI tag has.
    func configure(_ index: inout MP3SeekIndex) {
        index.dataOffset = dataOffset
        index.packetCount = packetCount
        if let xing, !xing.isInfo, let toc = xing.tableOfContents, let audioBytes {
            index.xing = (toc, audioBytes)
        }
        if let vbri, !vbri.tableOfContents.isEmpty {
            index.vbri = (vbri.tableOfContents, offset, vbri.framesPerEntry)
        }
    }
}
