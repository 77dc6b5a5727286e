// Two branches (video and audio) encoded once and muxed into two files, then the same branches paced in real
// time on one clock. A test pattern and a tone stand in for the camera and the microphone.
import MediaPipeline

func encodeTwice() async throws {
    // snippet.hide
    let camera = try TestPatternGenerator(width: 640, height: 360, length: .frames(60))
    let microphone = try ToneGenerator(length: .frames(96_000))
    var settings = H264Encoder.Settings()
    settings.averageBitRate = 1_000_000
    // snippet.show
    // snippet.graph
    var graph = MediaGraph()
    let video = graph.addBranch("video", source: camera, stages: [try H264Encoder(settings: settings)])
    let audio = graph.addBranch("audio", source: microphone, stages: [try AACEncoder(bitRate: 128_000)])
    graph.addSink(try ContainerMuxer(path: "show.mp4"), tracks: [video, audio])
    graph.addSink(ADTSMuxer(output: try FileOutput(path: "show.aac")), input: audio)
    try await graph.run()
    // snippet.end
}

func paceOnOneClock() async throws {
    // snippet.hide
    let camera = try TestPatternGenerator(width: 640, height: 360, length: .frames(60))
    let microphone = try ToneGenerator(length: .frames(96_000))
    // snippet.show
    // snippet.clock
    let clock = MediaClock()  // anchored now: media time zero for both branches
    var graph = MediaGraph()
    let video = graph.addBranch("video", source: RealTimeSource(camera, clock: clock), stages: [try H264Encoder()])
    let audio = graph.addBranch("audio", source: RealTimeSource(microphone, clock: clock), stages: [try AACEncoder()])
    // snippet.end
    graph.addSink(try ContainerMuxer(path: "paced.mp4"), tracks: [video, audio])
    try await graph.run()
}

try await encodeTwice()
try await paceOnOneClock()
