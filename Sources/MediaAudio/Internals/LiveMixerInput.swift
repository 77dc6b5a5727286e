import MediaCore
import Synchronization

/// One input of a live ``AudioMixer``: a thread of its own reads its source through its stages and
/// queues the float32 frames it gets, each chunk placed on the mix's timeline by its presentation time
/// on the shared clock; the mixer takes what covers each buffer when the buffer is due. So a late or
/// stalled input never holds the others: what has not arrived by then is mixed as silence and counted
/// (``AudioMixer/Controls/lateFrames``), and what arrives after its buffer went out is dropped and
/// counted (``AudioMixer/Controls/droppedFrames``).
final class LiveMixerInput {
    /// Frames the reader thread has queued, by their first frame on the mix's timeline.
    final class Queue: Sendable {
        struct Chunk: Sendable {
            var start: Int64
            var values: [Float]
        }

        struct State: Sendable {
            var chunks: [Chunk] = []  // a few dozen at most: an array's removeFirst is cheap enough
            var queuedFrames = 0
            var hasEnded = false
            /// The first frame that arrived, on the mix's timeline: before it, its silence is not late.
            var firstFrame: Int64?
            var error: String?
        }

        let state = Locked(State())
        let stop = Atomic<Bool>(false)
    }

    let controls: AudioMixer.Controls
    /// Where its contribution is metered, if its controls have a meter.
    var metering: MixerMetering?
    let name: String
    private let queue = Queue()
    private let channels: Int
    private let rampFrames: Int
    private var gain: LinearRamp
    private var balance: LinearRamp
    private var isRemoved = false
    private var isFinished = false

    /// Starts the reader thread of `input`.
    init(_ input: sending AudioMixer.Payload, controls: AudioMixer.Controls, mixer: AudioMixer) throws(MediaError) {
        self.controls = controls
        channels = mixer.channels
        rampFrames = LinearRamp.frames(mixer.rampDuration, sampleRate: mixer.sampleRate)
        gain = LinearRamp(controls.isMuted ? 0 : controls.gain.value)
        balance = LinearRamp(controls.pan.value)
        let source = CheckedSource(input.source)
        name = source.name
        let reader = LiveReader(
            source: source, stages: MediaBin("\(source.name) (mixer input)", stages: input.stages), queue: queue,
            sampleRate: mixer.sampleRate, channels: mixer.channels, limit: mixer.sampleRate * 2,
            controls: controls)
        try StageThread.detach { reader.run() }
    }

    deinit { queue.stop.store(true, ordering: .relaxed) }

    /// Whether it has nothing more to give: its source ended (or failed) and its frames were mixed, or
    /// it was removed.
    var isDone: Bool { isFinished || isRemoved }

    /// Why its source stopped early, if it failed.
    var error: String? { queue.state.withLock { $0.error } }

    /// Whether its frames up to `end` (exclusive) have arrived, or it has ended: the mixer need not
    /// wait for it.
    func covers(until end: Int64) -> Bool {
        let channels = channels
        return queue.state.withLock { state -> Bool in
            if state.hasEnded { return true }
            guard let last = state.chunks.last else { return false }
            let lastEnd: Int64 = last.start + Int64(last.values.count / channels)
            return lastEnd >= end
        }
    }

