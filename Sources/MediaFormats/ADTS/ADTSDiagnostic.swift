public import MediaCore

/// Something an ``ADTSParser`` noticed and worked around: skipped bytes, a changed format, a cut-off frame.
///
/// Diagnostics do not stop parsing; the parser records them in ``ADTSParser/diagnostics`` in the order
/// it makes its decisions, which is the same however the input is split into chunks. Byte offsets
/// count from the first byte given to the parser.
public enum ADTSDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// An ID3v2 tag of `length` bytes (header, body and footer) at `byteOffset` was skipped.
    case id3TagSkipped(byteOffset: Int64, length: Int)
    /// Where a frame should have started, at `byteOffset`, there was none; `skippedBytes` bytes were
    /// skipped to the next position where a frame starts and is followed by another frame (or by the end
    /// of the input). The next sample carries ``/MediaCore/MediaSample/Flags/discontinuity``.
    case resynchronized(byteOffset: Int64, skippedBytes: Int)
    /// The frame with index `frameIndex` at `byteOffset` has another format (profile, sample rate or
    /// channels) than the frame before it; its sample carries the new format.
    case formatChanged(frameIndex: Int, byteOffset: Int64, from: AudioFormat, to: AudioFormat)
    /// The frame at `byteOffset` declares `declared` bytes but the input ends after `available`; it was
    /// not emitted.
    case truncatedFrame(byteOffset: Int64, declared: Int, available: Int)
    /// The ID3v2 tag at `byteOffset` declares `declared` bytes but the input ends after `available`.
    case truncatedID3Tag(byteOffset: Int64, declared: Int, available: Int)
    /// `count` bytes from `byteOffset` to the end of the input hold no frame and were skipped.
    case trailingBytesSkipped(byteOffset: Int64, count: Int)
    /// The frame at `byteOffset` holds `rawDataBlocks` + 1 raw data blocks with CRCs, which this parser
    /// does not split; it was skipped and the next sample carries ``/MediaCore/MediaSample/Flags/discontinuity``.
    case unsupportedFrame(byteOffset: Int64, frameLength: Int, rawDataBlocks: Int)

    /// The byte offset the diagnostic is about.
    public var byteOffset: Int64 {
        switch self {
        case .id3TagSkipped(let offset, _), .resynchronized(let offset, _), .formatChanged(_, let offset, _, _),
            .truncatedFrame(let offset, _, _), .truncatedID3Tag(let offset, _, _), .trailingBytesSkipped(let offset, _),
            .unsupportedFrame(let offset, _, _):
            return offset
        }
    }

    /// One sentence with the numbers, e.g. "Skipped 12 bytes at byte offset 4096 to resynchronise to the
    /// next ADTS frame."
    public var description: String {
        switch self {
        case .id3TagSkipped(let offset, let length):
            return "Skipped a \(length)-byte ID3v2 tag at byte offset \(offset)."
        case .resynchronized(let offset, let skipped):
            return "Skipped \(count: skipped, "byte") at byte offset \(offset) to resynchronise to the next ADTS frame."
        case .formatChanged(let index, let offset, let from, let to):
            return "Frame \(index) at byte offset \(offset) changes the format from \(from) to \(to)."
        case .truncatedFrame(let offset, let declared, let available):
            return "The ADTS frame at byte offset \(offset) declares \(count: declared, "byte") "
                + "but the input ends after \(available)."
        case .truncatedID3Tag(let offset, let declared, let available):
            return "The ID3v2 tag at byte offset \(offset) declares \(count: declared, "byte") "
                + "but the input ends after \(available)."
        case .trailingBytesSkipped(let offset, let count):
            return "Skipped \(count: count, "trailing byte") at byte offset \(offset) that hold no ADTS frame."
        case .unsupportedFrame(let offset, let length, let blocks):
            return "Skipped the \(length)-byte ADTS frame at byte offset \(offset): "
                + "it holds \(blocks + 1) raw data blocks with CRCs."
        }
    }
}
