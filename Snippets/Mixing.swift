// Fan-in: two WAV files mixed (one converted on the way in, one placed 2 s later), and a canvas with a
// picture-in-picture, a logo and a timecode, encoded into one MP4.
import MediaPipeline

func mixAndComposite() throws {
    // snippet.mix
    let music = try AudioMixer.Input(
        converting: try WAVReader(path: "music.wav"), sampleRate: 48_000, channels: 2, gain: 0.5)
    let voice = try AudioMixer.Input(
        converting: try WAVReader(path: "voice.wav"), sampleRate: 48_000, channels: 2, offset: .seconds(2))
    let mixer = try AudioMixer(
        sampleRate: 48_000, channels: 2, limiter: .ceiling(decibels: -1), inputs: [music, voice])
    // snippet.end

    // snippet.canvas
    let canvas = VideoCompositor.Canvas(width: 1280, height: 720, frameRate: FrameRate(30))
    let slides = VideoCompositor.Input(source: try Y4MReader(path: "slides.y4m"), layout: .inset(on: canvas))
    let compositor = try VideoCompositor(
        canvas: canvas,
        inputs: [
            VideoCompositor.Input(source: try Y4MReader(path: "talk.y4m"), layout: .fullCanvas(canvas)),
            slides,
            .still(try StillImage.load(path: "logo.png"), layout: .init(x: 24, y: 24, zIndex: 2)),
            try .text(.init(.timecode, size: 32, box: .black), on: canvas, layout: .init(x: 24, y: 660, zIndex: 3))
        ])
    // snippet.end

    // snippet.graph
    var graph = MediaGraph()
    let audio = graph.addBranch("mix", source: mixer, stages: [try AACEncoder()])
    let video = graph.addBranch("canvas", source: compositor, stages: [try H264Encoder()])
    graph.addSink(try ContainerMuxer(path: "show.mp4"), tracks: [video, audio])
    try graph.runThreaded()
    // snippet.end

    // snippet.changes
    // From any thread while it runs: the voice louder (ramped over 10 ms), the inset moved to the left.
    voice.controls.gain.value = 0.8
    slides.controls.layout.x = 16
    // snippet.end
}
