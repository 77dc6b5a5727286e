/// Changes playback speed without changing pitch, on float32 PCM: `AVAudioPlayer.rate` with
/// `enableRate`, or `AVAudioUnitTimePitch.rate`, as a stage. Pure Swift WSOLA (waveform-similarity
/// overlap-add).
///
/// ```swift
/// let rate = AudioParameter.rate(1)
/// let stretch = TimeStretch(rate: rate)          // keep the reference: it maps output to input time
/// rate.value = 2                                 // from a UI thread: twice as fast, same pitch
/// let now = stretch.sourceTime(forOutputTime: playedOutputTime)   // the player's currentTime
/// ```
///
/// - Accepts: `f32` or `f32p` PCM, any channel count and rate; the first sample fixes the format.
/// - Refuses: another format, or a later sample of a different format, with
///   ``/MediaCore/MediaError/Code/formatMismatch``; short buffers with ``/MediaCore/MediaError/Code/invalidData``.
/// - Rate: 0.5…2 (``AudioParameter/rate(_:)``; values outside are clamped), read once per buffer; a
///   new rate applies to the segments made after that buffer arrives, so the input the stage held
///   then (at most the 35 ms lookahead) plays at the new rate. At exactly 1 the stage is a
///   pass-through: input samples are emitted unchanged (bit-identical; only their timing is restamped
///   when it does not already continue the output timeline).
/// - Method: Hann-windowed segments of 25 ms (``windowFrames(sampleRate:)``: 1200 frames at 48 kHz)
///   overlap-added every 12.5 ms of output (50 % overlap, ``hopFrames(sampleRate:)``); each segment's
///   start may move up to ±10 ms (``searchRadiusFrames(sampleRate:)``) from its nominal input position to the start whose waveform (channel
///   average) best continues the previous segment, by normalised cross-correlation: a coarse pass
///   every 4th lag and sample, then every lag around the best. All channels are cut at the same
///   place, so the stereo image stays. Pitch stays for periods up to 20 ms (50 Hz and up).
/// - Latency: a segment is made once the input reaches ``lookaheadFrames(sampleRate:)`` (window +
///   search radius, 35 ms) past its nominal position; the output for input position `p` therefore
///   leaves, in whole hops of 12.5 ms, once input up to `p` + 35 ms has arrived (at most 35 ms of
///   latency, at any rate). ``finish(into:)`` drains the rest.
/// - Length: input of `L` frames at a constant rate `r` gives `round(L / r)` output frames (exactly,
///   as `atempo` aims for): `finish` stretches the remaining input, with silence after it, and cuts
///   the output to length. With rate changes, each stretch of input counts at the rate it was made at.
/// - Timing: output samples are contiguous and counted in output frames: the first starts at the
///   first input sample's presentation time (0 when it has none), each next one where the previous
///   ended. ``sourceFrame(forOutputFrame:)`` and ``sourceTime(forOutputTime:)`` say which input
///   position an output frame plays, for a player's `currentTime`.
/// - Trims: decoders hand on PCM without any; a sample's `trimAtStart`/`trimAtEnd` are not applied
///   (every frame is stretched) and stretched output carries none (pass-through output keeps them).
/// - Deterministic: the same input and the same rate at each buffer give the same output on every
///   run; at a constant rate the output is also the same however the input is split into buffers
///   (byte-identical: segments are made as the input allows, not per buffer).
/// - Real time: buffers are preallocated from the first sample (25 ms windows plus 8192 frames of
///   input); they grow only when a larger buffer arrives, and output samples are recycled, so steady
///   state allocates nothing once the consumer lets go of each output (valgrind counts the same heap
///   allocations for 200 and 2000 buffers in a release build). Exception: a pass-through sample whose
///   timing must be restamped costs a copy of the sample's small storage object (not its bytes). No
///   locks: the rate is an atomic. A 48 kHz stereo stream takes about 1 % (rate 0.5) to 0.3 % (rate
///   2) of one core in a release build.
public final class TimeStretch: MediaStage {
    /// The control a UI sets.
    public let rate: AudioParameter
    private var engine: WSOLAEngine?
    private var format: AudioFormat?
    private var startTime = MediaTime.zero
    private var emittedFrames: Int64 = 0
    private var currentRate = 1.0
    private var recycler = SampleRecycler()

    /// A time stretcher following `rate`.
    public init(rate: AudioParameter = .rate(1)) {
        self.rate = rate
    }

    /// Segment length in frames at `sampleRate`: 25 ms, even.
    public static func windowFrames(sampleRate: Int) -> Int { 2 * hopFrames(sampleRate: sampleRate) }
    /// Output frames between segments at `sampleRate`: half a window (12.5 ms).
    public static func hopFrames(sampleRate: Int) -> Int { max(8, Int((Double(sampleRate) * 0.0125).rounded())) }
    /// How far a segment may move from its nominal position at `sampleRate`: 10 ms.
    public static func searchRadiusFrames(sampleRate: Int) -> Int {
        max(WSOLAEngine.coarseStride, Int((Double(sampleRate) * 0.010).rounded()))
    }

