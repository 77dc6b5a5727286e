// Volume, pan and rate on decoded audio, as AVAudioPlayer's properties: each stage follows an AudioParameter
// that any thread may set while the stage runs. Here a tone stands in for the decoder.
import MediaPipeline

// snippet.effects
let volume = AudioParameter.volume(1), pan = AudioParameter.pan(0), rate = AudioParameter.rate(1)
let stretch = TimeStretch(rate: rate)
// decoder ─▶ AudioConverter(format: .f32) ─▶ stretch ─▶ GainStage(volume:) ─▶ PanStage(pan:) ─▶ output
// snippet.hide
var playback = Pipeline(
    source: try ToneGenerator(sampleType: .s16, length: .frames(96_000)),
    stages: [try AudioConverter(format: .f32), stretch, GainStage(volume: volume), PanStage(pan: pan)],
    sink: CollectingSink())
// snippet.show
rate.value = 2  // twice as fast, same pitch
volume.value = 0.5  // −6.02 dB, ramped over 20 ms
pan.value = -1  // right channel fades out
// snippet.end
let result = try playback.run()
print(result.framesRead, result.samplesWritten)
