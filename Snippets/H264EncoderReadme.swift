// The code of Examples/h264-encoder/README.md, compiled with the package and run by ReadmeExampleTests
// in a folder holding `in.y4m`: Y4M → H.264 → Annex-B, and back to Y4M.
import MediaPipeline

// snippet.pipeline
import MediaPipeline

var settings = H264Encoder.Settings()
settings.averageBitRate = 1_500_000  // kVTCompressionPropertyKey_AverageBitRate
settings.maxKeyFrameInterval = 30  // kVTCompressionPropertyKey_MaxKeyFrameInterval
settings.preset = "veryfast"

var pipeline = Pipeline(
    source: try Y4MReader(path: "in.y4m"),  // or TestPatternGenerator, RawVideoReader
    stages: [try H264Encoder(settings: settings)],  // AVCC out, SPS/PPS in the format
    sink: AnnexBMuxer(output: try FileOutput(path: "out.h264")))  // start codes, SPS/PPS before every IDR
let result = try pipeline.run()
print("\(result.samplesRead) frames in, \(result.samplesWritten) access units out")
// snippet.end
// Releases the encoder, so that x264 joins its threads now rather than being left running when the
// process exits (what a global of top-level code would do, and ThreadSanitizer reports as a leak).
pipeline = Pipeline(source: ArraySource([]), sink: CollectingSink())

// snippet.back
let decoder = H264Decoder()
var back = Pipeline(
    source: try AnnexBReader(path: "out.h264"),  // access units, SPS/PPS in the format
    stages: [decoder],  // frames in presentation order
    sink: Y4MMuxer(output: try FileOutput(path: "decoded.y4m")))
try back.run()
if decoder.missingFrameCount > 0 { print("\(decoder.missingFrameCount) damaged access units gave no frame") }
// snippet.end
