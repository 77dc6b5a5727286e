// A live stream to an RTMP server, with a local recording untouched by outages: reconnection with a keyframe
// request, a bounded live queue and adaptive bit rate. Needs the server (and a camera and microphone: here a
// test pattern and a tone, paced on the clock) to run; `swift build` only compiles it.
import MediaPipeline

func streamLive() async throws {
    // snippet.hide
    var settings = H264Encoder.Settings()
    settings.averageBitRate = 2_500_000
    // snippet.show
    // snippet.live
    let clock = MediaClock()
    // snippet.hide
    let camera = RealTimeSource(
        try TestPatternGenerator(width: 1280, height: 720, length: .frames(300)), clock: clock)
    let microphone = RealTimeSource(try ToneGenerator(length: .frames(480_000)), clock: clock)
    // snippet.show
    let control = try BitRateControl(bitRate: 2_500_000)  // the encoder's target, shared
    let keyframes = KeyframeRequest()  // a reconnection asks for a keyframe
    let encoder = try H264Encoder(settings: settings, bitRateControl: control)
    encoder.keyframeRequest = keyframes

    var graph = MediaGraph()
    let video = graph.addBranch("video", source: camera, stages: [encoder])
    let audio = graph.addBranch("audio", source: microphone, stages: [try AACEncoder(bitRate: 128_000)])

    let url = "rtmp://127.0.0.1/live/key"
    let output = ReconnectingSink(name: url, keyframeRequest: keyframes) { try ContainerMuxer(url: url) }
    let live = try LiveStreamSink(
        output, clock: clock, maxQueueDuration: .seconds(2), adaptiveBitRate: AdaptiveBitRate(control: control))
    let stats = live.statsSource
    graph.addSink(live, tracks: [video, audio])
    graph.addSink(try ContainerMuxer(path: "show.mp4"), tracks: [video, audio])  // untouched by outages
    Task { for await now in stats.updates() { print(now.sentBitRate ?? 0, now.queueSeconds) } }
    try await graph.run()
    // snippet.end
}

try await streamLive()
