/// Writes bit fields, most significant bit first.
public struct BitWriter: Sendable {
    /// The bytes written; the last one is padded with zero bits until it is full.
    public private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    /// An empty writer.
    public init() {}

    /// Appends the low `count` bits (0...32) of `value`, most significant first.
    public mutating func write(_ value: UInt32, bits count: Int) {
        for i in stride(from: count - 1, through: 0, by: -1) {
            if bitCount & 7 == 0 { bytes.append(0) }
            if (value >> UInt32(i)) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount & 7) }
            bitCount += 1
        }
    }

    /// Appends one bit.
    public mutating func writeFlag(_ flag: Bool) { write(flag ? 1 : 0, bits: 1) }

    /// Bits written so far.
    public var bitsWritten: Int { bitCount }
}
