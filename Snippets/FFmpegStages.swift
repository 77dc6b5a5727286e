// The stages, demuxer and muxer backed by FFmpeg, one slice each: audio and video codecs and converters,
// reading a container, writing one, streaming live (SRT, adaptive bit rate) and writing HLS. The files and
// servers named are examples: `swift build` compiles this program, nothing runs it.
import MediaPipeline

do {
    // snippet.audio
    let converter = try AudioConverter(sampleRate: 48_000, channelLayout: .stereo)  // libswresample
    let encoder = try AACEncoder(bitRate: 128_000)  // FFmpeg's native aac
    let decoder = AACDecoder(outputFormat: .f32)
    // snippet.end
    var roundTrip = Pipeline(
        source: try ToneGenerator(sampleRate: 44_100, channels: 1, length: .frames(44_100)),
        stages: [converter, encoder, decoder], sink: CollectingSink())
    try roundTrip.run()
}

do {
    // snippet.video
    var settings = H264Encoder.Settings()
    settings.averageBitRate = 1_500_000
    settings.maxKeyFrameInterval = 30
    let h264 = try H264Encoder(settings: settings)  // libx264
    let toYUV = try VideoConverter(to: .yuv420p)  // libswscale
    let decoder = H264Decoder()  // FFmpeg's h264
    // snippet.end
    var roundTrip = Pipeline(
        source: try TestPatternGenerator(width: 320, height: 240, length: .frames(30)),
        stages: [h264, decoder, toYUV], sink: CollectingSink())
    try roundTrip.run()
}

do {
    // snippet.demux
    let demuxer = try ContainerDemuxer(path: "movie.mp4")  // libavformat
    guard let stream = demuxer.firstAudioStream else { throw MediaError(.unsupportedFormat, "no audio in movie.mp4") }
    let audio = try demuxer.source(stream: stream)
    let decoder = AACDecoder()
    while let packet = try audio.next() { try decoder.process(packet) { pcm in print(pcm.frameCount) } }
    try decoder.finish { pcm in print(pcm.frameCount) }
    // snippet.end
}

do {
    // snippet.hide
    var encoded = Pipeline(
        source: try TestPatternGenerator(width: 320, height: 240, length: .frames(30)),
        stages: [try H264Encoder()], sink: CollectingSink())
    try encoded.run()
    guard let sample = (encoded.finishedSink as? CollectingSink)?.samples.first,
        let h264Format = sample.format.video
    else { throw MediaError(.invalidData, "no H.264") }
    let aacFormat = AudioFormat.aac(
        sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])
    // snippet.show
    // snippet.mux
    let muxer = try ContainerMuxer(path: "out.mp4")  // ContainerFormat from the extension
    try muxer.begin(tracks: [.video(h264Format), .audio(aacFormat)])
    try muxer.write(sample, track: 0)  // interleaved by decode time
    try muxer.finish()
    // snippet.end
}

func streamOverSRT() async throws {
    // snippet.hide
    var graph = MediaGraph()
    let camera = try TestPatternGenerator(width: 640, height: 360, length: .frames(300))
    let microphone = try ToneGenerator(length: .frames(480_000))
    // snippet.show
    // snippet.live
    let clock = MediaClock()
    let live = try LiveStreamSink(try ContainerMuxer(url: "srt://127.0.0.1:9000?latency=120000"), clock: clock)
    // snippet.hide
    let video = graph.addBranch(source: RealTimeSource(camera, clock: clock), stages: [try H264Encoder()])
    let audio = graph.addBranch(source: RealTimeSource(microphone, clock: clock), stages: [try AACEncoder()])
    // snippet.show
    graph.addSink(live, tracks: [video, audio])  // branches paced by RealTimeSource(…, clock: clock)
    // snippet.end
    try await graph.run()
}

func adaptBitRate() async throws {
    // snippet.hide
    let clock = MediaClock()
    var settings = H264Encoder.Settings()
    settings.averageBitRate = 2_500_000
    let muxer = try ContainerMuxer(url: "rtmp://127.0.0.1/live/key")
    // snippet.show
    // snippet.abr
    let control = try BitRateControl(bitRate: 2_500_000)  // the ceiling, too
    let encoder = try H264Encoder(settings: settings, bitRateControl: control)
    let live = try LiveStreamSink(muxer, clock: clock, adaptiveBitRate: AdaptiveBitRate(control: control))
    // snippet.end
    var graph = MediaGraph()
    let camera = RealTimeSource(try TestPatternGenerator(width: 640, height: 360, length: .frames(300)), clock: clock)
    let video = graph.addBranch(source: camera, stages: [encoder])
    graph.addSink(live, tracks: [video])
    try await graph.run()
}

func writeHLS() async throws {
    // snippet.hls
    let hls = HLSOptions(segmentType: .fragmentedMP4, playlist: .live(windowSize: 6))
    let muxer = try ContainerMuxer(hlsPlaylist: "/var/www/live/stream.m3u8", hls: hls)
    // snippet.end
    var graph = MediaGraph()
    let camera = RealTimeSource(try TestPatternGenerator(width: 640, height: 360, length: .frames(300)))
    let video = graph.addBranch(source: camera, stages: [try H264Encoder()])
    graph.addSink(muxer, tracks: [video])
    try await graph.run()
}

func takeStills() throws {
    // snippet.images
    let generator = try ImageGenerator(path: "movie.mp4")  // AVAssetImageGenerator
    generator.scaling = .fitting(width: 640, height: 360)
    let png = try generator.imageData(at: MediaTime(value: 125, timescale: 10), as: .png)  // the frame at 12.5 s
    let sheet = try generator.contactSheet(columns: 4, rows: 3)  // 12 frames spread over the movie
    try ImageWriter(path: "sheet.jpg").write(sheet)
    // snippet.end
    print(png.count)
}

func recordScreen() async throws {
    // snippet.capture
    let clock = MediaClock()  // the microphone's AudioCaptureSource takes the same clock
    let screen = try VideoCaptureSource(
        .screen(display: ":0"), configuration: .init(frameRate: FrameRate(30)), clock: clock)
    for camera in try VideoDevice.cameras() { print(camera.path, camera.formats.map(\.pixelFormat)) }
    // snippet.end
    var graph = MediaGraph()
    let video = graph.addBranch(source: screen, stages: [try H264Encoder()])
    graph.addSink(try ContainerMuxer(path: "screen.mp4"), tracks: [video])
    try await graph.run()
}

try takeStills()
try await recordScreen()
try await streamOverSRT()
try await adaptBitRate()
try await writeHLS()
