// Live monitoring through PulseAudio: the default input played to the default output. Needs a PulseAudio
// server to run; `swift build` only compiles it.
import MediaPipeline

// snippet.monitor
let pulse = try PulseConnection()  // the default server
let clock = MediaClock()
let mic = try AudioCaptureSource(connection: pulse, sampleType: .f32, latency: .milliseconds(20), clock: clock)
let speaker = try AudioPlaybackSink(connection: pulse, sampleType: .f32, latency: .milliseconds(50))
while let pcm = try mic.next() {  // live monitoring: the input to the output
    try speaker.write(pcm)
}
// snippet.end
