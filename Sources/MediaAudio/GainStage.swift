/// Linear gain on float32 PCM with de-clicked changes: `AVAudioPlayer.volume` as a stage.
///
/// ```swift
/// let volume = AudioParameter.volume(1)
/// var stage = GainStage(volume: volume)          // 20 ms ramps
/// volume.value = 0.5                             // from a UI thread: −6.02 dB from the next buffer on
/// ```
///
/// - Accepts: `f32` (interleaved) or `f32p` (planar) PCM, any channel count and sample rate; the format
///   may change from buffer to buffer. Output keeps the input's format, timing, flags and trims.
/// - Refuses: any other format with ``/MediaCore/MediaError/Code/formatMismatch`` (convert first with
///   `AudioConverter`); buffers shorter than the frame count with ``/MediaCore/MediaError/Code/invalidData``.
/// - Gain: linear amplitude factor in 0…1 (``AudioParameter/volume(_:)``); values outside are clamped,
///   as `AVAudioPlayer.volume` is, so the stage never amplifies and never clips what was not clipped.
///   The stage clamps again, whatever range the given parameter has.
/// - Changes: the parameter is read once per buffer; a new value is reached by a straight-line ramp
///   over ``rampFrames(sampleRate:)`` frames (``rampDuration``, 20 ms by default), starting at the
///   buffer's first frame, per frame (sample-accurate), across buffer boundaries. Consecutive frames'
///   gains never differ by more than |Δgain| / ramp frames: no click.
/// - Unity: at gain 1 with no ramp under way the input sample is emitted as it is (bit-identical, no
///   copy). Otherwise the output buffers are recycled (no allocation per buffer once the consumer lets
///   go of the previous output).
public struct GainStage: MediaStage {
    /// The control a UI sets.
    public let volume: AudioParameter
    /// How long a change of gain takes.
    public let rampDuration: Duration
    private var ramp: LinearRamp
    private var recycler = SampleRecycler()

    /// A gain stage following `volume` (whose value is the gain at the start: no ramp in from 0), with
    /// changes ramped over `rampDuration` (at least one frame).
    public init(volume: AudioParameter = .volume(1), rampDuration: Duration = .milliseconds(20)) {
        self.volume = volume
        self.rampDuration = rampDuration
        ramp = LinearRamp(Self.clamped(volume.value))
    }

    /// The gain the last processed frame got (the ramp's position).
    public var currentGain: Double { ramp.value }

    /// The frames a ramp lasts at `sampleRate`: ``rampDuration`` × rate, rounded, at least 1.
    public func rampFrames(sampleRate: Int) -> Int { LinearRamp.frames(rampDuration, sampleRate: sampleRate) }

    /// Applies the gain; emits one sample per sample.
    public mutating func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        let format = try Float32PCM.format(of: sample, stage: name)
        ramp.retarget(Self.clamped(volume.value), over: rampFrames(sampleRate: format.sampleRate))
        if ramp.isSteady && ramp.value == 1 {
            try emit(sample)
            return
        }
        let output = RampedGain.apply(sample, format: format, ramp: &ramp, recycler: &recycler) { gain, _ in
            Float(gain)
        }
        try emit(output)
    }

    /// Nothing is held back.
    public mutating func finish(into emit: (MediaSample) throws -> Void) throws {
        recycler.removeAll()
    }

    private static func clamped(_ value: Double) -> Double { value.isNaN ? 1 : min(max(value, 0), 1) }
}
