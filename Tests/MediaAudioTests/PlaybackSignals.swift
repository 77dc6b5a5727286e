import Foundation
import MediaAudio

/// Test signals and drivers for the playback stages (gain, pan, time stretch): float32 PCM as
/// `[Float]` (interleaved) in and out of `MediaSample`s.
enum PlaybackSignals {
    static let rate = 48_000

    /// `seconds` of `frequencies` (each at `amplitude`, summed), the same on every channel, interleaved.
    static func tones(_ frequencies: [Double], seconds: Double, channels: Int = 1, amplitude: Float = 0.5) -> [Float] {
        let frames = Int(seconds * Double(rate))
        var out = [Float](repeating: 0, count: frames * channels)
        for frame in 0..<frames {
            let t = Double(frame) / Double(rate)
            let value = frequencies.reduce(0.0) { $0 + sin(2 * .pi * $1 * t) }
            for channel in 0..<channels { out[frame * channels + channel] = amplitude * Float(value) }
        }
        return out
    }

    /// Deterministic white noise in ±`amplitude` (a linear congruential generator, seeded).
    static func noise(seconds: Double, channels: Int = 1, amplitude: Float = 0.5, seed: UInt64 = 1) -> [Float] {
        var state = seed
        return (0..<Int(seconds * Double(rate)) * channels).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return amplitude * (Float(state >> 40) / Float(1 << 23) * 2 - 1)
        }
    }

    /// Speech-like: a 120 Hz glottal pulse train through two formant resonances, syllables of 180 ms
    /// separated by 70 ms of silence, peak normalised to `peak`.
    static func speechLike(seconds: Double, peak: Float = 0.8) -> [Float] {
        let frames = Int(seconds * Double(rate))
        var out = [Float](repeating: 0, count: frames)
        var y1 = 0.0, y2 = 0.0, z1 = 0.0, z2 = 0.0
        for n in 0..<frames {
            let voiced = n % 12_000 < 8_640
            let pulse = voiced && n % (rate / 120) == 0 ? 1.0 : 0.0
            let a = 1.6 * cos(2 * .pi * 700 / Double(rate)) * y1 - 0.64 * y2 + pulse  // formant 1, r = 0.8
            y2 = y1; y1 = a
            let b = 1.8 * cos(2 * .pi * 1_200 / Double(rate)) * z1 - 0.81 * z2 + a  // formant 2, r = 0.9
            z2 = z1; z1 = b
            out[n] = Float(b)
        }
        let top = out.map(abs).max() ?? 1
        return out.map { $0 / top * peak }
    }

    /// One `f32` (or `f32p`) sample of `values` (interleaved) starting at frame `start`.
    static func sample(_ values: ArraySlice<Float>, channels: Int, start: Int, planar: Bool = false) -> MediaSample {
        let frames = values.count / channels
        let format = AudioFormat.pcm(planar ? .f32Planar : .f32, sampleRate: rate, channels: channels)
        let timing = SampleTiming.audio(startFrame: Int64(start), frameCount: frames, sampleRate: rate)
        let base = values.startIndex
        func bytes(_ floats: [Float]) -> [UInt8] {
            floats.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
        }
        if planar {
            let planes = (0..<channels).map { c in bytes((0..<frames).map { values[base + $0 * channels + c] }) }
            return MediaSample(format: .audio(format), planes: planes, timing: timing, frameCount: frames)
        }
        return MediaSample(format: .audio(format), data: bytes(Array(values)), timing: timing, frameCount: frames)
    }

    /// `values` cut into samples of `sizes` frames (cycled), for a stage.
    static func samples(_ values: [Float], channels: Int, sizes: [Int] = [1024], planar: Bool = false) -> [MediaSample]
    {
        var out: [MediaSample] = []
        var frame = 0
        let total = values.count / channels
        var i = 0
        while frame < total {
            let n = min(sizes[i % sizes.count], total - frame)
            out.append(
                sample(
                    values[frame * channels..<(frame + n) * channels], channels: channels, start: frame, planar: planar)
            )
            frame += n
            i += 1
        }
        return out
    }

    /// Runs `stage` over `inputs` then finishes it; `beforeEach(i)` runs before input `i` (to change a
    /// parameter). Returns every output sample.
    static func run(_ stage: inout some MediaStage, _ inputs: [MediaSample], beforeEach: (Int) -> Void = { _ in })
        throws -> [MediaSample]
    {
        var out: [MediaSample] = []
        for (i, input) in inputs.enumerated() {
            beforeEach(i)
            try stage.process(input) { out.append($0) }
        }
        try stage.finish { out.append($0) }
        return out
    }

    /// The interleaved values of `samples`, planar ones interleaved.
    static func values(_ samples: [MediaSample]) -> [Float] {
        var out: [Float] = []
        for sample in samples {
            guard let audio = sample.format.audio else { continue }
            let planes = sample.planes.map { RawFloats.decode($0) }
            if audio.pcm?.isInterleaved ?? true {
                out += planes[0].prefix(sample.frameCount * audio.channelCount)
            } else {
                for f in 0..<sample.frameCount { for p in planes { out.append(p[f]) } }
            }
        }
        return out
    }

    /// Channel `channel` of interleaved `values`.
    static func channel(_ channel: Int, of values: [Float], channels: Int) -> [Float] {
        stride(from: channel, to: values.count, by: channels).map { values[$0] }
    }
}

/// Little-endian float32 bytes and raw files, as sox and ffmpeg read them (`-e floating-point -b 32`,
/// `-f f32le`).
enum RawFloats {
    static func decode(_ bytes: [UInt8]) -> [Float] {
        stride(from: 0, to: bytes.count - 3, by: 4).map {
            Float(
                bitPattern: UInt32(bytes[$0]) | UInt32(bytes[$0 + 1]) << 8 | UInt32(bytes[$0 + 2]) << 16 | UInt32(
                    bytes[$0 + 3]) << 24)
        }
    }

    static func write(_ values: [Float], to path: String) throws {
        var data = Data(capacity: values.count * 4)
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String) throws -> [Float] {
        decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
