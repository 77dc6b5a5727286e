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
/// ## Priming and remainder
///
/// An ADTS stream cannot say how many frames at its start are encoder delay (priming: 1024 for
/// FFmpeg's and this library's `AACEncoder`, 2112 for Apple's) or how many at its end
/// pad the last packet (remainder): it has no field for them, so a plain `.aac` file decodes to
/// priming + audio + remainder frames, and players that want gapless playback need the numbers from
/// elsewhere (an iTunSMPB tag, a playlist, the encoder that wrote the file). A caller who knows them
/// gives them to ``init(path:readSize:priming:remainder:)`` or ``init(bytes:priming:remainder:)``: the
/// reader then marks the first packets' ``/MediaCore/MediaSample/trimAtStart`` and the last packets'
/// ``/MediaCore/MediaSample/trimAtEnd`` as ``CAFReader`` does from a packet table (spilling over several
/// packets when they exceed one), and a decoder that honours trims (MediaFFmpeg's `AACDecoder`)
/// returns exactly the encoded frames:
///
/// ```swift
/// let reader = try ADTSReader(path: "take.aac", priming: 1024, remainder: 656)
/// var pipeline = Pipeline(source: reader, stages: [AACDecoder()], sink: CollectingSink())
/// ```
///
/// To mark the last packets the reader looks ahead by `remainder / 1024 + 1` packets, no more.
///
/// The reader is a class because it owns its position in the file: copies of a value would share the
/// file position but not the parse buffer, and each would lose the bytes the other read. It is not
/// thread-safe; hand it to one task at a time.
public final class ADTSReader: MediaSource, DiagnosticListing {
    private var parser = ADTSParser()
    /// Frames of encoder delay the caller declared: trimmed from the start.
    public let primingFrames: Int
    /// Frames of padding the caller declared: trimmed from the end.
    public let remainderFrames: Int
    /// Packets read but held back until it is known whether the remainder reaches them.
    private var held: [MediaSample] = []
    private var heldFrames = 0
    private var framesDelivered: Int64 = 0
    private var parsedAll = false
    /// How many of the parser's diagnostics went to ``logger``.
    private var loggedCount = 0
    private let input: FileInput?
    private let readSize: Int
    private var failure: MediaError?

    /// A reader of the file at `path` (`-` for standard input), reading `readSize` bytes at a time.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/io`` when the file cannot be opened; ``/MediaCore/MediaError/Code/invalidArgument``
    ///   when `readSize` is not positive.
    public convenience init(path: String, readSize: Int = 65536) throws(MediaError) {
        try self.init(path: path, readSize: readSize, priming: 0, remainder: 0)
    }

    /// A reader of the file at `path` whose packets carry the `priming` and `remainder` frames the caller
    /// knows (see "Priming and remainder" above).
    ///
    /// - Throws: as ``init(path:readSize:)``; ``/MediaCore/MediaError/Code/invalidArgument`` for a negative
    ///   `priming` or `remainder`.
    public init(path: String, readSize: Int = 65536, priming: Int, remainder: Int = 0) throws(MediaError) {
        guard readSize > 0 else {
            throw MediaError(.invalidArgument, "ADTSReader read size \(readSize) is not positive", stage: "ADTSReader")
        }
        try Self.check(priming: priming, remainder: remainder)
        input = try FileInput(path: path)
        self.readSize = readSize
        primingFrames = priming
        remainderFrames = remainder
    }

    /// A reader of the ADTS stream in `bytes`.
    public convenience init(bytes: [UInt8]) {
        self.init(checkedBytes: bytes, priming: 0, remainder: 0)
    }

    /// A reader of the ADTS stream in `bytes` whose packets carry the `priming` and `remainder` frames
    /// the caller knows (see "Priming and remainder" above).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a negative `priming` or `remainder`.
    public convenience init(bytes: [UInt8], priming: Int, remainder: Int = 0) throws(MediaError) {
        try Self.check(priming: priming, remainder: remainder)
        self.init(checkedBytes: bytes, priming: priming, remainder: remainder)
    }

    private init(checkedBytes bytes: [UInt8], priming: Int, remainder: Int) {
        input = nil
        readSize = 0
        primingFrames = priming
        remainderFrames = remainder
        parser.push(bytes)
        parser.finish()
    }

    private static func check(priming: Int, remainder: Int) throws(MediaError) {
        guard priming >= 0, remainder >= 0 else {
            throw MediaError(
                .invalidArgument, "ADTSReader priming (\(priming)) and remainder (\(remainder)) cannot be negative",
                stage: "ADTSReader")
        }
    }

    /// The name used in errors.
    public var name: String { "ADTSReader" }

    /// What the parser noticed and worked around so far, in order.
    public var diagnostics: [ADTSDiagnostic] { parser.diagnostics }

    /// ``diagnostics`` as ``/MediaCore/MediaDiagnostic``s, each as it is logged.
    public var mediaDiagnostics: [MediaDiagnostic] { diagnostics.map { $0.mediaDiagnostic(stage: name) } }

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

    /// The next AAC packet, or `nil` at the end of the stream; with ``primingFrames`` or
    /// ``remainderFrames``, marked with its share of them.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` when the input holds no ADTS frame, with byte offset 0;
    ///   ``/MediaCore/MediaError/Code/io`` when reading fails, with the file position. After an error, every call
    ///   throws it again.
    public func next() throws(MediaError) -> MediaSample? {
        guard primingFrames > 0 || remainderFrames > 0 else { return try nextPacket() }
        // Hold packets back until those after the first cover the remainder (or the stream ends).
        while !parsedAll {
            if let first = held.first, heldFrames - first.frameCount >= remainderFrames { break }
            guard let packet = try nextPacket() else {
                parsedAll = true
                break
            }
            held.append(packet)
            heldFrames += packet.frameCount
        }
        guard !held.isEmpty else { return nil }
        var packet = held.removeFirst()
        heldFrames -= packet.frameCount
        let frames = packet.frameCount
        let trimStart = Int(max(0, min(Int64(frames), Int64(primingFrames) - framesDelivered)))
        // Frames of the remainder that fall in this packet: those the packets after it do not cover.
        let trimEnd = parsedAll ? max(0, min(frames - trimStart, remainderFrames - heldFrames)) : 0
        packet.trimAtStart = trimStart
        packet.trimAtEnd = trimEnd
        framesDelivered += Int64(frames)
        return packet
    }

    private func nextPacket() throws(MediaError) -> MediaSample? {
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