    /// Adds its frames in `[start, start + frames)` × the gain and balance into `sums`; counts the frames
    /// of that span that have not arrived as late, and drops (and counts) what arrived too late.
    func mix(into sums: inout [Double], start: Int64, frames: Int) {
        let removing = controls.isRemoved
        gain.retarget(controls.isMuted || removing ? 0 : controls.gain.value, over: rampFrames)
        balance.retarget(controls.pan.value, over: rampFrames)
        let end = start + Int64(frames)
        var levels = [Double](repeating: 0, count: frames)
        var pans = [Double](repeating: 0, count: frames)
        for frame in 0..<frames {
            levels[frame] = gain.next()
            pans[frame] = balance.next()
        }
        let channels = channels
        var covered = 0
        var dropped = 0
        let ended = queue.state.withLock { state -> (Bool, Int64?) in
            while let chunk = state.chunks.first, chunk.start < end {
                let chunkFrames = chunk.values.count / channels
                let chunkEnd = chunk.start + Int64(chunkFrames)
                // Frames before `start` came after their buffer had gone out.
                let late: Int64 = min(chunkEnd, start) - chunk.start
                if late > 0 { dropped += Int(late) }
                let from = max(chunk.start, start)
                let to = min(chunkEnd, end)
                if from < to {
                    for frame in from..<to {
                        let out = Int(frame - start)
                        Self.add(
                            chunk.values, at: Int(frame - chunk.start) * channels, level: levels[out], pan: pans[out],
                            into: &sums, at: out * channels, channels: channels)
                    }
                    covered += Int(to - from)
                }
                guard chunkEnd > end else {
                    state.queuedFrames -= chunkFrames
                    state.chunks.removeFirst()
                    continue
                }
                // Keep what belongs to the next buffers.
                state.chunks[0] = Queue.Chunk(
                    start: end, values: Array(chunk.values[(Int(end - chunk.start) * channels)...]))
                state.queuedFrames -= Int(end - chunk.start)
                break
            }
            return (state.hasEnded && state.chunks.isEmpty, state.firstFrame)
        }
        // Late: the frames from its first on that had not arrived (none before its first frame).
        if !ended.0, let first = ended.1 {
            let expected = end - max(start, first)
            if expected > covered { controls.countLate(Int(expected) - covered) }
        }
        if dropped > 0 { controls.countDropped(dropped) }
        if ended.0 { isFinished = true }
        if removing && gain.isSteady {
            isRemoved = true
            queue.stop.store(true, ordering: .relaxed)
        }
    }

    @inline(__always)
    private static func add(
        _ values: [Float], at index: Int, level: Double, pan: Double, into sums: inout [Double], at out: Int,
        channels: Int
    ) {
        if channels == 2 {
            sums[out] += level * (pan > 0 ? 1 - pan : 1) * Double(values[index])
            sums[out + 1] += level * (pan < 0 ? 1 + pan : 1) * Double(values[index + 1])
        } else {
            for channel in 0..<channels { sums[out + channel] += level * Double(values[index + channel]) }
        }
    }
}

@available(*, unavailable) extension LiveMixerInput: Sendable {}

/// The reader thread's side of a ``LiveMixerInput``: reads, converts to interleaved float32, stamps
/// each chunk with its first frame on the mix's timeline, and queues it (at most `limit` frames: the
/// oldest go first, counted as dropped).
private final class LiveReader {
    private let source: CheckedSource
    private let stages: MediaBin
    private let queue: LiveMixerInput.Queue
    private let sampleRate: Int
    private let channels: Int
    private let limit: Int
    private let controls: AudioMixer.Controls
    /// Where the next chunk goes when a sample has no presentation time: right after the last.
    private var next: Int64?

    init(
        source: CheckedSource, stages: MediaBin, queue: LiveMixerInput.Queue, sampleRate: Int, channels: Int,
        limit: Int, controls: AudioMixer.Controls
    ) {
        self.source = source
        self.stages = stages
        self.queue = queue
        self.sampleRate = sampleRate
        self.channels = channels
        self.limit = limit
        self.controls = controls
    }

    func run() {
        var failure: String?
        do {
            while !queue.stop.load(ordering: .relaxed) {
                guard let sample = try source.next() else {
                    try stages.finish { try enqueue($0) }
                    break
                }
                try stages.process(sample) { try enqueue($0) }
            }
        } catch {
            failure = "\(error)"
        }
        queue.state.withLock { state in
            state.hasEnded = true
            state.error = failure
        }
    }

    private func enqueue(_ sample: MediaSample) throws {
        var values: [Float] = []
        let frames = try MixerPCM.append(
            sample, to: &values, sampleRate: sampleRate, channels: channels, input: source.name)
        guard frames > 0 else { return }
        let time = sample.timing.presentationTime
        let trim = MediaTime(value: Int64(sample.trimAtStart), timescale: Int32(clamping: sampleRate))
        let scale = Int32(clamping: sampleRate)
        var start: Int64 = next ?? 0
        if time.isNumeric { start = (time + trim).converted(to: scale, rounding: .toNearestOrAwayFromZero).value }
        next = start + Int64(frames)
        var dropped = 0
        queue.state.withLock { state in
            state.chunks.append(.init(start: start, values: values))
            state.queuedFrames += frames
            if state.firstFrame == nil { state.firstFrame = start }
            while state.queuedFrames > limit, !state.chunks.isEmpty {
                let oldest = state.chunks.removeFirst()
                let count = oldest.values.count / channels
                state.queuedFrames -= count
                dropped += count
            }
        }
        if dropped > 0 { controls.countDropped(dropped) }
    }
}
