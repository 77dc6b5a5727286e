public import Logging
import MediaCore
import Synchronization

/// Several float32 PCM sources mixed into one: `AVAudioMixerNode`, GStreamer's `audiomixer`, `sox -m`.
/// A mixer is a ``/MediaCore/MediaSource``: it ends a pipeline's or a graph branch's reading side, and
/// its output goes through stages (an encoder) into sinks like any source's.
///
/// ```swift
/// // Each input to float32 at 48 kHz stereo (MediaFFmpeg's converter), then mixed.
/// let toMix = { try AudioConverter(format: .f32, sampleRate: 48_000, channelLayout: .default(channelCount: 2)) }
/// let music = AudioMixer.Input(source: try WAVReader(path: "music.wav"), stages: [try toMix()], gain: 0.5)
/// let voice = AudioMixer.Input(source: try WAVReader(path: "voice.wav"), stages: [try toMix()], offset: .seconds(2))
/// let mixer = try AudioMixer(sampleRate: 48_000, channels: 2, inputs: [music, voice])
/// var pipeline = Pipeline(source: mixer, stages: [try AACEncoder()], sink: ADTSMuxer(output: try FileOutput(path: "mix.aac")))
/// try pipeline.run()
/// // meanwhile, from any thread: voice.controls.gain.value = 0.8 (ramped over 10 ms)
/// ```
///
/// - Inputs: each a source of float32 PCM (`f32` or `f32p`) at the mix's sample rate and channel
///   count, read through its own `stages` first: put MediaFFmpeg's `AudioConverter` there for any
///   other rate, layout or sample type. Anything else is refused with
///   ``/MediaCore/MediaError/Code/formatMismatch`` naming the input. An input's trims (an encoder's
///   priming) are honoured; its timestamps are not read: its frames follow each other from its start.
/// - Mix: each output value is Σ gainᵢ × xᵢ over the inputs playing, summed in double precision and
///   stored as float32: what `sox -m -v G1 a.wav -v G2 b.wav` computes. Without a ``Limiter``, nothing
///   limits the sum: values beyond ±1 are kept (float32 holds them) and counted in ``clippedValues``;
///   lower the gains, or give the mixer a ``Limiter`` (a brick wall at its ceiling, frames it lowered
///   counted in ``limitedFrames``), to prevent it.
/// - Levels: an input given a ``/MediaAudio/LevelMeter`` (`Input(…, meter:)`) is metered as it goes
///   into the mix, after its gain, balance and mute; the mixer's own `meter` measures the mix after
///   the limiter. Both are the library's one meter (``LevelMeter``), read from any thread.
/// - Time: input *i* starts at its `offset` on the mix's timeline (rounded to the frame), silence
///   before it; the mix ends when its last input ends. Output buffers hold ``framesPerBuffer`` frames
///   (the last one fewer), interleaved `f32`, stamped from frame 0 at the mix's rate.
/// - Live inputs (``Live``: a capture, a stream, anything stamped on a shared ``/MediaCore/MediaClock``):
///   each input is read by a thread of its own, and its frames are placed on the mix's timeline by
///   their presentation times on the clock (GStreamer's aggregator). A buffer goes out once every
///   input that has started has delivered its frames, or at the latest `latency` after the buffer's
///   end on the clock: an input that is late by more is mixed as silence for that buffer and counted
///   (``Controls/lateFrames``), and never holds the others; what it delivers afterwards for that time
///   is dropped and counted (``Controls/droppedFrames``). An input that ends leaves the mix; the mix
///   ends when the last one has.
/// - Changes while it runs, from any thread (``Controls``): gain (linear, 0…16), balance (stereo mixes,
///   ``PanStage``'s law: 0 leaves the input as it is) and mute, read once per output buffer and
///   ramped over ``rampDuration``, so no change clicks. ``add(_:)`` adds an input that starts at the
///   next buffer (plus its offset); ``Controls/remove()`` takes one out at the next buffer.
public final class AudioMixer: MediaSource, DiagnosticReporting {
    /// The `Sendable` controls of one input, set from any thread while the mixer runs.
    public final class Controls: Sendable {
        /// The input's linear gain, 0…16 (1: unity; 0.5: −6.02 dB).
        public let gain: AudioParameter
        /// The input's balance in a stereo mix, as ``PanStage``'s law: −1 keeps only its left channel,
        /// 0 leaves both as they are, +1 keeps only its right. Ignored in a mix of other channel counts.
        public let pan: AudioParameter
        private let muted = Atomic<Bool>(false)
        private let removed = Atomic<Bool>(false)
        private let late = Atomic<Int>(0)
        private let dropped = Atomic<Int>(0)
        /// The meter of what the input adds to the mix (after its gain, balance, mute and their
        /// ramps), if it was given one: call its `updateMeters()` and read it from any thread.
        public let meter: LevelMeter?

