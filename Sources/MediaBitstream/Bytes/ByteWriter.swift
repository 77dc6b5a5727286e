/// Appends integers and byte runs to a byte array.
public struct ByteWriter: Sendable {
    /// What has been written.
    public private(set) var bytes: [UInt8]

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends one byte.
    public mutating func writeUInt8(_ value: UInt8) { bytes.append(value) }
    /// Appends a big-endian 16-bit integer.
    public mutating func writeUInt16BE(_ value: UInt16) { writeBE(UInt64(value), 2) }
    /// Appends a big-endian 32-bit integer.
    public mutating func writeUInt32BE(_ value: UInt32) { writeBE(UInt64(value), 4) }
    /// Appends a big-endian 64-bit integer.
    public mutating func writeUInt64BE(_ value: UInt64) { writeBE(value, 8) }
    /// Appends a little-endian 16-bit integer.
    public mutating func writeUInt16LE(_ value: UInt16) { writeLE(UInt64(value), 2) }
    /// Appends a little-endian 32-bit integer.
    public mutating func writeUInt32LE(_ value: UInt32) { writeLE(UInt64(value), 4) }
    /// Appends a little-endian 64-bit integer.
    public mutating func writeUInt64LE(_ value: UInt64) { writeLE(value, 8) }
    /// Appends bytes.
    public mutating func write<C: Collection>(_ data: C) where C.Element == UInt8 { bytes.append(contentsOf: data) }
    /// Removes everything written, keeping the capacity.
    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    private mutating func writeBE(_ value: UInt64, _ count: Int) {
        for i in (0..<count).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    private mutating func writeLE(_ value: UInt64, _ count: Int) {
        for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }
}
