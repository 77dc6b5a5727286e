import Logging
public import MediaCore

extension ReconnectingSink {
    /// Tells `onEvent` and the logger about `event`.
    func report(_ event: Event) {
        onEvent?(event)
        event.mediaDiagnostic(stage: name, discardedSamples: discardedSamples).log(to: logger)
    }
}

extension ReconnectingSink.Event {
    /// The event as a diagnostic of `stage`: an outage (code `disconnected`) and a failed attempt (code
    /// `reconnectFailed`, with `attempt`) are warnings; a reconnection (`reconnected`, with `attempt`) and
    /// the resumption (`resumed`, with `count`: the samples discarded so far) are `.info`.
    public func mediaDiagnostic(stage: String, discardedSamples: Int) -> MediaDiagnostic {
        var metadata = [DiagnosticKey.stage: stage]
        switch self {
        case .disconnected(let error, let delay):
            metadata[DiagnosticKey.code] = "disconnected"
            return MediaDiagnostic(
                .warning, "The connection failed (\(error.message)); reconnecting in \(delay).", metadata: metadata)
        case .attemptFailed(let attempt, let error, let delay):
            metadata[DiagnosticKey.code] = "reconnectFailed"
            metadata[DiagnosticKey.attempt] = String(attempt)
            let next = delay.map { "retrying in \($0)" } ?? "giving up"
            return MediaDiagnostic(
                .warning, "Reconnection attempt \(attempt) failed (\(error.message)); \(next).", metadata: metadata)
        case .reconnected(let attempt, let downtime):
            metadata[DiagnosticKey.code] = "reconnected"
            metadata[DiagnosticKey.attempt] = String(attempt)
            return MediaDiagnostic(
                .info, "Reconnected at attempt \(attempt) after \(downtime) down.", metadata: metadata)
        case .resumed(let decodeTime):
            metadata[DiagnosticKey.code] = "resumed"
            metadata[DiagnosticKey.count] = String(discardedSamples)
            return MediaDiagnostic(
                .info,
                "Resumed the stream at decode time \(decodeTime) after discarding \(discardedSamples) \(discardedSamples == 1 ? "sample" : "samples").",
                metadata: metadata)
        }
    }
}
