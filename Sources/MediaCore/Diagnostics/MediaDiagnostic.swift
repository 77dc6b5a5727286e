public import Logging

/// One warning or note the library reports while it works around something (a resynchronisation,
/// skipped bytes, a concealed frame, a dropped sample, a reconnection), in the form it takes both in a
/// log record and in ``Pipeline/Progress/warnings``.
///
/// Every component that reports diagnostics builds one of these and calls ``log(to:)``: the single path
/// from the library to a `Logger`. The message is one sentence with its numbers; where it happened is in
/// ``metadata`` under the stable keys of ``DiagnosticKey`` (`stage`, `code`, `byteOffset`,
/// `sampleIndex`, …), so that a log handler can filter on them without parsing text.
///
/// ```swift
/// var logger = Logger(label: "player")
/// logger.logLevel = .warning
/// let reader = try WAVReader(path: "cut.wav")
/// reader.logger = logger   // logs "WAV 'data' chunk declares … bytes …" with code=dataBeyondEndOfFile
/// ```
public struct MediaDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious it is: `.warning` when the output differs from what the input declares (skipped bytes,
    /// concealed frames, dropped samples, an outage), `.info` for routine events (a reconnection
    /// succeeded), `.debug` for what only a developer wants (a skipped metadata chunk).
    public var level: Logger.Level
    /// One sentence with the numbers, e.g. "Skipped 12 bytes at byte offset 4096 to resynchronise to
    /// the next ADTS frame."
    public var message: String
    /// Where and what: values under the keys of ``DiagnosticKey``, as strings.
    public var metadata: [String: String]

    /// A diagnostic with every field given.
    public init(_ level: Logger.Level, _ message: String, metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }

    /// The value under `key` (one of ``DiagnosticKey``'s), if any.
    public subscript(key: String) -> String? { metadata[key] }

    /// What happened, one camel-case word (the metadata under ``DiagnosticKey/code``), e.g.
    /// `partialFrameDropped`; `nil` when the component gave none.
    public var code: String? { metadata[DiagnosticKey.code] }

    /// Where in the input, from its first byte (the metadata under ``DiagnosticKey/byteOffset``).
    public var byteOffset: Int64? { metadata[DiagnosticKey.byteOffset].flatMap { Int64($0) } }

    /// The message, then the metadata sorted by key: `Skipped 3 bytes … (byteOffset=42, code=resynchronized)`.
    public var description: String {
        guard !metadata.isEmpty else { return message }
        let pairs = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "\(message) (\(pairs.joined(separator: ", ")))"
    }

    /// Logs the diagnostic to `logger` at its ``level``, with its ``metadata``; does nothing when
    /// `logger` is `nil` (the default everywhere: the library is silent unless given a logger).
    public func log(to logger: Logger?) {
        guard let logger, logger.logLevel <= level else { return }
        logger.log(
            level: level, Logger.Message(stringLiteral: message),
            metadata: metadata.mapValues { Logger.MetadataValue.string($0) }, source: "MediaPipeline")
    }
}
