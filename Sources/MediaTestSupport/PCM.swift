import Foundation
public import MediaCore

/// Hand-made PCM for the stage and example tests (the library's ToneGenerator is tested on its own).
public enum PCM {
    /// `frames` frames of a sine at `frequency` Hz and `amplitude`, interleaved, as `type` (s16 or f32),
    /// the same value on every channel, cut into samples of `chunk` frames.
    public static func sine(
        frames: Int, frequency: Double = 440, amplitude: Double = 0.5, sampleRate: Int = 48_000,
        channels: Int = 2, type: PCMSampleType = .s16, chunk: Int = 4096
    ) -> [MediaSample] {
        let format = AudioFormat.pcm(PCMFormat(type), sampleRate: sampleRate, channels: channels)
        var samples: [MediaSample] = []
        var start = 0
        while start < frames {
            let count = min(chunk, frames - start)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count * channels * type.bytesPerSample)
            for n in start..<start + count {
                let x = amplitude * sin(2 * Double.pi * frequency * Double(n) / Double(sampleRate))
                for _ in 0..<channels {
                    switch type {
                    case .s16:
                        let v = UInt16(bitPattern: Int16(clamping: Int((x * 32767).rounded())))
                        bytes += [UInt8(v & 0xFF), UInt8(v >> 8)]
                    default:
                        let v = Float(x).bitPattern
                        bytes += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
                    }
                }
            }
            samples.append(
                MediaSample(
                    format: .audio(format), data: bytes,
                    timing: .audio(startFrame: Int64(start), frameCount: count, sampleRate: sampleRate),
                    frameCount: count))
            start += count
        }
        return samples
    }

    /// Runs `samples` through `stage` (process each, then finish) and returns what it emitted.
    public static func run(_ stage: some MediaStage, _ samples: [MediaSample]) throws -> [MediaSample] {
        // By hand, as a driver would: the guard keeps the order and stamps the errors.
        let stage = CheckedStage(stage)
        var out: [MediaSample] = []
        for sample in samples { try stage.process(sample) { out.append($0) } }
        try stage.finish { out.append($0) }
        return out
    }

    /// The first channel of f32 PCM samples (planar or interleaved) as floats.
    public static func firstChannel(_ samples: [MediaSample]) -> [Float] {
        var result: [Float] = []
        for sample in samples {
            guard let audio = sample.format.audio, let pcm = audio.pcm, pcm.sampleType == .f32 else { continue }
            let stride = pcm.isInterleaved ? audio.channelCount : 1
            sample.withUnsafeBytes(plane: 0) { raw in
                for i in 0..<sample.frameCount {
                    result.append(raw.loadUnaligned(fromByteOffset: 4 * i * stride, as: Float.self))
                }
            }
        }
        return result
    }
}
