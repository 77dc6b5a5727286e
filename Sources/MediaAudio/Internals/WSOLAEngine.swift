/// The waveform-similarity overlap-add (WSOLA) time stretcher behind ``TimeStretch``: interleaved float
/// input in, interleaved float output into ``staging``, every frame of output mapped in ``map``.
///
/// Method (Verhelst & Roelands 1993): output is built from Hann-windowed input segments of ``window``
/// frames, overlap-added every ``hop`` = window / 2 output frames (the periodic Hann window's halves sum
/// to one). Segment `k` should start at the nominal input position `p_k = p_0 + k × hop × rate`; among
/// the starts within ±``searchRadius`` frames of it, the one whose waveform best matches the natural
/// continuation of segment `k − 1` (its start + hop) is taken, by normalised cross-correlation of the
/// channel average over a whole window: every ``coarseStride``-th lag and sample first, then each lag
/// around the best. Because the chosen segment continues the previous one's waveform, periods are not
/// cut and pitch stays.
///
/// Rate 1 is a pass-through (the stage emits input as it is): leaving it starts segments at the pass
/// position; returning to it cross-fades the last segment into the input that follows it and then
/// passes the input on unchanged.
final class WSOLAEngine {
    enum Mode { case passThrough, stretching, leaving }

    let channels: Int
    /// Segment length in frames (25 ms, even).
    let window: Int
    /// Output frames between segments: half a window.
    let hop: Int
    /// How far (frames) a segment's start may move from its nominal position to match the waveform.
    let searchRadius: Int
    /// The coarse search's step in lags and samples.
    static let coarseStride = 4
    private let hann: [Float]

    private(set) var mode = Mode.passThrough
    /// Input received: `samples`/`mono` hold frames `base ..< base + stored` of it.
    private(set) var inputFrames: Int64 = 0
    private var samples: [Float]
    private var mono: [Float]
    private var base: Int64 = 0
    private var stored = 0
    /// Pass-through: the input position output continues from.
    private var passPosition: Int64 = 0
    /// Stretching: start of the last segment, the second half of which `accumulator` holds, windowed.
    private var previous: Int64 = 0
    private var accumulator: [Float]
    private var accumulatorPending = false
    /// Stretching: the nominal input position of the next output frame.
    private var nominal = 0.0
    /// Output not yet handed on: `stagedFrames` frames, interleaved.
    private(set) var staging: [Float]
    private(set) var stagedFrames = 0
    /// Output produced so far (handed on + staged).
    private(set) var producedFrames: Int64 = 0
    private(set) var map = TimeMap()

    init(channels: Int, sampleRate: Int) {
        self.channels = channels
        let half = max(8, Int((Double(sampleRate) * 0.0125).rounded()))
        window = 2 * half
        hop = half
        searchRadius = max(Self.coarseStride, Int((Double(sampleRate) * 0.010).rounded()))
        hann = WaveformSearch.hann(2 * half)
        let capacity = 2 * window + 2 * searchRadius + 8192
        samples = Array(repeating: 0, count: capacity * channels)
        mono = Array(repeating: 0, count: capacity)
        accumulator = Array(repeating: 0, count: half * channels)
        staging = Array(repeating: 0, count: capacity * channels)
    }

    /// Input frames needed beyond a segment's nominal position before it can be made: the latency.
    var lookahead: Int { searchRadius + window }

    // MARK: Input

    /// Rate 1 with nothing held: `frames` of input go straight to the output.
    func passThrough(frames: Int) {
        map.append(outputStart: producedFrames, inputStart: Double(passPosition), rate: 1, frames: frames)
        passPosition += Int64(frames)
        inputFrames += Int64(frames)
        base = inputFrames
        producedFrames += Int64(frames)
    }

    /// Leaves pass-through: segments start at the pass position.
    func beginStretching() {
        guard mode == .passThrough else { return }
        mode = .stretching
        accumulatorPending = true
        nominal = Double(passPosition)
        previous = passPosition - Int64(hop)
    }

    /// Appends `frames` frames whose value `(frame, channel)` is `value(frame, channel)`.
    func append(frames: Int, value: (Int, Int) -> Float) {
        reserveStore(frames)
        let c = channels
        let scale = 1 / Float(c)
        samples.withUnsafeMutableBufferPointer { s in
            mono.withUnsafeMutableBufferPointer { m in
                for frame in 0..<frames {
                    var sum: Float = 0
                    for channel in 0..<c {
                        let v = value(frame, channel)
                        s[(stored + frame) * c + channel] = v
                        sum += v
                    }
                    m[stored + frame] = sum * scale
                }
            }
        }
        stored += frames
        inputFrames += Int64(frames)
    }

    private func reserveStore(_ frames: Int) {
        let needed = stored + frames
        guard needed * channels > samples.count else { return }
        samples.append(contentsOf: repeatElement(0, count: needed * channels * 2 - samples.count))
        mono.append(contentsOf: repeatElement(0, count: needed * 2 - mono.count))
    }

    private func reserveStaging(_ frames: Int) {
        let needed = (stagedFrames + frames) * channels
        guard needed > staging.count else { return }
        staging.append(contentsOf: repeatElement(0, count: needed * 2 - staging.count))
    }

    /// Forgets the staged output (the stage has handed it on).
    func clearStaging() { stagedFrames = 0 }

    // MARK: Running

