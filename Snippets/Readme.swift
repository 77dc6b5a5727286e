// The code of README.md, compiled with the package and run by ReadmeExampleTests in a folder holding
// `in.wav`: a WAV → AAC pipeline, a stage driven by hand, and a graph writing two files.
import MediaPipeline

// snippet.use-it
import MediaPipeline

// WAV → AAC 128 kb/s → ADTS, the AVAssetWriter / KFAudioEncoder job
var pipeline = Pipeline(
    source: try WAVReader(path: "in.wav"),
    stages: [try AACEncoder(bitRate: 128_000)],
    sink: ADTSMuxer(output: try FileOutput(path: "out.aac")))
let result = try pipeline.run { progress in print(progress.position) }
print("\(result.framesRead) frames in, \(result.samplesWritten) packets out")
// snippet.end

var tone = try ToneGenerator(.sine(frequency: 440, amplitude: 0.5), length: .frames(10_000))
var pcmSamples: [MediaSample] = []
while let sample = try tone.next() { pcmSamples.append(sample) }
var sent: [MediaSample] = []
// A closure, not a function: a function reading `sent` compiles only while `sent` is a global (top-level
// code), and the README's code must compile in a @main type and in a function too (SnippetFormsTests).
let send = { (packet: MediaSample) in sent.append(packet) }

// snippet.by-hand
let encoder = CheckedStage(try AACEncoder(bitRate: 96_000))
for sample in pcmSamples { try encoder.process(sample) { packet in send(packet) } }
try encoder.finish { packet in send(packet) }  // drains the last frames
// another call now throws .stageFinished naming AACEncoder
// snippet.end
do {
    try encoder.finish { packet in send(packet) }
} catch {
    print("\(sent.count) packets by hand; then: \(error)")
}

let camera = try TestPatternGenerator(
    width: 320, height: 240, frameRate: FrameRate(30), length: .duration(.seconds(1)))
let microphone = try ToneGenerator(.sine(frequency: 440, amplitude: 0.5), length: .duration(.seconds(1)))

// snippet.graph
var graph = MediaGraph()
let video = graph.addBranch("video", source: camera, stages: [try H264Encoder()])
let audio = graph.addBranch("audio", source: microphone, stages: [try AACEncoder(bitRate: 128_000)])
graph.addSink(try ContainerMuxer(path: "show.mp4"), tracks: [video, audio])  // interleaved by decode time
graph.addSink(try ContainerMuxer(path: "show.ts"), tracks: [video, audio])  // the same encode again
try await graph.run()  // or runSynchronously() / runThreaded() to block; cancelling the task finishes both files
// snippet.end
