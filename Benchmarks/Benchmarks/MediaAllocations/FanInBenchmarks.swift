import Benchmark
import MediaAudio
import MediaCore
import MediaFFmpeg

/// The fan-in sources: 1000 output buffers of a two-input `AudioMixer` (file inputs, 1024-frame buffers,
/// a gain change ramped in the middle), and 1000 canvas frames of a picture-in-picture `VideoCompositor`
/// (a 64×64 input full canvas, another scaled into a 32×32 inset). The inputs are read from memory.
func fanInBenchmarks() {
    Benchmark("AudioMixer.2Inputs") { benchmark in
        run(benchmark) { inputs in
            let first = AudioMixer.Input(source: ArraySource(inputs.floatPCM))
            let second = AudioMixer.Input(source: ArraySource(inputs.floatPCM), gain: 0.5)
            let mixer = try AudioMixer(sampleRate: 48_000, channels: 2, inputs: [first, second])
            _ = try mixer.next()  // the inputs' first reads
            var count = 0
            benchmark.startMeasurement()
            while count < samplesPerRun, let sample = try mixer.next() {
                if count == samplesPerRun / 2 { second.controls.gain.value = 0.25 }
                count += sample.frameCount > 0 ? 1 : 0
            }
            benchmark.stopMeasurement()
            return count
        }
    }
    Benchmark("VideoCompositor.PictureInPicture") { benchmark in
        run(benchmark) { inputs in
            let canvas = VideoCompositor.Canvas(width: 64, height: 64, frameRate: FrameRate(30))
            let compositor = try VideoCompositor(
                canvas: canvas,
                inputs: [
                    VideoCompositor.Input(source: ArraySource(inputs.videoFrames), layout: .fullCanvas(canvas)),
                    VideoCompositor.Input(
                        source: ArraySource(inputs.videoFrames),
                        layout: VideoCompositor.Layout(x: 24, y: 24, width: 32, height: 32, zIndex: 1))
                ])
            _ = try compositor.next()  // the layers' frames and scaler
            var count = 0
            benchmark.startMeasurement()
            while count < samplesPerRun, try compositor.next() != nil { count += 1 }
            benchmark.stopMeasurement()
            return count
        }
    }
}