    /// Makes every segment the input allows at `rate`, and switches mode when the rate says so.
    func run(rate: Double) {
        while true {
            switch mode {
            case .passThrough:
                return
            case .stretching where rate == 1:
                if accumulatorPending {
                    accumulatorPending = false
                    flushStoreAsPassThrough()
                    mode = .passThrough
                } else {
                    mode = .leaving
                }
            case .stretching:
                guard step(rate: rate) else { return }
            case .leaving where rate != 1:
                mode = .stretching
            case .leaving:
                guard leave() else { return }
            }
        }
    }

    /// End of input: makes the output that the input still owes, with silence after the input, so
    /// that the output lasts (input left) / rate frames; then compacts nothing more.
    func drain(rate: Double) {
        run(rate: rate)
        switch mode {
        case .passThrough:
            return
        case .leaving:
            let target = producedFrames + max(0, inputFrames - (previous + Int64(hop)))
            padStore(upTo: previous + Int64(window))
            _ = leave()
            truncateProduced(to: target)
        case .stretching:
            let owed = max(0, (Double(inputFrames) - nominal) / rate)
            let target = producedFrames + Int64(owed.rounded())
            while producedFrames < target {
                if !step(rate: rate) { padStore(upTo: stepInputEnd()) }
            }
            truncateProduced(to: target)
        }
    }

    /// Drops input no later segment can use.
    func compact() {
        let keep: Int64
        switch mode {
        case .passThrough: keep = base + Int64(stored)
        case .stretching: keep = min(Int64(nominal.rounded()) - Int64(searchRadius), previous + Int64(hop))
        case .leaving: keep = previous + Int64(hop)
        }
        let drop = Int(min(max(0, keep - base), Int64(stored)))
        guard drop > 0 else { return }
        let remaining = (stored - drop) * channels
        samples.withUnsafeMutableBufferPointer { s in
            for i in 0..<remaining { s[i] = s[i + drop * channels] }
        }
        mono.withUnsafeMutableBufferPointer { m in
            for i in 0..<(stored - drop) { m[i] = m[i + drop] }
        }
        base += Int64(drop)
        stored -= drop
    }

    private func padStore(upTo end: Int64) {
        let missing = Int(max(0, end - (base + Int64(stored))))
        guard missing > 0 else { return }
        append(frames: missing) { _, _ in 0 }
        inputFrames -= Int64(missing)  // silence after the end is not input
    }

    private func truncateProduced(to target: Int64) {
        let excess = Int(max(0, min(producedFrames - target, Int64(stagedFrames))))
        stagedFrames -= excess
        producedFrames -= Int64(excess)
    }

    /// Everything stored from the pass position on goes to the output as it is.
    private func flushStoreAsPassThrough() {
        let end = base + Int64(stored)
        let frames = Int(max(0, end - passPosition))
        reserveStaging(frames)
        let from = Int(passPosition - base) * channels
        let to = stagedFrames * channels
        for i in 0..<frames * channels { staging[to + i] = samples[from + i] }
        map.append(outputStart: producedFrames, inputStart: Double(passPosition), rate: 1, frames: frames)
        stagedFrames += frames
        producedFrames += Int64(frames)
        passPosition = end
        base = end
        stored = 0
    }

    // MARK: Segments

    /// The input end (exclusive) the next segment needs.
    private func stepInputEnd() -> Int64 {
        let center = Int64(nominal.rounded())
        return max(center + Int64(searchRadius), previous + Int64(hop)) + Int64(window)
    }

    /// Makes the next segment when the input reaches far enough: `hop` frames of output.
    private func step(rate: Double) -> Bool {
        guard base + Int64(stored) >= stepInputEnd() else { return false }
        let c = channels
        let natural = Int(previous + Int64(hop) - base)
        if accumulatorPending {  // the segment before is the input itself, fading out
            accumulatorPending = false
            for m in 0..<hop {
                for channel in 0..<c {
                    accumulator[m * c + channel] = hann[hop + m] * samples[(natural + m) * c + channel]
                }
            }
        }
        let center = Int(Int64(nominal.rounded()) - base)
        let chosen = mono.withUnsafeBufferPointer { m in
            WaveformSearch.bestStart(
                in: m, natural: natural, low: max(0, center - searchRadius), high: center + searchRadius,
                preferred: center, length: window, stride: Self.coarseStride)
        }
        reserveStaging(hop)
        let out = stagedFrames * c
        for m in 0..<hop {
            for channel in 0..<c {
                let i = m * c + channel
                staging[out + i] = accumulator[i] + hann[m] * samples[(chosen + m) * c + channel]
                accumulator[i] = hann[hop + m] * samples[(chosen + hop + m) * c + channel]
            }
        }
        map.append(outputStart: producedFrames, inputStart: nominal, rate: rate, frames: hop)
        stagedFrames += hop
        producedFrames += Int64(hop)
        previous = base + Int64(chosen)
        nominal += Double(hop) * rate
        return true
    }

    /// Back to rate 1: the last segment's second half cross-fades into the input that follows it (its
    /// natural continuation), then the input passes on unchanged.
    private func leave() -> Bool {
        guard base + Int64(stored) >= previous + Int64(window) else { return false }
        let c = channels
        let start = Int(previous + Int64(hop) - base)
        reserveStaging(hop)
        let out = stagedFrames * c
        for m in 0..<hop {
            for channel in 0..<c {
                let i = m * c + channel
                staging[out + i] = accumulator[i] + hann[m] * samples[(start + m) * c + channel]
            }
        }
        map.append(outputStart: producedFrames, inputStart: Double(previous + Int64(hop)), rate: 1, frames: hop)
        stagedFrames += hop
        producedFrames += Int64(hop)
        passPosition = previous + Int64(window)
        flushStoreAsPassThrough()
        mode = .passThrough
        return true
    }
}
