#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The meter's arithmetic for one stream of one channel count and sample rate: per channel, the RMS
/// over a window of whole blocks and a peak with hold and decay, as ``LevelMeter`` documents.
///
/// Blocks are counted from the first frame the analyzer sees, so its state after N frames is the same
/// however those frames were split into calls: squares are added frame by frame in order, block peaks
/// are maxima, and readings are computed only at block ends (and at ``flush()``). Storage is allocated
/// in `init` only; ``analyze(_:pcm:frames:)`` never allocates.
struct MeterAnalyzer {
    let channelCount: Int
    let sampleRate: Int
    let blockFrames: Int
    let windowBlocks: Int
    let holdFrames: Int
    /// The decay in dB per frame.
    let decayPerFrame: Double

    /// Frames in the block being filled.
    private var framesInBlock = 0
    /// Per channel: the sum of squares and the largest magnitude in the block being filled.
    private var blockSum: [Double]
    private var blockPeak: [Double]
    /// The last `windowBlocks` blocks' sums of squares, block-major (`block × channelCount + channel`),
    /// and their lengths in frames (all `blockFrames` except a last short one at ``flush()``).
    private var ringSums: [Double]
    private var ringFrames: [Int]
    private var ringNext = 0
    private var ringFilled = 0
    /// Per channel: the peak being held or decayed, and the frames since the end of its block.
    private var heldPeak: [Double]
    private var framesSincePeak: [Int]
    /// Per channel: the readings as of the last completed block, linear.
    private(set) var levels: [LevelMeterState]

    init(configuration: LevelMeter.Configuration, channelCount: Int, sampleRate: Int) {
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        blockFrames = max(1, LevelMeter.Configuration.frames(configuration.block, sampleRate: sampleRate))
        let window = LevelMeter.Configuration.frames(configuration.averagingWindow, sampleRate: sampleRate)
        windowBlocks = max(1, Int((Double(window) / Double(blockFrames)).rounded()))
        holdFrames = max(0, LevelMeter.Configuration.frames(configuration.peakHold, sampleRate: sampleRate))
        decayPerFrame = configuration.peakDecayRate / Double(sampleRate)
        blockSum = Array(repeating: 0, count: channelCount)
        blockPeak = Array(repeating: 0, count: channelCount)
        ringSums = Array(repeating: 0, count: channelCount * windowBlocks)
        ringFrames = Array(repeating: 0, count: windowBlocks)
        heldPeak = Array(repeating: 0, count: channelCount)
        framesSincePeak = Array(repeating: 0, count: channelCount)
        levels = Array(repeating: .silent, count: channelCount)
    }

    /// Meters `frames` of `sample`, whose format is `pcm` with ``channelCount`` channels and whose
    /// layout the caller has validated.
    mutating func analyze(_ sample: MediaSample, pcm: PCMFormat, frames: Range<Int>) {
        let size = pcm.sampleType.bytesPerSample
        let stride = pcm.isInterleaved ? size * channelCount : size
        var frame = frames.lowerBound
        while frame < frames.upperBound {
            let count = min(frames.upperBound - frame, blockFrames - framesInBlock)
            for channel in 0..<channelCount {
                let plane = pcm.isInterleaved ? 0 : channel
                let offset = frame * stride + (pcm.isInterleaved ? channel * size : 0)
                sample.withUnsafeBytes(plane: plane) { bytes in
                    pcm.sampleType.accumulate(
                        bytes: bytes, offset: offset, stride: stride, count: count,
                        sum: &blockSum[channel], peak: &blockPeak[channel])
                }
            }
            framesInBlock += count
            frame += count
            if framesInBlock == blockFrames { closeBlock() }
        }
    }

    /// Closes a partly filled block, so that the readings cover every frame seen (end of stream).
    mutating func flush() {
        if framesInBlock > 0 { closeBlock() }
    }

    /// Ends the block being filled: stores it in the window and updates every channel's readings.
    private mutating func closeBlock() {
        let frames = framesInBlock
        let base = ringNext * channelCount
        for channel in 0..<channelCount { ringSums[base + channel] = blockSum[channel] }
        ringFrames[ringNext] = frames
        ringNext = ringNext + 1 == windowBlocks ? 0 : ringNext + 1
        ringFilled = min(ringFilled + 1, windowBlocks)

        // The window's blocks, oldest first, so that the sum's rounding depends on the state alone.
        let oldest = (ringNext - ringFilled + windowBlocks) % windowBlocks
        var windowFrames = 0
        for step in 0..<ringFilled { windowFrames += ringFrames[(oldest + step) % windowBlocks] }
        for channel in 0..<channelCount {
            var total = 0.0
            for step in 0..<ringFilled { total += ringSums[((oldest + step) % windowBlocks) * channelCount + channel] }
            let rms = windowFrames > 0 ? (total / Double(windowFrames)).squareRoot() : 0

            framesSincePeak[channel] += frames
            var peak = decayedPeak(channel)
            if blockPeak[channel] >= peak {
                heldPeak[channel] = blockPeak[channel]
                framesSincePeak[channel] = 0
                peak = blockPeak[channel]
            }
            levels[channel] = LevelMeterState(averagePower: Float(rms), peakPower: Float(peak))
            blockSum[channel] = 0
            blockPeak[channel] = 0
        }
        framesInBlock = 0
    }

    /// The held peak of `channel` after its hold time and decay: `held × 10^(−decay × t / 20)` where
    /// `t` is the time in seconds since the hold ended.
    private func decayedPeak(_ channel: Int) -> Double {
        let falling = framesSincePeak[channel] - holdFrames
        guard falling > 0, decayPerFrame > 0 else { return heldPeak[channel] }
        let decibels = decayPerFrame * Double(falling)
        guard decibels < 400 else { return 0 }  // far below the −160 dB floor
        return heldPeak[channel] * pow(10, -decibels / 20)
    }
}
