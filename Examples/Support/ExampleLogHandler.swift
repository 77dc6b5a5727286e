// The examples' diagnostics: the library's `Logger` records printed on standard error in the house
// style, one line each, `<example>: warning: <message> (<metadata>)`, as ffmpeg prints its warnings.
public import ArgumentParser
public import Logging

/// A `LogHandler` that prints each record as one line on standard error:
/// `audio-convert: warning: Skipped 3 bytes at byte offset 42 … (byteOffset=42, code=resynchronized, …)`,
/// the metadata sorted by key.
public struct ExampleLogHandler: LogHandler {
    /// The example's name, the first word of each line.
    public let example: String
    /// The least severe level printed.
    public var logLevel: Logger.Level
    /// Metadata added to every record.
    public var metadata: Logger.Metadata = [:]

    /// A handler printing records of `level` and above for `example`.
    public init(example: String, level: Logger.Level) {
        self.example = example
        logLevel = level
    }

    /// Metadata added to every record, by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Prints the record as one line on standard error.
    public func log(event: LogEvent) {
        printError(
            Self.line(example: example, event.level, "\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 })
        )
    }

    /// `<example>: <level>: <message> (<key>=<value>, …)`, the metadata sorted by key.
    public static func line(example: String, _ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata)
        -> String
    {
        let pairs = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "\(example): \(level.rawValue): \(message)"
            + (pairs.isEmpty ? "" : " (\(pairs.joined(separator: ", ")))")
    }

    /// The logger an example hands the library: warnings and errors by default, debug and up with
    /// `verbose`, errors only with `quiet` (which wins).
    public static func logger(for example: String, verbose: Bool, quiet: Bool) -> Logger {
        let level: Logger.Level = quiet ? .error : verbose ? .debug : .warning
        return Logger(label: example) { _ in ExampleLogHandler(example: example, level: level) }
    }
}

/// `--verbose`, for the examples' option groups. `--quiet` stays each example's own flag (it also
/// silences progress lines): pass both to ``ExampleLogHandler/logger(for:verbose:quiet:)``.
public struct VerboseOption: ParsableArguments {
    /// Also print informational and debug diagnostics (skipped chunks and tags, reconnections).
    @Flag(name: .long, help: "Also print informational and debug diagnostics, not only warnings.")
    public var verbose = false

    /// No flag given.
    public init() {}
}
