public import Logging

/// A component (source, stage or sink) that reports what it works around through a `Logger`.
///
/// Readers, decoders and network sinks adopt it. A user can set ``logger`` on one component; or give a
/// logger once to `Pipeline.init(source:stages:sink:logger:)` or ``MediaGraph/init(interleaving:logger:)``,
/// whose drivers hand it to every component that adopts this protocol and has no logger of its own.
/// Either way the run's progress counts the warnings (``Pipeline/Progress/warnings``), so a caller with
/// no logger at all still learns of them.
///
/// The protocol is class-bound on purpose: the components that have something to report own a position
/// in a file or a connection and are classes already, and a driver holding one as `any MediaSource`
/// can then set its logger through the existential without copying a value out and back.
///
/// Setting the logger logs the diagnostics the component found before (a WAV header's, for example),
/// then each new one as it is found; nothing is logged per sample when nothing is wrong.
public protocol DiagnosticReporting: AnyObject {
    /// Where diagnostics go; `nil` (the default) keeps the component silent.
    var logger: Logger? { get set }
}
