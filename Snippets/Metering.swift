// Metering a recording as AVAudioRecorder does: a LevelMeter's stage in the microphone's branch, read from
// another thread. Needs a PulseAudio server to run; `swift build` only compiles it.
import MediaPipeline

do {
    // snippet.hide
    let microphone = try AudioCaptureSource()
    // snippet.show
    // snippet.record
    let meter = try LevelMeter()
    var graph = MediaGraph()
    let mic = graph.addBranch(source: microphone, stages: [meter.stage, try AACEncoder(bitRate: 128_000)])
    graph.addSink(try ContainerMuxer(path: "take.m4a"), tracks: [mic])
    // snippet.hide
    let recording = Task { [graph] in try await graph.run() }
    try await Task.sleep(for: .milliseconds(100))
    // snippet.show

    // every 100 ms, on the UI thread (as with AVAudioRecorder.isMeteringEnabled = true):
    meter.updateMeters()
    let average = meter.averagePower(forChannel: 0)  // dBFS, −160...0
    let peak = meter.peakPower(forChannel: 0)
    let linear = meter.levelMeterStates  // AudioQueueLevelMeterState-like, 0...1
    // snippet.end
    print(average, peak, linear)
    recording.cancel()
    _ = await recording.result
}

do {
    // snippet.perBuffer
    let perBuffer = LevelMeter.Configuration(
        block: .milliseconds(20), averagingWindow: .milliseconds(20), peakHold: .zero, peakDecayRate: 10_000)
    // snippet.end
    let meter = try LevelMeter(configuration: perBuffer)
    print(meter.configuration.block)
}
