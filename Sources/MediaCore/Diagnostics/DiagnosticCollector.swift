import Logging
import Synchronization

/// The warnings of one run, for its progress: a count and the first ``limit`` diagnostics. Shared by
/// the log handlers the driver hands to the components, which may log from several threads.
final class DiagnosticCollector: Sendable {
    /// How many diagnostics progress keeps; the count goes on.
    static let limit = 16

    private let seen = Atomic<Int>(0)
    private let kept = Locked<[MediaDiagnostic]>([])

    init() {}

    /// Warnings (and worse) logged so far. One atomic load: cheap enough to poll per sample.
    var count: Int { seen.load(ordering: .acquiring) }

    /// The first ``limit`` of them.
    var diagnostics: [MediaDiagnostic] { kept.withLock { $0 } }

    func record(_ diagnostic: MediaDiagnostic) {
        kept.withLock { if $0.count < Self.limit { $0.append(diagnostic) } }
        seen.add(1, ordering: .releasing)
    }

    /// A logger that records warnings here and passes every record on to `user` (if any).
    func logger(forwardingTo user: Logger?) -> Logger {
        let upstream = user
        return Logger(label: user?.label ?? "MediaPipeline") { _ in
            CollectingLogHandler(collector: self, upstream: upstream)
        }
    }

    /// Hands a collecting logger to `component` if it reports diagnostics and has no logger of its own;
    /// through a ``WrappingComponent``, to the component it wraps.
    func attach(to component: Any, user: Logger?) {
        if let wrapper = component as? any WrappingComponent {
            attach(to: wrapper.wrappedComponent, user: user)
            return
        }
        guard let reporter = component as? any DiagnosticReporting, reporter.logger == nil else { return }
        reporter.logger = logger(forwardingTo: user)
    }
}

/// Records warnings in a ``DiagnosticCollector`` and forwards every record to the user's logger.
struct CollectingLogHandler: LogHandler {
    let collector: DiagnosticCollector
    let upstream: Logger?
    var metadata: Logger.Metadata = [:]

    /// Low enough for both: the collector wants warnings, the user's logger whatever its level says.
    var logLevel: Logger.Level {
        get { min(upstream?.logLevel ?? .warning, .warning) }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if event.level >= .warning {
            collector.record(
                MediaDiagnostic(event.level, event.message.description, metadata: merged.mapValues { "\($0)" }))
        }
        if let upstream, event.level >= upstream.logLevel {
            upstream.log(
                level: event.level, event.message, metadata: merged, source: event.source, file: event.file,
                function: event.function, line: event.line)
        }
    }
}
