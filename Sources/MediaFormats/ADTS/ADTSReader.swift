public import Logging
public import MediaCore

/// Reads the AAC packets of an ADTS file (`.aac`) or byte array: an ``ADTSParser`` fed in chunks.
///
/// ```swift
/// let reader = try ADTSReader(path: "song.aac")
/// while let packet = try reader.next() { try decoder.process(packet, into: play) }
/// if !reader.diagnostics.isEmpty { print(reader.diagnostics) }
/// ```
///
/// The packets and diagnostics are those of ``ADTSParser``: ID3v2 tags are skipped, damaged stretches
/// are skipped with a diagnostic and a discontinuity flag, and a file without any ADTS frame throws.
/// The reader holds one chunk and the unparsed rest of the last frame, not the whole file.
///
/// The reader is a class because it owns its position in the file: copies of a value would share the
/// file position but not the parse buffer, and each would lose the bytes the other read. It is not
/// thread-safe; hand it to one task at a time.
public final class ADTSReader: MediaSource, DiagnosticReporting {
    private var parser = ADTSParser()
    /// How many of the parser's diagnostics went to ``logger``.
    private var loggedCount = 0
    private let input: FileInput?
    private let readSize: Int
    private var failure: MediaError?

    /// A reader of the file at `path` (`-` for standard input), reading `readSize` bytes at a time.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/io`` when the file cannot be opened; ``/MediaCore/MediaError/Code/invalidArgument``
    ///   when `readSize` is not positive.
    public init(path: String, readSize: Int = 65536) throws(MediaError) {
        guard readSize > 0 else {
            throw MediaError(.invalidArgument, "ADTSReader read size \(readSize) is not positive")
        }
        input = try FileInput(path: path)
        self.readSize = readSize
    }

    /// A reader of the ADTS stream in `bytes`.
    public init(bytes: [UInt8]) {
        input = nil
        readSize = 0
        parser.push(bytes)
        parser.finish()
    }

    /// The name used in errors.
    public var name: String { "ADTSReader" }

    /// What the parser noticed and worked around so far, in order.
    public var diagnostics: [ADTSDiagnostic] { parser.diagnostics }

    /// Where ``diagnostics`` are logged as the parser makes them (resynchronisation as a warning with
    /// `stage`, `code` `resynchronized`, `byteOffset` and `count` (bytes skipped); see
    /// ``ADTSDiagnostic/mediaDiagnostic(stage:)``). Setting it logs those made so far; `nil` (the
    /// default) logs nothing.
    public var logger: Logger? {
        didSet {
            loggedCount = 0
            logNewDiagnostics()
        }
    }

    /// Bytes parsed so far.
    public var bytesConsumed: Int64 { parser.bytesConsumed }

    /// The next AAC packet, or `nil` at the end of the stream.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` when the input holds no ADTS frame, with byte offset 0;
    ///   ``/MediaCore/MediaError/Code/io`` when reading fails, with the file position. After an error, every call
    ///   throws it again.
    public func next() throws(MediaError) -> MediaSample? {
        defer { if loggedCount < parser.diagnostics.count { logNewDiagnostics() } }
        if let failure { throw failure }
        do throws(MediaError) {
            while true {
                if let packet = try parser.next() { return packet }
                guard let input else { return nil }
                let chunk = try input.read(upTo: readSize)
                if chunk.isEmpty {
                    parser.finish()
                    return try parser.next()
                }
                parser.push(chunk)
            }
        } catch {
            let named = error.inStage(name)
            failure = named
            throw named
        }
    }
}

extension ADTSReader {
    private func logNewDiagnostics() {
        guard let logger else { return }
        let all = parser.diagnostics
        while loggedCount < all.count {
            all[loggedCount].mediaDiagnostic(stage: name).log(to: logger)
            loggedCount += 1
        }
    }
}

@available(*, unavailable)
extension ADTSReader: Sendable {}