    /// The latency at `sampleRate`: how far past a segment's nominal position the input must reach
    /// before the segment is made (window + search radius: 35 ms, 1680 frames at 48 kHz). Output then
    /// leaves in whole hops.
    public static func lookaheadFrames(sampleRate: Int) -> Int {
        windowFrames(sampleRate: sampleRate) + searchRadiusFrames(sampleRate: sampleRate)
    }

    /// Input frames given to the stage so far.
    public var inputFramesReceived: Int64 { engine?.inputFrames ?? 0 }
    /// Output frames emitted so far.
    public var outputFramesEmitted: Int64 { emittedFrames }

    /// The input position (frames from the first input frame, fractional) that output frame `frame`
    /// (counted from the first output frame) plays, for the last 64 stretches of constant rate; the
    /// frame just after the last emitted one maps to where output continues. `nil` outside that.
    public func sourceFrame(forOutputFrame frame: Int64) -> Double? {
        engine?.map.inputPosition(forOutputFrame: frame)
    }

    /// The input presentation time that plays at output presentation time `time`, at the sample
    /// rate's timescale, rounded to the nearest frame; `nil` before any input, or as
    /// ``sourceFrame(forOutputFrame:)``.
    public func sourceTime(forOutputTime time: MediaTime) -> MediaTime? {
        guard let format, time.isNumeric else { return nil }
        let scale = Int32(clamping: format.sampleRate)
        let start = startTime.converted(to: scale)
        let frame = time.converted(to: scale, rounding: .toNearestOrAwayFromZero).value - start.value
        guard let position = sourceFrame(forOutputFrame: frame) else { return nil }
        return MediaTime(value: start.value + Int64(position.rounded()), timescale: scale)
    }

    /// Stretches one sample; emits the output it completes (none while the first window fills).
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        let input = try Float32PCM.format(of: sample, stage: name)
        let engine = try engine(for: input, sample: sample)
        currentRate = Self.clamped(rate.value)
        if engine.mode == .passThrough && currentRate == 1 {
            let timing = outputTiming(frames: sample.frameCount, format: input)
            engine.passThrough(frames: sample.frameCount)
            emittedFrames += Int64(sample.frameCount)
            guard sample.frameCount > 0 else { return }
            if sample.timing == timing {
                try emit(sample)
            } else {
                var restamped = sample
                restamped.timing = timing
                try emit(restamped)
            }
            return
        }
        if currentRate != 1 { engine.beginStretching() }
        let channels = input.channelCount
        sample.withUnsafeBytes(plane: 0) { first in
            if input.pcm?.isInterleaved ?? true {
                engine.append(frames: sample.frameCount) { frame, channel in
                    first.float32(at: frame * channels + channel)
                }
            } else {
                let planes = sample.planes
                engine.append(frames: sample.frameCount) { frame, channel in
                    planes[channel].withUnsafeBytes { $0.float32(at: frame) }
                }
            }
        }
        engine.run(rate: currentRate)
        try emitStaged(engine, format: input, into: emit)
        engine.compact()
    }

    /// Stretches what the input still owes (with silence after it) and emits it, so that the output
    /// lasts the input's length divided by the rate.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        guard let engine, let format else { return }
        engine.drain(rate: currentRate)
        try emitStaged(engine, format: format, into: emit)
        recycler.removeAll()
    }

    private func engine(for input: AudioFormat, sample: MediaSample) throws(MediaError) -> WSOLAEngine {
        if let engine, let format {
            guard input == format else {
                throw MediaError.formatMismatch(
                    stage: name, expected: "\(format) (the first sample's format)", actual: sample.format)
            }
            return engine
        }
        let made = WSOLAEngine(channels: input.channelCount, sampleRate: input.sampleRate)
        engine = made
        format = input
        let pts = sample.timing.presentationTime
        startTime = pts.isNumeric ? pts.converted(to: Int32(clamping: input.sampleRate)) : .zero
        return made
    }

    private func emitStaged(_ engine: WSOLAEngine, format: AudioFormat, into emit: (MediaSample) throws -> Void) throws
    {
        let frames = engine.stagedFrames
        guard frames > 0 else { return }
        let channels = format.channelCount
        let interleaved = format.pcm?.isInterleaved ?? true
        let staging = engine.staging
        let output = recycler.make(
            format: .audio(format), timing: outputTiming(frames: frames, format: format), frameCount: frames,
            planeCount: format.planeCount
        ) { plane, bytes in
            // Byte by byte, little-endian: appending a generic sequence of zeros first allocates per
            // element in unoptimised builds.
            let values = interleaved ? frames * channels : frames
            for i in 0..<values {
                let bits = (interleaved ? staging[i] : staging[i * channels + plane]).bitPattern
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
                bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
                bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
            }
        }
        engine.clearStaging()
        emittedFrames += Int64(frames)
        try emit(output)
    }

    private func outputTiming(frames: Int, format: AudioFormat) -> SampleTiming {
        let scale = Int32(clamping: format.sampleRate)
        let pts = startTime.converted(to: scale) + MediaTime(value: emittedFrames, timescale: scale)
        return SampleTiming(
            presentationTime: pts, decodeTime: pts, duration: MediaTime(value: Int64(frames), timescale: scale))
    }

    private static func clamped(_ value: Double) -> Double { value.isNaN ? 1 : min(max(value, 0.5), 2) }
}

@available(*, unavailable) extension TimeStretch: Sendable {}
