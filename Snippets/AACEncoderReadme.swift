// The code of Examples/aac-encoder/README.md, compiled with the package and run by ReadmeExampleTests
// in a folder holding `in.wav` and `long.wav`: WAV → (resample) → AAC → ADTS, and the parallel encoder.
import MediaPipeline

// snippet.pipeline
import MediaPipeline

let source = try WAVReader(path: "in.wav")  // or ToneGenerator(.sine(...), ...)
var stages: [any MediaStage] = []
stages.append(try AudioConverter(sampleRate: 44_100, channelLayout: .mono))  // only if converting
stages.append(try AACEncoder(bitRate: 128_000))  // re-chunks to 1024 frames itself
var pipeline = Pipeline(
    source: source, stages: stages,
    sink: ADTSMuxer(output: try FileOutput(path: "out.aac")))
let result = try pipeline.run { progress in print(progress.position) }
print("\(result.framesRead) frames in, \(result.samplesWritten) packets out")
// snippet.end

do {  // a scope of its own: the README's two examples both name their pipeline `pipeline`
    // snippet.parallel
    let path = "long.wav"
    let encoder = try ParallelAACEncoder(frameCount: try WAVReader(path: path).frameCount, bitRate: 128_000) {
        range throws(MediaError) in try WAVReader(path: path, frames: range)  // once per segment, on its thread
    }
    var pipeline = Pipeline(source: encoder, sink: CAFMuxer(output: try FileOutput(path: "long.caf")))
    try pipeline.run()
    // snippet.end
}
