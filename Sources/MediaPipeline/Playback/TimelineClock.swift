import MediaCore

/// The clock of a ``MediaPlayer`` without audio to follow: the timeline position, moving with the host
/// clock at the player's rate while running, held while paused, set by a seek.
final class TimelineClock: Sendable {
    private struct State: Sendable {
        /// The position at `anchor` (seconds of the timeline).
        var position = 0.0
        /// The host time the position was taken at; `nil` while paused.
        var anchor: Double?
        var rate = 1.0
    }
    private let state = Locked(State())

    init(position: Double) { state.withLock { $0.position = position } }

    private static var host: Double { MediaClock.hostTime.seconds ?? 0 }

    /// The position now.
    var now: Double {
        let host = Self.host
        return state.withLock { s in s.anchor.map { s.position + (host - $0) * s.rate } ?? s.position }
    }

    /// Runs from where it is.
    func resume() {
        let host = Self.host
        state.withLock { s in if s.anchor == nil { s.anchor = host } }
    }

    /// Holds where it is.
    func pause() {
        let position = now
        state.withLock { s in
            s.position = position
            s.anchor = nil
        }
    }

    /// Moves to `position`, running or held as it was.
    func set(_ position: Double) {
        let host = Self.host
        state.withLock { s in
            s.position = position
            if s.anchor != nil { s.anchor = host }
        }
    }

    /// Runs at `rate` from now on.
    func setRate(_ rate: Double) {
        let position = now
        let host = Self.host
        state.withLock { s in
            s.position = position
            if s.anchor != nil { s.anchor = host }
            s.rate = rate
        }
    }
}
