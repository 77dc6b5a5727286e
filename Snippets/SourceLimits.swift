// Cutting a source to an exact length, or starting it later (the PipelinesAndStages article).
import MediaPipeline

let capture = try ToneGenerator(
    .sine(frequency: 440, amplitude: 0.5), sampleRate: 44_100, channels: 2, length: .unlimited)
let reader = try ToneGenerator(
    .sine(frequency: 440, amplitude: 0.5), sampleRate: 48_000, channels: 2, length: .unlimited)

// snippet.limits
var recording = try capture.prefix(duration: .seconds(5))  // exactly 220 500 frames at 44.1 kHz
var window = try reader.start(at: .seconds(2)).prefix(frames: 48_000)
// snippet.end

var frames = 0
while let sample = try recording.next() { frames += sample.frameCount }
var windowFrames = 0
while let sample = try window.next() { windowFrames += sample.frameCount }
print("\(frames) frames, then \(windowFrames) from 2 s on")
