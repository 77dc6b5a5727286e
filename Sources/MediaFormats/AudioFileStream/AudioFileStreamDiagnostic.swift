import MediaCore

/// Something an ``AudioFileStreamParser`` noticed and worked around. Diagnostics do not stop parsing;
/// they arrive as ``AudioFileStreamEvent/diagnostic(_:)`` events where the parser made its decision,
/// the same however the input is split. Byte offsets count from the first byte of the file.
public enum AudioFileStreamDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// A chunk the parser does not need (`LIST`, `bext`, `JUNK`, `free` …) was skipped.
    case chunkSkipped(type: String, byteOffset: Int64, size: Int64)
    /// A tag (`ID3v2`, `ID3v1`, `APEv2`) of `length` bytes was skipped.
    case tagSkipped(kind: String, byteOffset: Int64, length: Int64)
    /// Where a packet should have started there was none; `skippedBytes` bytes were skipped to the next
    /// confirmed packet, whose batch has ``AudioFilePackets/isDiscontinuity``.
    case resynchronized(byteOffset: Int64, skippedBytes: Int64)
    /// The last packet, at `byteOffset`, needs `declared` bytes but the data ends after `available`; it
    /// was not emitted.
    case truncatedPacket(byteOffset: Int64, declared: Int, available: Int)
    /// `count` bytes from `byteOffset` at the end of the data hold no packet and were skipped.
    case trailingBytesSkipped(byteOffset: Int64, count: Int64)
    /// The data chunk declares `declared` bytes but the file ends after `available`: what is there was
    /// read (a recording that was cut off).
    case dataTruncated(byteOffset: Int64, declared: Int64, available: Int64)
    /// The file states `claimedFrames` frames (a LAME or Xing tag, `pakt`, `fact`: priming and remainder
    /// included) but its packets, which end at `byteOffset`, hold `foundFrames`: a file cut short, or a
    /// header written wrong. ``AudioFileSummary`` counts the frames that are there.
    case frameCountDisagrees(claimedFrames: Int64, foundFrames: Int64, byteOffset: Int64)
    /// Anything else worth telling, with the byte offset it concerns.
    case note(String, byteOffset: Int64)

    /// The byte offset the diagnostic is about.
    public var byteOffset: Int64 {
        switch self {
        case .chunkSkipped(_, let offset, _), .tagSkipped(_, let offset, _), .resynchronized(let offset, _),
            .truncatedPacket(let offset, _, _), .trailingBytesSkipped(let offset, _), .dataTruncated(let offset, _, _),
            .frameCountDisagrees(_, _, let offset), .note(_, let offset):
            return offset
        }
    }

    /// One sentence with the numbers.
    public var description: String {
        switch self {
        case .chunkSkipped(let type, let offset, let size):
            return "Skipped the \(size)-byte '\(type)' chunk at byte offset \(offset)."
        case .tagSkipped(let kind, let offset, let length):
            return "Skipped a \(length)-byte \(kind) tag at byte offset \(offset)."
        case .resynchronized(let offset, let skipped):
            return "Skipped \(count: skipped, "byte") at byte offset \(offset) to resynchronise to the next packet."
        case .truncatedPacket(let offset, let declared, let available):
            return
                "The packet at byte offset \(offset) needs \(count: declared, "byte") but the data ends after \(available)."
        case .trailingBytesSkipped(let offset, let count):
            return "Skipped \(count: count, "trailing byte") at byte offset \(offset) that hold no whole packet."
        case .dataTruncated(let offset, let declared, let available):
            return
                "The audio data at byte offset \(offset) declares \(count: declared, "byte") but the file ends after \(available)."
        case .frameCountDisagrees(let claimed, let found, let offset):
            return "The file's header claims \(count: claimed, "frame") but its packets hold \(found), ending at "
                + "byte offset \(offset); the frames present are counted."
        case .note(let text, let offset):
            return "\(text) (byte offset \(offset))."
        }
    }
}
