/// One channel's meter reading as linear amplitudes, like AudioQueue's `AudioQueueLevelMeterState`
/// (`kAudioQueueProperty_CurrentLevelMeter`): 0 is silence, 1 is full scale (float input may read
/// above 1).
///
/// The same reading as ``LevelMeter/averagePower(forChannel:)`` and ``LevelMeter/peakPower(forChannel:)``
/// before the conversion to dB: `dB = 20 × log10(linear)`, floored at −160 dB.
public struct LevelMeterState: Sendable, Hashable {
    /// The RMS amplitude over the meter's averaging window (`mAveragePower`).
    public var averagePower: Float
    /// The peak amplitude with hold and decay applied (`mPeakPower`).
    public var peakPower: Float

    /// A reading with both values given.
    public init(averagePower: Float, peakPower: Float) {
        self.averagePower = averagePower
        self.peakPower = peakPower
    }

    /// Both values 0: what a meter reads before any audio and for digital silence.
    public static let silent = LevelMeterState(averagePower: 0, peakPower: 0)
}
