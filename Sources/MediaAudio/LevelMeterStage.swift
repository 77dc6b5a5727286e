import MediaCore

/// The pass-through stage that feeds a ``LevelMeter``: get one from ``LevelMeter/stage``.
///
/// Takes linear PCM of any ``/MediaCore/PCMSampleType``, interleaved or planar, at any channel count and rate,
/// and emits every sample unchanged (the same storage) after metering it. Throws
/// ``/MediaCore/MediaError/Code/formatMismatch`` for anything but PCM audio, and ``/MediaCore/MediaError/Code/invalidData``
/// for a PCM sample with no channels, a sample rate of 0 or less, or buffers shorter than its frame
/// count says, and ``/MediaCore/MediaError/Code/unsupportedFormat`` for more than 1 024 channels or a rate above
/// 4 MHz. A sample with a new channel count or sample rate resets the meter. ``finish(into:)``
/// closes the last, short block, so that the final readings cover every frame; it emits nothing.
///
/// The stage holds the meter's arithmetic; the readings it publishes live in the shared ``meter``.
public struct LevelMeterStage: MediaStage, Sendable {
    /// The most channels the stage takes.
    public static let maximumChannelCount = 1_024
    /// The highest sample rate the stage takes, in Hz.
    public static let maximumSampleRate = 4_000_000
    /// The meter this stage feeds.
    public let meter: LevelMeter
    private var analyzer: MeterAnalyzer?

    init(meter: LevelMeter) { self.meter = meter }

    /// `LevelMeter`.
    public var name: String { "LevelMeter" }

    /// Meters `sample`'s frames (after trims), publishes the readings, and emits `sample` as it is.
    public mutating func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .audio(let audio) = sample.format, let pcm = audio.pcm else {
            throw MediaError.formatMismatch(stage: name, expected: "linear PCM audio", actual: sample.format)
        }
        guard audio.channelCount > 0, audio.sampleRate > 0 else {
            throw MediaError(
                .invalidData,
                "\(audio) has \(count: audio.channelCount, "channel") at \(audio.sampleRate) Hz; the meter needs at least 1 channel at a positive rate"
            )
        }
        guard audio.channelCount <= Self.maximumChannelCount, audio.sampleRate <= Self.maximumSampleRate else {
            throw MediaError(
                .unsupportedFormat,
                "\(audio) has \(count: audio.channelCount, "channel") at \(audio.sampleRate) Hz; the meter takes at most \(count: Self.maximumChannelCount, "channel") at \(Self.maximumSampleRate) Hz"
            )
        }
        // Checked before validatePCMLayout, which multiplies the two.
        guard sample.frameCount <= Int.max / audio.bytesPerFrame else {
            throw MediaError(
                .invalidData, "a PCM sample of \(count: sample.frameCount, "frame") of \(audio) is larger than memory")
        }
        try sample.validatePCMLayout()
        if analyzer?.channelCount != audio.channelCount || analyzer?.sampleRate != audio.sampleRate {
            analyzer = MeterAnalyzer(
                configuration: meter.configuration, channelCount: audio.channelCount, sampleRate: audio.sampleRate)
            meter.reset(channelCount: audio.channelCount)
        }
        let start = min(max(0, sample.trimAtStart), sample.frameCount)
        let end = max(start, sample.frameCount - max(0, sample.trimAtEnd))
        if start < end {
            analyzer?.analyze(sample, pcm: pcm, frames: start..<end)
            if let analyzer { meter.publish(analyzer) }
        }
        try emit(sample)
    }

    /// Closes the last, short block and publishes the final readings. Emits nothing.
    public mutating func finish(into emit: (MediaSample) throws -> Void) throws {
        analyzer?.flush()
        if let analyzer { meter.publish(analyzer) }
    }
}
