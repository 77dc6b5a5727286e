#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Per-channel peak and average power of PCM audio in dBFS, read the way `AVAudioRecorder` and
/// `AVAudioPlayer` meters are read: ``updateMeters()``, then ``averagePower(forChannel:)`` and
/// ``peakPower(forChannel:)``; plus AudioQueue's linear ``LevelMeterState``.
///
/// ```swift
/// let meter = try LevelMeter()
/// graph.addBranch(source: microphone, stages: [meter.stage, try AACEncoder(bitRate: 128_000)])
/// // on the UI thread, every 100 ms:
/// meter.updateMeters()
/// let left = meter.averagePower(forChannel: 0)   // −160...0 dBFS
/// ```
///
/// **Feeding it.** ``stage`` is a pass-through ``/MediaCore/MediaStage`` (``LevelMeterStage``) that meters every
/// sample and emits it unchanged. It takes linear PCM of any ``/MediaCore/PCMSampleType``, interleaved or planar,
/// up to 1 024 channels at up to 4 MHz; anything else but PCM throws ``/MediaCore/MediaError/Code/formatMismatch``,
/// and a PCM sample whose buffers are shorter than its frame count says throws
/// ``/MediaCore/MediaError/Code/invalidData`` (``LevelMeterStage`` lists every refusal). NaN and infinite float
/// values count as 0, so that one bad value cannot stick to a reading. A new
/// channel count or sample rate mid-stream resets the meter: the old readings are dropped, nothing is
/// held over. Frames cut by ``/MediaCore/MediaSample/trimAtStart`` and ``/MediaCore/MediaSample/trimAtEnd`` are not metered.
///
/// **Readings** (``Configuration`` gives the numbers; the defaults are in brackets):
/// - 0 dBFS is full scale: 1.0 for float samples, the integer type's magnitude for integers (32 768
///   for s16), so a full-scale square wave reads 0 dB and a full-scale sine 0 dB peak, −3.01 dB average.
///   Float input may read above 0 dB. Readings are floored at −160 dB (silence), as Apple's are.
/// - Readings advance once per block [10 ms] of audio, counted in frames from the first sample (or the
///   last reset); the block being filled does not count until it is complete (the stage's `finish`
///   closes a last short block).
/// - Average: the RMS of every sample of the last `round(window / block)` blocks [300 ms], computed
///   exactly (per-block sums of squares, added over the window), as `20 × log10(RMS)`.
/// - Peak: the largest `|sample|` of each block. A block peak at or above the current reading becomes
///   the reading and is held for the hold time [500 ms] from the end of its block; then the reading
///   falls at the decay rate [20 dB in 1.7 s] until a block peak reaches it again.
/// - Deterministic: the state advances by frames (media time), never by the clock, so the same audio
///   gives the same readings, bit for bit, however it is split into samples.
///
/// **Threads.** The meter is `Sendable`: the stage runs on a graph thread, and any thread reads. The
/// stage publishes its readings once per sample under a lock, copying one value per channel;
/// ``updateMeters()`` copies them for the readers under the same lock. Neither allocates in steady state
/// (only a new channel count allocates). Readings change only when ``updateMeters()`` is called.
///
/// Apple does not document its meters' windows or ballistics; <doc:Metering> says how these
/// readings compare with `AVAudioRecorder`'s.
public final class LevelMeter: Sendable {
    /// How the meter measures.
    public let configuration: Configuration
    private let readings: Locked<Readings>

    /// What the stage last published, and what readers see (the copy ``updateMeters()`` made).
    struct Readings {
        var published: [LevelMeterState] = []
        var current: [LevelMeterState] = []
    }

    /// A meter that measures as `configuration` says. Throws ``/MediaCore/MediaError/Code/invalidArgument`` when
    /// a setting is out of the range ``Configuration`` documents.
    public init(configuration: Configuration = Configuration()) throws(MediaError) {
        try configuration.validate()
        self.configuration = configuration
        readings = Locked(Readings())
    }

    /// A new pass-through stage that feeds this meter. Put one in one branch: two stages feeding one
    /// meter at once would overwrite each other's readings.
    public var stage: LevelMeterStage { LevelMeterStage(meter: self) }

    /// Makes the latest readings the ones the accessors return, as `AVAudioRecorder.updateMeters()`.
    public func updateMeters() {
        readings.withLock { readings in
            if readings.current.count == readings.published.count {
                for channel in readings.published.indices { readings.current[channel] = readings.published[channel] }
            } else {
                // A new channel count: a buffer of our own, so that the stage's next write does not copy.
                readings.current = readings.published.map { $0 }
            }
        }
    }

    /// The number of channels the readings are for (0 before any audio), as of ``updateMeters()``.
    public var channelCount: Int { readings.withLock { $0.current.count } }

    /// The RMS power of `channel` (from 0) over the averaging window in dBFS, −160...0 (above 0 only for
    /// float input past full scale), as of ``updateMeters()``. A channel that does not exist reads −160.
    public func averagePower(forChannel channel: Int) -> Float {
        Self.decibels(levelMeterState(forChannel: channel).averagePower)
    }

    /// The peak power of `channel` (from 0) in dBFS with hold and decay, −160...0 (above 0 only for
    /// float input past full scale), as of ``updateMeters()``. A channel that does not exist reads −160.
    public func peakPower(forChannel channel: Int) -> Float {
        Self.decibels(levelMeterState(forChannel: channel).peakPower)
    }

    /// The linear reading of `channel` (from 0), as of ``updateMeters()``; ``LevelMeterState/silent``
    /// for a channel that does not exist.
    public func levelMeterState(forChannel channel: Int) -> LevelMeterState {
        readings.withLock { $0.current.indices.contains(channel) ? $0.current[channel] : .silent }
    }

    /// Every channel's linear reading, as of ``updateMeters()``: what AudioQueue's
    /// `kAudioQueueProperty_CurrentLevelMeter` gives.
    public var levelMeterStates: [LevelMeterState] { readings.withLock { $0.current } }

    /// `20 × log10(linear)`, floored at −160 dB (which also covers 0).
    static func decibels(_ linear: Float) -> Float {
        guard linear > 1e-8 else { return -160 }
        return max(-160, 20 * log10(linear))
    }

    /// Replaces the published readings by `channelCount` silent ones (a new stream). Allocates the new
    /// storage outside the lock; the old one is released outside it too.
    func reset(channelCount: Int) {
        var fresh = Array(repeating: LevelMeterState.silent, count: channelCount)
        readings.withLock { swap(&$0.published, &fresh) }
    }

    /// Publishes `analyzer`'s readings (same channel count as the last ``reset(channelCount:)``).
    func publish(_ analyzer: MeterAnalyzer) {
        readings.withLock { readings in
            let count = min(readings.published.count, analyzer.levels.count)
            for channel in 0..<count { readings.published[channel] = analyzer.levels[channel] }
        }
    }
}
