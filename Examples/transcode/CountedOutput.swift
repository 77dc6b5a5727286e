import MediaCore

/// A ``MediaCore/MediaOutput`` that passes everything to `base` and keeps its size in a ``ByteCount``
/// the command can read after the graph has taken the muxer (and so this output): the summary's size of
/// what went to standard output, which has no file to measure.
final class CountedOutput: MediaOutput {
    private let base: any MediaOutput
    /// The bytes written so far (the base's position after each write).
    let count: ByteCount

    /// `base`, counted into `count`.
    init(_ base: any MediaOutput, count: ByteCount) {
        self.base = base
        self.count = count
    }

    /// Writes through, then records the size.
    func write(_ bytes: UnsafeRawBufferPointer) throws(MediaError) {
        try base.write(bytes)
        count.record(base.position)
    }

    /// The base's position.
    var position: Int64 { base.position }
    /// Whether the base can seek (standard output redirected to a regular file can).
    var isSeekable: Bool { base.isSeekable }
    /// Overwrites through (the size does not change).
    func overwrite(_ bytes: [UInt8], at offset: Int64) throws(MediaError) { try base.overwrite(bytes, at: offset) }
    /// Flushes the base.
    func flush() throws(MediaError) { try base.flush() }
    /// Closes the base.
    func close() throws(MediaError) { try base.close() }
}
