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
    /// Input frames received (not counting the silence `drain` adds).
    private(set) var inputFrames: Int64 = 0
    /// The input later segments may still use.
    private var input: StretchInput
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
        let half = TimeStretch.hopFrames(sampleRate: sampleRate)
        window = 2 * half
        hop = half
        searchRadius = TimeStretch.searchRadiusFrames(sampleRate: sampleRate)
        hann = WaveformSearch.hann(2 * half)
        let capacity = 2 * window + 2 * searchRadius + 8192
        input = StretchInput(channels: channels, capacity: capacity)
        accumulator = Array(repeating: 0, count: half * channels)
        staging = Array(repeating: 0, count: capacity * channels)
    }

    // MARK: Input

    /// Rate 1 with nothing held: `frames` of input go straight to the output.
    func passThrough(frames: Int) {
        map.append(outputStart: producedFrames, inputStart: Double(passPosition), rate: 1, frames: frames)
        passPosition += Int64(frames)
        inputFrames += Int64(frames)
        input.removeAll(continuingAt: inputFrames)
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
        input.append(frames: frames, value: value)
        inputFrames += Int64(frames)
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
                    flushInputAsPassThrough()
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

    /// End of input: makes the output the input still owes, with silence after the input where a
    /// segment needs it, and cuts it so that the rest of the input lasts (frames left) / rate frames
    /// (at rate 1 after a stretch: exactly the frames left).
    func drain(rate: Double) {
        run(rate: rate)
        switch mode {
        case .passThrough:
            return
        case .leaving:
            let target = producedFrames + max(0, inputFrames - (previous + Int64(hop)))
            padInput(upTo: previous + Int64(window))
            _ = leave()
            truncateProduced(to: target)
        case .stretching:
            let owed = max(0, (Double(inputFrames) - nominal) / rate)
            let target = producedFrames + Int64(owed.rounded())
            while producedFrames < target {
                padInput(upTo: stepInputEnd())
                guard step(rate: rate) else { break }  // cannot fail once padded; never loop on it
            }
            truncateProduced(to: target)
        }
    }

    /// Drops input no later segment can use.
    func compact() {
        switch mode {
        case .passThrough: input.drop(before: input.end)
        case .stretching: input.drop(before: min(Int64(nominal.rounded()) - Int64(searchRadius), previous + Int64(hop)))
        case .leaving: input.drop(before: previous + Int64(hop))
        }
    }

    /// Silence after the input, up to stream position `end`.
    private func padInput(upTo end: Int64) {
        let missing = Int(max(0, end - input.end))
        guard missing > 0 else { return }
        input.append(frames: missing) { _, _ in 0 }
    }

    private func truncateProduced(to target: Int64) {
        let excess = Int(max(0, min(producedFrames - target, Int64(stagedFrames))))
        stagedFrames -= excess
        producedFrames -= Int64(excess)
        map.truncate(atOutputFrame: producedFrames)
    }

    /// Everything held from the pass position on goes to the output as it is.
    private func flushInputAsPassThrough() {
        let end = input.end
        let frames = Int(max(0, end - passPosition))
        reserveStaging(frames)
        let from = input.index(passPosition) * channels
        let to = stagedFrames * channels
        for i in 0..<frames * channels { staging[to + i] = input.samples[from + i] }
        map.append(outputStart: producedFrames, inputStart: Double(passPosition), rate: 1, frames: frames)
        stagedFrames += frames
        producedFrames += Int64(frames)
        passPosition = end
        input.removeAll(continuingAt: end)
    }

    // MARK: Segments

    /// The input end (exclusive) the next segment needs.
    private func stepInputEnd() -> Int64 {
        let center = Int64(nominal.rounded())
        return max(center + Int64(searchRadius), previous + Int64(hop)) + Int64(window)
    }

    /// Makes the next segment when the input reaches far enough: `hop` frames of output.
    private func step(rate: Double) -> Bool {
        guard input.end >= stepInputEnd() else { return false }
        let c = channels
        let natural = input.index(previous + Int64(hop))
        if accumulatorPending {  // the segment before is the input itself, fading out
            accumulatorPending = false
            for m in 0..<hop {
                for channel in 0..<c {
                    accumulator[m * c + channel] = hann[hop + m] * input.samples[(natural + m) * c + channel]
                }
            }
        }
        let center = input.index(Int64(nominal.rounded()))
        let chosen = input.mono.withUnsafeBufferPointer { m in
            WaveformSearch.bestStart(
                in: m, natural: natural, low: max(0, center - searchRadius), high: center + searchRadius,
                preferred: center, length: window, stride: Self.coarseStride)
        }
        reserveStaging(hop)
        let out = stagedFrames * c
        for m in 0..<hop {
            for channel in 0..<c {
                let i = m * c + channel
                staging[out + i] = accumulator[i] + hann[m] * input.samples[(chosen + m) * c + channel]
                accumulator[i] = hann[hop + m] * input.samples[(chosen + hop + m) * c + channel]
            }
        }
        map.append(outputStart: producedFrames, inputStart: nominal, rate: rate, frames: hop)
        stagedFrames += hop
        producedFrames += Int64(hop)
        previous = input.base + Int64(chosen)
        nominal += Double(hop) * rate
        return true
    }

    /// Back to rate 1: the last segment's second half cross-fades into the input that follows it (its
    /// natural continuation), then the input passes on unchanged.
    private func leave() -> Bool {
        guard input.end >= previous + Int64(window) else { return false }
        let c = channels
        let start = input.index(previous + Int64(hop))
        reserveStaging(hop)
        let out = stagedFrames * c
        for m in 0..<hop {
            for channel in 0..<c {
                let i = m * c + channel
                staging[out + i] = accumulator[i] + hann[m] * input.samples[(start + m) * c + channel]
            }
        }
        map.append(outputStart: producedFrames, inputStart: Double(previous + Int64(hop)), rate: 1, frames: hop)
        stagedFrames += hop
        producedFrames += Int64(hop)
        passPosition = previous + Int64(window)
        flushInputAsPassThrough()
        mode = .passThrough
        return true
    }
}
