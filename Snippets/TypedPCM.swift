// PCM samples from and to Swift arrays, typed access without copies, and slicing by frames; Swift
// `Duration`s where a length is taken.
import MediaPipeline

// snippet.make
let format = AudioFormat.pcm(.f32, sampleRate: 48_000, channels: 2)
let sample = try MediaSample(pcm: [Float](repeating: 0.25, count: 600), format: format)  // 300 frames
// snippet.end

// snippet.hide
let left = [Float](repeating: 0.5, count: 300)
let right = [Float](repeating: -0.5, count: 300)
// snippet.show

// snippet.planar
let stereo = AudioFormat.pcm(.f32Planar, sampleRate: 48_000, channels: 2)
let planar = try MediaSample(pcmPlanes: [left, right], format: stereo)
// snippet.end

// snippet.peak
let peak = try sample.withPCM(as: Float.self) { values in values.map(abs).max() ?? 0 }
// snippet.end

// snippet.slice
let middle = try sample.pcmFrames(100..<200)  // 100 frames, pts = sample's pts + 100 frames
// snippet.end

// snippet.values
let values: [Float] = try middle.pcm(as: Float.self)  // interleaved: L R L R …
let rightChannel: [Float] = try planar.pcm(as: Float.self, plane: 1)
// snippet.end

// snippet.mutate
var quieter = sample
try quieter.withMutablePCM(as: Float.self) { values in
    for index in values.indices { values[index] *= 0.5 }  // -6 dB
}
// snippet.end

// snippet.durations
let tone = try ToneGenerator(sampleRate: 48_000, length: .duration(.milliseconds(250)))  // 12,000 frames
let tick = MediaTime(.milliseconds(10), timescale: 48_000)  // 480/48000
let sleep = MediaTime(value: 1024, timescale: 48_000).duration  // 21 333 333 ns
// snippet.end

print(peak, values.count, rightChannel.count, quieter.frameCount, tone.totalFrames ?? 0, tick, sleep ?? .zero)
