import MediaCore

/// The loops a player's engine still has to play, set from any thread (``AudioPlayer/numberOfLoops``,
/// ``MediaPlayer/numberOfLoops``) and taken by the engine at the end of the file: 0 none, negative for ever.
final class LoopsLeft: Sendable {
    private let count: Locked<Int>

    init(_ count: Int) { self.count = Locked(count) }

    /// The loops left.
    var value: Int {
        get { count.withLock { $0 } }
        set { count.withLock { $0 = newValue } }
    }

    /// Takes one loop, if any is left; `true` when the file should start again.
    func take() -> Bool {
        count.withLock { count in
            guard count != 0 else { return false }
            if count > 0 { count -= 1 }
            return true
        }
    }
}
