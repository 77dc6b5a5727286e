import MediaCore

/// The bytes an ``AudioFileStreamParser`` has been given and not yet consumed, with their offset in the
/// file: what every format parser reads from.
///
/// Reads are relative to the first unconsumed byte. A skip longer than what is here is remembered and
/// taken from the bytes pushed next, so that skipping a large chunk (a 100 MB `LIST`, an ID3 tag with
/// pictures) never holds it in memory. Consumed bytes are dropped on the next push once they are at
/// least half of the buffer, so memory stays at about the largest unconsumed run plus one push.
struct ByteWindow: Sendable {
    private var buffer: [UInt8] = []
    /// The index in `buffer` of the first unconsumed byte.
    private var start = 0
    /// The file offset of `buffer[0]`.
    private var bufferOffset: Int64 = 0
    /// Bytes still to skip from the next pushes.
    private(set) var pendingSkip: Int64 = 0
    /// Whether the input has ended.
    private(set) var isFinished = false

    /// The file offset of the next byte a parser will read (after any pending skip).
    var position: Int64 { bufferOffset + Int64(start) + pendingSkip }

    /// Unconsumed bytes available now (0 while a skip is pending).
    var available: Int { buffer.count - start }

    /// Whether the input has ended and every byte has been consumed.
    var isExhausted: Bool { isFinished && available == 0 }

    /// Appends pushed bytes, first taking any pending skip out of them.
    mutating func append(_ bytes: some Collection<UInt8>) {
        var bytes = bytes[...]
        if pendingSkip > 0 {
            let n = Int(min(pendingSkip, Int64(bytes.count)))
            bytes = bytes.dropFirst(n)
            pendingSkip -= Int64(n)
            bufferOffset += Int64(n)
            if bytes.isEmpty { return }
        }
        if start > 0 && start * 2 >= buffer.count {
            bufferOffset += Int64(start)
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
            } else {
                buffer.removeSubrange(0..<start)
            }
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Records the end of the input.
    mutating func finish() { isFinished = true }

    /// Drops everything and continues at file offset `offset`: the next pushed byte is that one, and the
    /// input is open again.
    mutating func reset(at offset: Int64) {
        isFinished = false
        buffer.removeAll(keepingCapacity: true)
        start = 0
        pendingSkip = 0
        bufferOffset = offset
    }

    /// The byte `index` bytes after the first unconsumed one; the caller checks ``available``.
    subscript(index: Int) -> UInt8 { buffer[start + index] }

    /// The next `count` bytes without consuming them, or `nil` when fewer are available.
    func peek(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, available >= count else { return nil }
        return buffer[start..<(start + count)]
    }

    /// Up to `count` of the next bytes without consuming them.
    func peek(upTo count: Int) -> ArraySlice<UInt8> { buffer[start..<(start + min(max(0, count), available))] }

    /// Consumes and returns the next `count` bytes, or `nil` (consuming nothing) when fewer are available.
    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard let bytes = peek(count) else { return nil }
        start += count
        return bytes
    }

    /// Consumes `count` bytes: those available now, the rest from the next pushes.
    mutating func skip(_ count: Int64) {
        guard count > 0 else { return }
        let now = Int(min(count, Int64(available)))
        start += now
        pendingSkip += count - Int64(now)
    }

    /// The index (relative to the first unconsumed byte) of the first occurrence of `byte` at or after
    /// `from`, or `nil`.
    func firstIndex(of byte: UInt8, from: Int = 0) -> Int? {
        guard from < available else { return nil }
        return buffer[(start + from)...].firstIndex(of: byte).map { $0 - start }
    }

    // MARK: Integers at a relative index (the caller checks `available`)

    /// A little-endian integer of `T`'s width at `index`.
    func littleEndian<T: FixedWidthInteger>(_ type: T.Type, at index: Int) -> T {
        var value: T = 0
        for i in (0..<(T.bitWidth / 8)).reversed() { value = value << 8 | T(buffer[start + index + i]) }
        return value
    }

    /// A big-endian integer of `T`'s width at `index`.
    func bigEndian<T: FixedWidthInteger>(_ type: T.Type, at index: Int) -> T {
        var value: T = 0
        for i in 0..<(T.bitWidth / 8) { value = value << 8 | T(buffer[start + index + i]) }
        return value
    }

    /// Four bytes at `index` as text for messages and chunk types (`'fmt '`, or hex when not printable).
    func fourCC(at index: Int) -> String {
        let bytes = buffer[(start + index)..<(start + index + 4)]
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: bytes, as: UTF8.self) }
        return bytes.map { String($0, radix: 16) }.joined(separator: " ")
    }
}
