import Synchronization

/// A number one thread sets (a UI: a volume slider, a pan knob, a rate menu) while a stage reads it on
/// the graph thread: the `Sendable` control of ``GainStage``, ``PanStage`` and ``TimeStretch``, as
/// `AVAudioPlayer.volume`, `.pan` and `.rate` are properties a UI sets while the player plays.
///
/// ```swift
/// let volume = AudioParameter.volume(1)
/// var gain = GainStage(volume: volume)        // runs on the graph's thread
/// Task { @MainActor in volume.value = 0.5 }   // from anywhere, at any time
/// ```
///
/// - Values: a value outside ``range`` is clamped into it; NaN is ignored (the value stays as it was).
/// - Reading: a stage reads the value once per buffer it processes, so a change takes effect at the
///   start of the next buffer (and a gain or pan change is then ramped). Given the same input buffers
///   and the same value at each buffer, a stage's output is the same: the stages are deterministic.
/// - Real time: the value is one 64-bit atomic word (relaxed loads and stores): setting or reading it
///   never takes a lock and never allocates, so a real-time thread may do either.
public final class AudioParameter: Sendable {
    /// The values the parameter may take; others are clamped into it.
    public let range: ClosedRange<Double>
    private let bits: Atomic<UInt64>

    /// A parameter holding `value` (clamped into `range`; NaN gives the range's lower bound).
    public init(_ value: Double, range: ClosedRange<Double>) {
        self.range = range
        let start = value.isNaN ? range.lowerBound : min(max(value, range.lowerBound), range.upperBound)
        bits = Atomic(start.bitPattern)
    }

    /// The current value, always within ``range``. Setting clamps into the range and ignores NaN.
    public var value: Double {
        get { Double(bitPattern: bits.load(ordering: .relaxed)) }
        set {
            guard !newValue.isNaN else { return }
            bits.store(min(max(newValue, range.lowerBound), range.upperBound).bitPattern, ordering: .relaxed)
        }
    }

    /// A linear gain (`AVAudioPlayer.volume`): 0 is silence, 1 is unity; range 0…1.
    public static func volume(_ value: Double = 1) -> AudioParameter { AudioParameter(value, range: 0...1) }

    /// A stereo position (`AVAudioPlayer.pan`): −1 full left, 0 centre, +1 full right; range −1…1.
    public static func pan(_ value: Double = 0) -> AudioParameter { AudioParameter(value, range: -1...1) }

    /// A playback rate (`AVAudioPlayer.rate`): 0.5 half speed, 1 normal, 2 double speed; range 0.5…2.
    public static func rate(_ value: Double = 1) -> AudioParameter { AudioParameter(value, range: 0.5...2) }
}
