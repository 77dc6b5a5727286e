/// A value that moves to a new target in a straight line over a given number of frames, one step per
/// frame: the de-clicking of ``GainStage`` and ``PanStage``.
///
/// ``next()`` returns the value for the next frame. After ``retarget(_:over:)`` the `k`-th call returns
/// `start + (target − start) × k / length` (the last exactly `target`), so that no two consecutive
/// frames differ by more than `|target − start| / length`. A new target mid-ramp starts a new ramp from
/// where the value is, so the value never jumps.
struct LinearRamp: Sendable {
    /// The value the last ``next()`` returned (or the initial value).
    private(set) var value: Double
    /// Where the ramp is heading (equal to ``value`` when steady).
    private(set) var target: Double
    private var start: Double
    private var done = 0
    private var length = 0

    /// A steady ramp at `value`.
    init(_ value: Double) {
        self.value = value
        target = value
        start = value
    }

    /// Whether the value is steady (no ramp under way).
    var isSteady: Bool { length == 0 }

    /// Heads for `newTarget` over `frames` frames (at least 1); nothing when it is the current target.
    mutating func retarget(_ newTarget: Double, over frames: Int) {
        guard newTarget != target else { return }
        start = value
        target = newTarget
        done = 0
        length = max(1, frames)
    }

    /// The value for the next frame.
    @inline(__always)
    mutating func next() -> Double {
        guard length > 0 else { return value }
        done += 1
        if done >= length {
            value = target
            length = 0
        } else {
            value = start + (target - start) * Double(done) / Double(length)
        }
        return value
    }

    /// The number of frames `duration` lasts at `sampleRate`, at least 1.
    static func frames(_ duration: Duration, sampleRate: Int) -> Int {
        let (seconds, attoseconds) = duration.components
        let total = (Double(seconds) + Double(attoseconds) * 1e-18) * Double(sampleRate)
        guard total.isFinite, total >= 1 else { return 1 }
        return Int(min(total.rounded(), Double(Int32.max)))
    }
}
