import MediaCore

extension AudioFileStreamEvent: CustomStringConvertible {
    /// One line per event, with its numbers: `file type caf`, `data format …`, `packets 0…9 (10 packets,
    /// 10240 frames, 3712 bytes at byte offset 4096)`.
    public var description: String {
        switch self {
        case .fileType(let type): return "file type \(type)"
        case .dataFormat(let format): return "data format \(format)"
        case .channelLayout(let layout): return "channel layout \(layout)"
        case .magicCookie(let bytes): return "magic cookie of \(count: bytes.count, "byte")"
        case .dataOffset(let offset): return "audio data at byte offset \(offset)"
        case .audioDataByteCount(let count): return "audio data of \(count: count, "byte")"
        case .audioDataPacketCount(let count): return "audio data of \(count: count, "packet")"
        case .packetTableInfo(let info):
            return
                "packet table: \(info.validFrames) valid frames, \(info.primingFrames) priming, \(info.remainderFrames) remainder"
        case .maximumPacketSize(let size): return "maximum packet size \(count: size, "byte")"
        case .bitRate(let rate): return "bit rate \(rate) b/s"
        case .readyToProducePackets: return "ready to produce packets"
        case .packets(let packets):
            let last = packets.firstPacket + Int64(packets.packetCount) - 1
            let gap = packets.isDiscontinuity ? ", after a discontinuity" : ""
            return
                "packets \(packets.firstPacket)…\(last) (\(count: packets.packetCount, "packet"), \(count: packets.frameCount, "frame"), \(count: packets.fileByteCount, "byte") at byte offset \(packets.fileOffset)\(gap))"
        case .diagnostic(let diagnostic): return "diagnostic: \(diagnostic)"
        }
    }
}