        init(gain: Double, pan: Double, meter: LevelMeter?) {
            self.gain = AudioParameter(gain, range: 0...16)
            self.pan = AudioParameter.pan(pan)
            self.meter = meter
        }

        /// Whether the input is muted (its gain ramps to 0, and back when unmuted).
        public var isMuted: Bool {
            get { muted.load(ordering: .relaxed) }
            set { muted.store(newValue, ordering: .relaxed) }
        }

        /// Takes the input out of the mix at the next buffer (after a ramp down, in that buffer).
        public func remove() { removed.store(true, ordering: .relaxed) }

        /// Whether ``remove()`` was called.
        public var isRemoved: Bool { removed.load(ordering: .relaxed) }

        /// In a live mix: frames of this input that had not arrived when their buffer was due, mixed as
        /// silence (counted from its first frame on).
        public var lateFrames: Int { late.load(ordering: .relaxed) }

        /// In a live mix: frames of this input that arrived after their buffer had gone out, or that
        /// overflowed its 2 s queue, and were dropped.
        public var droppedFrames: Int { dropped.load(ordering: .relaxed) }

        func countLate(_ frames: Int) { late.add(frames, ordering: .relaxed) }
        func countDropped(_ frames: Int) { dropped.add(frames, ordering: .relaxed) }
    }

    /// One input: a source, the stages its samples go through first, where it starts, and its controls.
    /// `Sendable`: its source and stages travel inside, to whichever thread reads them (the mixer's, or
    /// a live input's own), and can be read by one mixer only.
    public struct Input: Sendable {
        /// The source and stages, taken once by the mixer that reads them.
        let chain: InputChain
        /// Where it starts on the mix's timeline (from the next buffer, for an input added while running;
        /// a live input is placed by its samples' times on the clock instead).
        public var offset: MediaTime
        /// Its gain, balance and mute, and its counts.
        public let controls: Controls

        /// An input of `source` through `stages`, starting at `offset`, at linear `gain` and balance `pan`;
        /// `meter`, if given, measures what it adds to the mix.
        public init(
            source: sending any MediaSource, stages: sending [any MediaStage] = [], offset: MediaTime = .zero,
            gain: Double = 1, pan: Double = 0, meter: LevelMeter? = nil
        ) {
            chain = InputChain(source: source, stages: stages)
            self.offset = offset
            controls = Controls(gain: gain, pan: pan, meter: meter)
        }
    }

    /// What an input reads: its source and its stages.
    typealias Payload = InputChain.Parts

    /// How a live mix keeps time: the clock its inputs' samples are stamped on (a capture's, a
    /// ``/MediaCore/RealTimeSource``'s), and how long a buffer waits for an input that is late.
    public struct Live: Sendable {
        /// The shared clock: input frames are placed on the mix's timeline by their presentation time on it.
        public var clock: MediaClock
        /// How long after its end a buffer waits for late inputs (GStreamer's aggregator latency).
        public var latency: MediaTime

        /// Live timing on `clock`, waiting at most `latency` (default 100 ms) for a late input.
        public init(clock: MediaClock, latency: MediaTime = MediaTime(value: 1, timescale: 10)) {
            self.clock = clock
            self.latency = latency
        }
    }

    /// The mix's sample rate.
    public let sampleRate: Int
    /// The mix's channel count.
    public let channels: Int
    /// The frames in each output buffer (the last one may hold fewer).
    public let framesPerBuffer: Int
    /// How long a change of gain, pan or mute takes.
    public let rampDuration: Duration
    /// `AudioMixer`.
    public var name: String { "AudioMixer" }
    /// Live timing, for inputs that are live (a capture, a stream); `nil` for files and generators,
    /// which are mixed sample-exactly as fast as they are read.
    public let live: Live?
    private let format: AudioFormat
    private var inputs: [MixerInput] = []
    private var liveInputs: [LiveMixerInput] = []
    private let pending = Locked<[Input]>([])
    /// Output frames produced so far: the next buffer's first frame.
    private(set) var position: Int64 = 0
    private var sums: [Double] = []
    /// The output buffers, reused once the consumer has let go of the last one.
    private var output = SampleRecycler()
    /// Output values beyond ±1 so far.
    public private(set) var clippedValues = 0
    /// Where warnings go: a live input late for the first time, a live input that failed and left the
    /// mix, the totals of late and dropped frames at the end, values beyond ±1 at the end. A graph or
    /// pipeline sets it to the run's logger, so the run's progress counts them.
    public var logger: Logger?
    /// The live inputs already warned about being late.
    private var reportedLate: Set<ObjectIdentifier> = []
    /// Whether the end-of-mix totals were reported.
    private var reportedEnd = false
    /// Output frames the ``Limiter`` lowered so far (0 without one).
    public private(set) var limitedFrames = 0
    /// The limiter, if any.
    public let limiter: Limiter?
    /// The meter of the mix (after the limiter), if any.
    public let meter: LevelMeter?
    private var peakLimiter: PeakLimiter?
    private var mixMeter: LevelMeterStage?

