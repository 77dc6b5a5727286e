/// Left–right balance on stereo float32 PCM with de-clicked changes: `AVAudioPlayer.pan` as a stage.
///
/// ```swift
/// let pan = AudioParameter.pan(0)
/// var stage = PanStage(pan: pan)
/// pan.value = -1                                 // from a UI thread: the right channel fades out
/// ```
///
/// The law, for stereo (2 channels; channel 0 left, channel 1 right), with the pan `p` in −1…1:
///
/// | pan `p`   | left gain        | right gain       |
/// | --------- | ---------------- | ---------------- |
/// | −1 … 0    | 1                | 1 + p            |
/// | 0 … +1    | 1 − p            | 1                |
///
/// a linear balance: the side the pan points to is never changed, the other fades linearly to silence
/// (pan −1: right silent, left unchanged; pan +1 mirrors it; pan 0 is the identity). A balance, not a
/// constant-power panner: the content already has its stereo image, and a balance keeps it, as a hi-fi
/// amplifier's balance control and `AVAudioPlayer` on stereo files do.
///
/// - Mono has no image to balance: by default it passes unchanged, whatever the pan. With
///   ``MonoHandling/constantPowerStereo`` it comes out as stereo placed by a constant-power law
///   (pan 0: −3.01 dB on each side), as `AVAudioPlayer` places a mono file on a stereo output.
/// - Three or more channels pass unchanged, whatever the pan: a balance has no single meaning there
///   (which channels are "left" depends on the layout, and placing sources in a surround field is a
///   spatial mixer's job, `AVAudioEnvironmentNode`'s).
/// - Accepts: `f32` or `f32p` PCM, any channel count and rate. Refuses other formats with
///   ``/MediaCore/MediaError/Code/formatMismatch``; short buffers with ``/MediaCore/MediaError/Code/invalidData``.
/// - Changes: read once per buffer, reached by a straight-line ramp of the pan value over
///   ``rampFrames(sampleRate:)`` frames (20 ms by default), per frame; a channel's gain moves by at
///   most |Δpan| / ramp frames between consecutive frames.
/// - Pan 0 (steady) on stereo, and input passed unchanged, are emitted as they are: bit-identical, no
///   copy.
public struct PanStage: MediaStage {
    /// The control a UI sets.
    public let pan: AudioParameter
    /// How long a change of pan takes.
    public let rampDuration: Duration
    /// What happens to mono input.
    public let mono: MonoHandling
    private var ramp: LinearRamp
    private var recycler = SampleRecycler()

    /// A pan stage following `pan` (whose value applies from the first frame), with changes ramped over
    /// `rampDuration` (at least one frame), doing `mono` with mono input.
    public init(
        pan: AudioParameter = .pan(0), rampDuration: Duration = .milliseconds(20), mono: MonoHandling = .unchanged
    ) {
        self.pan = pan
        self.rampDuration = rampDuration
        self.mono = mono
        ramp = LinearRamp(Self.clamped(pan.value))
    }

    /// The pan the last processed stereo frame got (the ramp's position).
    public var currentPan: Double { ramp.value }

    /// The frames a ramp lasts at `sampleRate`: ``rampDuration`` × rate, rounded, at least 1.
    public func rampFrames(sampleRate: Int) -> Int { LinearRamp.frames(rampDuration, sampleRate: sampleRate) }

    /// The (left, right) gains of the balance law at pan `p` (clamped to −1…1).
    public static func gains(pan p: Double) -> (left: Double, right: Double) {
        let pan = clamped(p)
        return pan <= 0 ? (1, 1 + pan) : (1 - pan, 1)
    }

    /// Applies the balance to stereo (or places mono, if asked); emits one sample per sample.
    public mutating func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        let format = try Float32PCM.format(of: sample, stage: name)
        if format.channelCount == 1 && mono == .constantPowerStereo {
            ramp.retarget(Self.clamped(pan.value), over: rampFrames(sampleRate: format.sampleRate))
            try emit(Self.panMono(sample, format: format, ramp: &ramp, recycler: &recycler))
            return
        }
        guard format.channelCount == 2 else {
            try emit(sample)
            return
        }
        ramp.retarget(Self.clamped(pan.value), over: rampFrames(sampleRate: format.sampleRate))
        if ramp.isSteady && ramp.value == 0 {
            try emit(sample)
            return
        }
        let output = RampedGain.apply(sample, format: format, ramp: &ramp, recycler: &recycler) { pan, channel in
            let gains = Self.gains(pan: pan)
            return Float(channel == 0 ? gains.left : gains.right)
        }
        try emit(output)
    }

    /// Nothing is held back.
    public mutating func finish(into emit: (MediaSample) throws -> Void) throws {
        recycler.removeAll()
    }

    private static func clamped(_ value: Double) -> Double { value.isNaN ? 0 : min(max(value, -1), 1) }
}
