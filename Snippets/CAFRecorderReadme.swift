// The code of Examples/caf-recorder/README.md, compiled with the package and run by ReadmeExampleTests in
// a folder holding `in.wav`: WAV → AAC → CAF.
import MediaPipeline

// snippet.pipeline
import MediaPipeline

let source = try WAVReader(path: "in.wav")  // or ToneGenerator, CAFReader, ADTSReader
var pipeline = Pipeline(
    source: source, stages: [try AACEncoder(bitRate: 96_000)],
    sink: CAFMuxer(output: try FileOutput(path: "rec.caf")))
let result = try pipeline.run { progress in print(progress.position) }
print("\(result.framesRead) frames in, \(result.samplesWritten) packets out")
// snippet.end
