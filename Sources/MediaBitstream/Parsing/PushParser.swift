public import MediaCore

/// A parser that is given bytes as they arrive, in pieces of any size, and hands out what it has parsed
/// one value at a time: the shape of every byte-stream parser here (``AnnexBScanner``) and in
/// MediaFormats (`ADTSParser`, `AnnexBAccessUnitParser`, `Y4MParser`), like Audio File Stream Services'
/// `AudioFileStream` or NIO's `ByteToMessageDecoder`.
///
/// ```swift
/// var parser = ADTSParser()
/// for chunk in chunks {
///     parser.push(chunk)
///     while let packet = try parser.next() { try sink.write(packet) }
/// }
/// parser.finish()
/// while let packet = try parser.next() { try sink.write(packet) }
/// ```
///
/// The contract:
/// - ``next()`` returning `nil` before ``finish()`` means "I need more bytes"; it is never an error. After
///   ``finish()``, `nil` means the end: everything has been handed out, and every later call returns
///   `nil` again.
/// - A parser decides only once it has the bytes the decision depends on, or once ``finish()`` says no
///   more will come. So the outputs and the errors (their code and byte offset) are the same however the
///   input is split: whole, byte by byte, or in random pieces (MediaTestSupport's `PushParserVerifier`
///   checks exactly that for every parser here).
/// - Input that ends where more was needed (a frame cut off, a header that never completes) is reported
///   by ``next()`` after ``finish()``: as a thrown ``/MediaCore/MediaError/Code/truncated`` or as a
///   diagnostic, as each parser documents; it is never dropped silently.
/// - Bytes pushed after ``finish()`` are a misuse, not more input: the next call of ``next()`` throws
///   ``/MediaCore/MediaError/Code/invalidArgument``.
/// - A parser keeps only the bytes it has not handed out yet, so that memory stays flat on a long stream.
public protocol PushParser<Output> {
    /// What the parser hands out: a packet, a NAL unit, an access unit, a header or a frame.
    associatedtype Output

    /// Appends the next bytes of the stream. Pushing an empty collection changes nothing.
    mutating func push(_ bytes: some Collection<UInt8>)

    /// Says that the stream has ended, so that ``next()`` decides about the last bytes. Calling it again
    /// changes nothing.
    mutating func finish()

    /// The next value parsed, or `nil` when the parser needs more bytes (before ``finish()``) or has
    /// handed out everything (after it).
    ///
    /// - Throws: a ``/MediaCore/MediaError`` with the byte offset of what is wrong; each parser documents
    ///   its errors and whether it goes on after one.
    mutating func next() throws(MediaError) -> Output?
}

extension PushParser {
    /// Parses the whole of `bytes`: pushes them, finishes and returns every output.
    ///
    /// ```swift
    /// var parser = AnnexBScanner()
    /// let units = try parser.parseAll(stream)
    /// ```
    ///
    /// - Throws: the first error ``PushParser/next()`` throws.
    public mutating func parseAll(_ bytes: some Collection<UInt8>) throws(MediaError) -> [Output] {
        push(bytes)
        finish()
        var outputs: [Output] = []
        while let output = try next() { outputs.append(output) }
        return outputs
    }
}
