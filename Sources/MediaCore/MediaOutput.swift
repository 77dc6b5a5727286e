/// Where a muxer's bytes go: a file, memory, standard output, a pipe.
///
/// Outputs are reference types: a muxer writes through one, and the caller can keep a reference to
/// read the result (``MemoryOutput/bytes``) or the position.
public protocol MediaOutput: AnyObject {
    /// Appends bytes at the current end.
    func write(_ bytes: UnsafeRawBufferPointer) throws(MediaError)
    /// Bytes written so far: the offset of the next write.
    var position: Int64 { get }
    /// Whether ``overwrite(_:at:)`` works (a regular file, memory), so that a muxer can patch sizes.
    var isSeekable: Bool { get }
    /// Replaces bytes already written at `offset`, without moving the end. Throws on a non-seekable output.
    func overwrite(_ bytes: [UInt8], at offset: Int64) throws(MediaError)
    /// Pushes buffered bytes to the file or stream.
    func flush() throws(MediaError)
    /// Flushes and closes. Later writes throw.
    func close() throws(MediaError)
}

extension MediaOutput {
    /// Appends the bytes of an array.
    public func write(_ bytes: [UInt8]) throws(MediaError) {
        var failure: MediaError?
        bytes.withUnsafeBytes { raw in
            do throws(MediaError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}

/// An output that keeps everything in memory.
public final class MemoryOutput: MediaOutput {
    /// Everything written.
    public private(set) var bytes: [UInt8] = []
    private var closed = false

    /// An empty output.
    public init() {}

    /// Appends bytes.
    public func write(_ raw: UnsafeRawBufferPointer) throws(MediaError) {
        guard !closed else { throw MediaError(.io, "write to a closed MemoryOutput") }
        bytes.append(contentsOf: raw)
    }

    /// Bytes written so far.
    public var position: Int64 { Int64(bytes.count) }
    /// Always `true`.
    public var isSeekable: Bool { true }

    /// Replaces bytes at `offset`.
    public func overwrite(_ data: [UInt8], at offset: Int64) throws(MediaError) {
        guard offset >= 0, offset + Int64(data.count) <= Int64(bytes.count) else {
            throw MediaError(
                .invalidArgument,
                "overwrite of \(count: data.count, "byte") past the end of \(count: bytes.count, "byte")",
                byteOffset: offset)
        }
        bytes.replaceSubrange(Int(offset)..<Int(offset) + data.count, with: data)
    }

    /// Does nothing.
    public func flush() throws(MediaError) {}
    /// Marks the output closed.
    public func close() throws(MediaError) { closed = true }
}

/// A stream that refuses to seek, over another output: to test muxers on pipes and sockets.
public final class NonSeekableOutput: MediaOutput {
    /// The output written through.
    public let base: any MediaOutput

    /// Wraps `base`, hiding its ability to seek.
    public init(_ base: any MediaOutput) { self.base = base }

    /// Appends bytes to the base output.
    public func write(_ raw: UnsafeRawBufferPointer) throws(MediaError) { try base.write(raw) }
    /// The base output's position.
    public var position: Int64 { base.position }
    /// Always `false`.
    public var isSeekable: Bool { false }
    /// Always throws: the output cannot seek.
    public func overwrite(_ bytes: [UInt8], at offset: Int64) throws(MediaError) {
        throw MediaError(.unsupportedFormat, "cannot seek back to offset \(offset) on a non-seekable output")
    }
    /// Flushes the base output.
    public func flush() throws(MediaError) { try base.flush() }
    /// Closes the base output.
    public func close() throws(MediaError) { try base.close() }
}
