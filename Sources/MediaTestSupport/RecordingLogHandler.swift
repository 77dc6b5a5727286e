public import Logging

/// What a ``RecordingLogHandler`` received, shared by every copy of its logger: the records in order.
public final class LogRecords: Sendable {
    /// One log record, its metadata flattened to strings.
    public struct Record: Sendable, Hashable, CustomStringConvertible {
        /// The record's level.
        public var level: Logger.Level
        /// The message.
        public var message: String
        /// The handler's metadata merged with the record's.
        public var metadata: [String: String]

        /// `warning: message [key=value, …]`, for failure messages.
        public var description: String {
            "\(level): \(message) \(metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })"
        }
    }

    private let stored = LockedBox<[Record]>([])

    /// An empty record list.
    public init() {}

    /// The records so far, in order.
    public var all: [Record] { stored.withLock { $0 } }

    /// The records whose `code` metadata is `code`.
    public func with(code: String) -> [Record] { all.filter { $0.metadata["code"] == code } }

    /// A logger at `level` (default: trace, everything) whose records land here.
    public func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test") { _ in RecordingLogHandler(records: self) }
        logger.logLevel = level
        return logger
    }

    func append(_ record: Record) { stored.withLock { $0.append(record) } }
}

/// A `LogHandler` that keeps every record in a ``LogRecords``, for tests to assert messages and metadata.
public struct RecordingLogHandler: LogHandler {
    /// Where the records go.
    public let records: LogRecords
    /// The least severe level kept.
    public var logLevel: Logger.Level = .trace
    /// Metadata added to every record.
    public var metadata: Logger.Metadata = [:]

    /// A handler appending to `records`.
    public init(records: LogRecords) { self.records = records }

    /// Metadata added to every record, by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Keeps the record.
    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        records.append(.init(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}
