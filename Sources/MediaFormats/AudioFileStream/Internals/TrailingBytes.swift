/// Bytes after the audio that hold nothing a parser reads (WAVE's after its last chunk, NeXT's after its
/// data): skipped as they arrive and reported once, at the end of the input, as
/// ``AudioFileStreamDiagnostic/trailingBytesSkipped(byteOffset:count:)``.
struct TrailingBytes: Sendable, Hashable {
    /// The file offset of the first one.
    let start: Int64
    /// How many have been skipped.
    private(set) var count: Int64 = 0
    /// Whether the input has ended and the bytes are reported.
    private(set) var isDone = false

    /// Bytes from `start` on.
    init(start: Int64) { self.start = start }

    /// Skips what `input` holds; at its end, reports the bytes (when there were any). `false` when
    /// nothing was done.
    mutating func step(_ input: inout ByteWindow, into events: inout [AudioFileStreamEvent]) -> Bool {
        let now = input.available
        if now > 0 {
            input.skip(Int64(now))
            count += Int64(now)
            return true
        }
        guard input.isFinished, !isDone else { return false }
        isDone = true
        guard count > 0 else { return false }
        events.append(.diagnostic(.trailingBytesSkipped(byteOffset: start, count: count)))
        return true
    }
}
