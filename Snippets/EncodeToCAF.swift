// Drives an encoder and a muxer by hand (no Pipeline): a tone, encoded to AAC, into `take1.caf`.
import MediaPipeline

var tone = try ToneGenerator(length: .frames(48_000))
// snippet.muxer
let encoder = CheckedStage(try AACEncoder(bitRate: 128_000))
let muxer = CheckedSink(CAFMuxer(output: try FileOutput(path: "take1.caf"), info: [("title", "Take 1")]))
while let pcm = try tone.next() {
    try encoder.process(pcm) { packet in try muxer.write(packet) }
}
try encoder.finish { packet in try muxer.write(packet) }
try muxer.finish()
// snippet.end
