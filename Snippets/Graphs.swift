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

func recordWhileRunning() async throws {
    // snippet.hide
    let clock = MediaClock()
    let camera = RealTimeSource(try TestPatternGenerator(width: 320, height: 240, length: .frames(60)), clock: clock)
    let microphone = RealTimeSource(try ToneGenerator(length: .frames(96_000)), clock: clock)
    var graph = MediaGraph()
    let video = graph.addBranch("video", source: camera, stages: [try H264Encoder()])
    let audio = graph.addBranch("audio", source: microphone, stages: [try AACEncoder()])
    graph.addSink(try ContainerMuxer(path: "main.mp4"), tracks: [video, audio])
    // snippet.show
    // snippet.changes
    let run = graph.start()
    let clip = try run.addSink(try ContainerMuxer(path: "clip.mp4"), tracks: [video, audio])
    // …
    // snippet.hide
    try await Task.sleep(for: .seconds(1))
    // snippet.show
    run.removeSink(clip)  // finished and valid; the other sinks lose nothing
    // snippet.end
    run.wait()
}

try await encodeTwice()
try await paceOnOneClock()
try await recordWhileRunning()
