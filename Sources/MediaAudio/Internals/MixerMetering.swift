import MediaCore

/// Meters what one input adds to an ``AudioMixer`` (after its gain, balance and ramps), through its
/// own ``LevelMeterStage``: the input mixes into ``values`` instead of the mix's sums, and
/// ``addAndMeter(into:frames:)`` adds them in and meters them. Lives on the mixer's thread.
final class MixerMetering {
    /// The input's contribution to the buffer being mixed, interleaved.
    var values: [Double]
    private var stage: LevelMeterStage
    private let format: AudioFormat
    private let sampleRate: Int
    private let channels: Int
    private var position: Int64 = 0

    init(meter: LevelMeter, sampleRate: Int, channels: Int, framesPerBuffer: Int) {
        stage = meter.stage
        values = Array(repeating: 0, count: framesPerBuffer * channels)
        format = .pcm(PCMFormat(.f32), sampleRate: sampleRate, channels: channels)
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Zeroes the first `frames` frames of ``values``.
    func clear(frames: Int) {
        for index in 0..<(frames * channels) { values[index] = 0 }
    }

    /// Adds the first `frames` frames of ``values`` into `sums` and meters them.
    func addAndMeter(into sums: inout [Double], frames: Int) throws {
        for index in 0..<(frames * channels) { sums[index] += values[index] }
        try Self.meter(values, frames: frames, with: &stage, format: format, start: position, sampleRate: sampleRate)
        position += Int64(frames)
    }

    /// Feeds the first `frames` interleaved frames of `values` to `stage` as a float32 sample.
    static func meter(
        _ values: [Double], frames: Int, with stage: inout LevelMeterStage, format: AudioFormat, start: Int64,
        sampleRate: Int
    ) throws {
        guard frames > 0 else { return }
        let count = frames * format.channelCount
        var data = [UInt8](repeating: 0, count: count * 4)
        data.withUnsafeMutableBytes { raw in
            for index in 0..<count { raw.storeFloat32(Float(values[index]), at: index) }
        }
        let sample = MediaSample(
            format: .audio(format), data: data,
            timing: .audio(startFrame: start, frameCount: frames, sampleRate: sampleRate), frameCount: frames)
        try stage.process(sample) { _ in }
    }
}

@available(*, unavailable) extension MixerMetering: Sendable {}
