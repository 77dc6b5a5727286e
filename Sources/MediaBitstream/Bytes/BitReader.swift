public import MediaCore

/// Reads bit fields, most significant bit first, as MPEG bitstreams are written.
///
/// Every read is checked against the bits left and throws ``/MediaCore/MediaError/Code/truncated`` at the end.
public struct BitReader: Sendable {
    private let bytes: ArraySlice<UInt8>
    /// Bits consumed so far.
    public private(set) var bitPosition: Int = 0
    /// The file offset of the first byte, for errors.
    public var baseOffset: Int64

    /// A reader over `bytes`, which start at `baseOffset` in the file.
    public init<C: Collection>(_ bytes: C, baseOffset: Int64 = 0) where C.Element == UInt8 {
        self.bytes = ArraySlice(bytes)
        self.baseOffset = baseOffset
    }

    /// Bits left to read.
    public var bitsRemaining: Int { bytes.count * 8 - bitPosition }

    /// The next `count` bits (0...32) as an unsigned integer.
    public mutating func read(_ count: Int, _ what: @autoclosure () -> String = "bit field") throws(MediaError)
        -> UInt32
    {
        guard count >= 0, count <= 32 else {
            throw MediaError(.invalidArgument, "cannot read \(count: count, "bit") at once")
        }
        guard bitsRemaining >= count else {
            throw MediaError(
                .truncated, "\(what()) needs \(count: count, "bit") but only \(bitsRemaining) remain",
                byteOffset: baseOffset + Int64(bitPosition / 8))
        }
        var value: UInt32 = 0
        for _ in 0..<count {
            let byte = bytes[bytes.startIndex + bitPosition >> 3]
            let bit = (byte >> (7 - UInt8(bitPosition & 7))) & 1
            value = value << 1 | UInt32(bit)
            bitPosition += 1
        }
        return value
    }

    /// One bit as a `Bool`.
    public mutating func readFlag(_ what: @autoclosure () -> String = "flag") throws(MediaError) -> Bool {
        try read(1, what()) == 1
    }

    /// Skips `count` bits.
    public mutating func skip(_ count: Int, _ what: @autoclosure () -> String = "bits") throws(MediaError) {
        guard count >= 0, bitsRemaining >= count else {
            throw MediaError(
                .truncated, "\(what()) needs \(count: count, "bit") but only \(bitsRemaining) remain",
                byteOffset: baseOffset + Int64(bitPosition / 8))
        }
        bitPosition += count
    }
}
