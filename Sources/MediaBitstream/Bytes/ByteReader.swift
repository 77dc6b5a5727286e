public import MediaCore

/// Reads integers and byte runs from a byte array, checking every read against what is left.
///
/// Reads never trap: a read past the end throws ``/MediaCore/MediaError/Code/truncated`` naming what was being
/// read, how many bytes it needed and the absolute offset (``baseOffset`` plus the position).
public struct ByteReader: Sendable {
    /// The bytes being read.
    public let bytes: [UInt8]
    /// The position of the next read, from the start of ``bytes``.
    public private(set) var offset: Int = 0
    /// Added to ``offset`` in errors, so that they give the position in the whole file.
    public var baseOffset: Int64

    /// A reader at the start of `bytes`, which start at `baseOffset` in the file.
    public init(_ bytes: [UInt8], baseOffset: Int64 = 0) {
        self.bytes = bytes
        self.baseOffset = baseOffset
    }

    /// Bytes left to read.
    public var remaining: Int { bytes.count - offset }
    /// Whether everything has been read.
    public var isAtEnd: Bool { offset >= bytes.count }
    /// The absolute position of the next read in the file.
    public var absoluteOffset: Int64 { baseOffset + Int64(offset) }

    private func require(_ count: Int, _ what: () -> String) throws(MediaError) {
        guard count >= 0, remaining >= count else {
            throw MediaError.truncated(what(), needed: count, available: remaining, at: absoluteOffset)
        }
    }

    /// One byte.
    public mutating func readUInt8(_ what: @autoclosure () -> String = "byte") throws(MediaError) -> UInt8 {
        try require(1, what)
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A big-endian 16-bit integer.
    public mutating func readUInt16BE(_ what: @autoclosure () -> String = "16-bit field") throws(MediaError) -> UInt16 {
        UInt16(truncatingIfNeeded: try readBE(2, what))
    }

    /// A big-endian 32-bit integer.
    public mutating func readUInt32BE(_ what: @autoclosure () -> String = "32-bit field") throws(MediaError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readBE(4, what))
    }

    /// A big-endian 64-bit integer.
    public mutating func readUInt64BE(_ what: @autoclosure () -> String = "64-bit field") throws(MediaError) -> UInt64 {
        try readBE(8, what)
    }

    /// A little-endian 16-bit integer.
    public mutating func readUInt16LE(_ what: @autoclosure () -> String = "16-bit field") throws(MediaError) -> UInt16 {
        UInt16(truncatingIfNeeded: try readLE(2, what))
    }

    /// A little-endian 32-bit integer.
    public mutating func readUInt32LE(_ what: @autoclosure () -> String = "32-bit field") throws(MediaError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readLE(4, what))
    }

    /// A little-endian 64-bit integer.
    public mutating func readUInt64LE(_ what: @autoclosure () -> String = "64-bit field") throws(MediaError) -> UInt64 {
        try readLE(8, what)
    }

    /// `count` bytes.
    public mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws(MediaError)
        -> ArraySlice<UInt8>
    {
        try require(count, what)
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Moves the position forward by `count` bytes.
    public mutating func skip(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws(MediaError) {
        try require(count, what)
        offset += count
    }

    /// Moves the position to `newOffset` (from the start of ``bytes``), which must be within the bytes.
    public mutating func seek(to newOffset: Int) throws(MediaError) {
        guard newOffset >= 0, newOffset <= bytes.count else {
            throw MediaError.truncated("seek", needed: newOffset - offset, available: remaining, at: absoluteOffset)
        }
        offset = newOffset
    }

    /// The next `count` bytes without moving, or fewer at the end.
    public func peek(_ count: Int) -> ArraySlice<UInt8> {
        bytes[offset..<min(bytes.count, offset + max(0, count))]
    }

    private mutating func readBE(_ count: Int, _ what: () -> String) throws(MediaError) -> UInt64 {
        try require(count, what)
        var value: UInt64 = 0
        for i in offset..<offset + count { value = value << 8 | UInt64(bytes[i]) }
        offset += count
        return value
    }

    private mutating func readLE(_ count: Int, _ what: () -> String) throws(MediaError) -> UInt64 {
        try require(count, what)
        var value: UInt64 = 0
        for i in (offset..<offset + count).reversed() { value = value << 8 | UInt64(bytes[i]) }
        offset += count
        return value
    }
}
