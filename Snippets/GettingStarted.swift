// Encodes five seconds of a 440 Hz tone to AAC in an ADTS file (`tone.aac`, playable by ffplay).
import MediaPipeline

// snippet.pipeline
var pipeline = Pipeline(
    source: try ToneGenerator(
        .sine(frequency: 440, amplitude: 0.5), sampleRate: 48_000, channels: 2,
        length: .duration(MediaTime(value: 5, timescale: 1))),
    stages: [try AACEncoder(bitRate: 128_000)],
    sink: ADTSMuxer(output: try FileOutput(path: "tone.aac")))
let result = try pipeline.run { progress in print(progress.position) }
// snippet.end
print("\(result.samplesWritten) AAC packets, \(result.bytesWritten) bytes")
