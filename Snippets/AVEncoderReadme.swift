// The code of Examples/av-encoder/README.md, compiled with the package and run by ReadmeExampleTests:
// pattern and tone → H.264 and AAC → MP4 and MPEG-TS from one encode.
import MediaPipeline

// snippet.graph
import MediaPipeline

var graph = MediaGraph()
let video = graph.addBranch(
    "video",
    source: try TestPatternGenerator(width: 640, height: 360, frameRate: FrameRate(30), length: .duration(.seconds(2))),
    stages: [try H264Encoder()])
let audio = graph.addBranch(
    "audio",
    source: try ToneGenerator(.sine(frequency: 440, amplitude: 0.5), length: .duration(.seconds(2))),
    stages: [try AACEncoder(bitRate: 128_000)])
graph.addSink(try ContainerMuxer(path: "out.mp4"), tracks: [video, audio])
graph.addSink(try ContainerMuxer(path: "out.ts"), tracks: [video, audio])  // the same encode, twice
try await graph.run()  // cancelling the task finishes both files, then throws CancellationError
// snippet.end
