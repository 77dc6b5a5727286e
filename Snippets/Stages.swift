// A pipeline of a converter and an encoder, run with a progress callback; then the same encoder driven by hand
// through CheckedStage, the guard Pipeline and MediaGraph use.
import MediaPipeline

do {
    // snippet.hide
    let source = try ToneGenerator(sampleType: .s16, length: .frames(96_000))
    let converter = try AudioConverter(format: .f32, sampleRate: 44_100)
    let encoder = try AACEncoder(bitRate: 128_000)
    let muxer = ADTSMuxer(output: try FileOutput(path: "tone.aac"))
    // snippet.show
    // snippet.pipeline
    var pipeline = Pipeline(source: source, stages: [converter, encoder], sink: muxer)
    let result = try pipeline.run { progress in print(progress.position) }
    // snippet.end
    print(result.samplesWritten)
}

do {
    // snippet.hide
    var tone = try ToneGenerator(length: .frames(48_000))
    var pcmSamples: [MediaSample] = []
    while let sample = try tone.next() { pcmSamples.append(sample) }
    func send(_ packet: MediaSample) { print(packet.timing.presentationTime, packet.byteCount) }
    // snippet.show
    // snippet.checked
    let encoder = CheckedStage(try AACEncoder(bitRate: 96_000))
    for sample in pcmSamples { try encoder.process(sample) { packet in send(packet) } }
    try encoder.finish { packet in send(packet) }
    // snippet.end
}