    /// A mixer of `inputs` at `sampleRate` Hz and `channels` channels, in buffers of `framesPerBuffer`
    /// frames, limited by `limiter` (none: values beyond ±1 are kept and counted) and metered by `meter`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a rate, channel count or buffer
    ///   size below 1, an offset that is not a finite time of 0 or more, or a limiter out of its range.
    public init(
        sampleRate: Int, channels: Int, framesPerBuffer: Int = 1024, rampDuration: Duration = .milliseconds(10),
        live: Live? = nil, limiter: Limiter? = nil, meter: LevelMeter? = nil, inputs: [Input] = []
    ) throws(MediaError) {
        guard sampleRate >= 1, channels >= 1, framesPerBuffer >= 1 else {
            throw MediaError(
                .invalidArgument,
                "a mix needs a sample rate, a channel count and a buffer size of at least 1, not \(sampleRate) Hz, \(count: channels, "channel") and \(count: framesPerBuffer, "frame")"
            )
        }
        self.sampleRate = sampleRate
        self.channels = channels
        self.framesPerBuffer = framesPerBuffer
        self.rampDuration = rampDuration
        self.live = live
        self.limiter = try limiter?.validated()
        self.meter = meter
        peakLimiter = limiter.map { PeakLimiter($0, sampleRate: sampleRate) }
        mixMeter = meter?.stage
        format = .pcm(PCMFormat(.f32), sampleRate: sampleRate, channels: channels)
        sums = Array(repeating: 0, count: framesPerBuffer * channels)
        for input in inputs { try adopt(input, at: 0) }
    }

    /// The inputs still in the mix.
    public var inputCount: Int { inputs.count + liveInputs.count }

    /// Adds `input` from any thread: it joins at the mixer's next buffer, its `offset` counted from there.
    public func add(_ input: Input) {
        pending.withLock { $0.append(input) }
    }

    /// The next buffer of the mix, or `nil` once every input has ended.
    ///
    /// - Throws: an input's error, or its stages', stamped with its name; ``/MediaCore/MediaError/Code/formatMismatch``
    ///   for an input that is not float32 PCM at the mix's rate and channel count.
    public func next() throws -> MediaSample? {
        try adoptPending()
        if let live { return try nextLive(live) }
        let frames = framesPerBuffer
        var length = 0
        for input in inputs {
            let lead = input.start > position ? Int(min(input.start - position, Int64(frames))) : 0
            guard lead < frames else {
                length = frames  // silence until a later input starts
                continue
            }
            try input.fill(frames - lead)
            length = max(length, lead + min(frames - lead, input.bufferedFrames))
        }
        guard length > 0 else {
            reportEnd()
            return nil
        }
        sums.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        for input in inputs {
            let lead = input.start > position ? Int(min(input.start - position, Int64(frames))) : 0
            guard lead < length else { continue }
            let frames = min(length - lead, input.bufferedFrames)
            if let metering = input.metering {
                metering.clear(frames: length)
                input.mix(into: &metering.values, from: lead, frames: frames)
                try metering.addAndMeter(into: &sums, frames: length)
            } else {
                input.mix(into: &sums, from: lead, frames: frames)
            }
        }
        inputs.removeAll { $0.isDone }
        return try output(frames: length)
    }

    /// The next buffer of a live mix: once every input that has started has its frames for it, or
    /// the buffer's end plus the latency has passed on the clock; `nil` once every input has ended.
    private func nextLive(_ live: Live) throws -> MediaSample? {
        guard !liveInputs.isEmpty else {
            reportEnd()
            return nil
        }
        let frames = framesPerBuffer
        let end = position + Int64(frames)
        let endTime = MediaTime(value: end, timescale: Int32(clamping: sampleRate))
        let due: MediaTime = endTime + live.latency
        let pause = MediaTime(value: 1, timescale: 1000)
        // The frames of a live input exist once the clock has passed them: never go out before that.
        live.clock.sleep(until: endTime)
        while live.clock.now < due {
            if liveInputs.allSatisfy({ $0.covers(until: end) }) { break }
            let soon: MediaTime = live.clock.now + pause
            live.clock.sleep(until: soon < due ? soon : due)
        }
        for index in 0..<(frames * channels) { sums[index] = 0 }
        for input in liveInputs {
            if let metering = input.metering {
                metering.clear(frames: frames)
                input.mix(into: &metering.values, start: position, frames: frames)
                try metering.addAndMeter(into: &sums, frames: frames)
            } else {
                input.mix(into: &sums, start: position, frames: frames)
            }
        }
        for input in liveInputs {
            if input.controls.lateFrames > 0, reportedLate.insert(ObjectIdentifier(input)).inserted {
                warn(
                    "\(input.name) was late: its frames not there \(live.latency) after their time are mixed as silence",
                    code: "mixerInputLate", input: input.name)
            }
            if input.isDone, let error = input.error {
                warn("\(input.name) failed and left the mix: \(error)", code: "mixerInputFailed", input: input.name)
            }
            if input.isDone { ended.append((input.name, input.controls)) }
        }
        liveInputs.removeAll { $0.isDone }
        return try output(frames: frames)
    }

