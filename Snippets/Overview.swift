// MediaPipeline in two examples: a WAV file encoded to AAC, and live audio recorded and played as
// AVAudioRecorder and AVAudioPlayer do it. The files are examples and the live half needs a PulseAudio
// server: `swift build` compiles this program, nothing runs it.
// snippet.transcode
import MediaPipeline

var pipeline = Pipeline(
    source: try WAVReader(path: "in.wav"),
    stages: [try AACEncoder(bitRate: 128_000)],
    sink: ADTSMuxer(output: try FileOutput(path: "out.aac")))
try pipeline.run()
// snippet.end

// snippet.live
let recorder = try AudioRecorder(path: "take.m4a", settings: .init(format: .aac), input: .device(nil))
recorder.isMeteringEnabled = true
try recorder.record(forDuration: 30)

let player = try AudioPlayer(path: "song.mp3", output: try .device(nil))
player.numberOfLoops = 1
player.enableRate = true
player.rate = 1.5
try player.play()
// snippet.end