    /// The first `length` frames of the sums, limited, as an output sample (metered), counting values
    /// beyond ±1.
    private func output(frames length: Int) throws -> MediaSample {
        if var limiter = peakLimiter {
            limitedFrames += limiter.apply(to: &sums, frames: length, channels: channels)
            peakLimiter = limiter
        }
        var clipped = 0
        let count = length * channels
        // Into the recycled sample: no allocation once the consumer has let go of the previous buffer.
        let sample = output.make(
            format: .audio(format), timing: .audio(startFrame: position, frameCount: length, sampleRate: sampleRate),
            frameCount: length
        ) { bytes in
            bytes.append(contentsOf: repeatElement(0, count: count * 4))
            bytes.withUnsafeMutableBytes { raw in
                sums.withUnsafeBufferPointer { sums in
                    for index in 0..<count {
                        let value = Float(sums[index])
                        if abs(value) > 1 { clipped += 1 }
                        raw.storeFloat32(value, at: index)
                    }
                }
            }
        }
        clippedValues += clipped
        if var stage = mixMeter {
            try stage.process(sample) { _ in }
            mixMeter = stage
        }
        position += Int64(length)
        return sample
    }

    /// The frames `duration` lasts at the mix's rate, rounded.
    func frames(_ duration: MediaTime) throws(MediaError) -> Int64 {
        let frames = duration.converted(to: Int32(clamping: sampleRate), rounding: .toNearestOrAwayFromZero)
        guard frames.isNumeric, frames.value >= 0 else {
            throw MediaError(.invalidArgument, "an input's offset must be a finite time of 0 or more, not \(duration)")
        }
        return frames.value
    }

    /// Live inputs that have left, for the end-of-mix totals.
    private var ended: [(name: String, controls: Controls)] = []

    /// Once, at the end of the mix: the totals of late and dropped frames, and of values beyond ±1.
    private func reportEnd() {
        guard !reportedEnd else { return }
        reportedEnd = true
        for (name, controls) in ended + liveInputs.map({ ($0.name, $0.controls) })
        where controls.lateFrames > 0 || controls.droppedFrames > 0 {
            warn(
                "\(name): \(count: controls.lateFrames, "frame") late (mixed as silence), \(count: controls.droppedFrames, "frame") dropped",
                code: "mixerInputLate", input: name)
        }
        if clippedValues > 0 {
            MediaDiagnostic(
                .warning,
                "the mix had \(count: clippedValues, "value") beyond full scale (lower the gains, or use a Limiter)",
                metadata: [DiagnosticKey.stage: name, DiagnosticKey.code: "mixerClipped"]
            ).log(to: logger)
        }
    }

    private func warn(_ message: String, code: String, input: String) {
        MediaDiagnostic(
            .warning, "AudioMixer: \(message)", metadata: [DiagnosticKey.stage: input, DiagnosticKey.code: code]
        ).log(to: logger)
    }

    private func adoptPending() throws {
        let added = pending.withLock { list in
            defer { list = [] }
            return list
        }
        for input in added { try adopt(input, at: position) }
    }

    private func adopt(_ input: Input, at start: Int64) throws(MediaError) {
        let payload = try input.chain.take(by: "AudioMixer")
        if live != nil {
            let added = try LiveMixerInput(payload, controls: input.controls, mixer: self)
            added.metering = metering(input.controls.meter)
            liveInputs.append(added)
        } else {
            let offset = try frames(input.offset)
            let added = MixerInput(payload, controls: input.controls, start: start + offset, mixer: self)
            added.metering = metering(input.controls.meter)
            inputs.append(added)
        }
    }

    private func metering(_ meter: LevelMeter?) -> MixerMetering? {
        meter.map {
            MixerMetering(meter: $0, sampleRate: sampleRate, channels: channels, framesPerBuffer: framesPerBuffer)
        }
    }
}

@available(*, unavailable) extension AudioMixer: Sendable {}
