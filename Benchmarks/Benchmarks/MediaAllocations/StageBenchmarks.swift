import Benchmark
import MediaCore
import MediaFFmpeg
import MediaFormats

/// The stages: one run feeds 1000 samples to a stage opened by one sample before the measurement
/// starts; its finish (the encoder's or decoder's drain) is outside the measurement. What the stage
/// emits is counted and dropped, so buffers the stage recycles come back to it.
func stageBenchmarks() {
    Benchmark("AudioConverter") { benchmark in
        run(benchmark) { inputs in
            // Float to 16-bit and 48 kHz to 44.1 kHz: the resampler as well as the sample format.
            try measure(benchmark, AudioConverter(format: .s16, sampleRate: 44_100), inputs.floatPCM)
        }
    }
    Benchmark("AACEncoder") { benchmark in
        run(benchmark) { try measure(benchmark, AACEncoder(bitRate: 128_000), $0.floatPCM) }
    }
    Benchmark("AACDecoder") { benchmark in
        run(benchmark) { try measure(benchmark, AACDecoder(), $0.aacPackets) }
    }
    Benchmark("H264Encoder") { benchmark in
        run(benchmark) { inputs in
            var settings = H264Encoder.Settings()
            settings.threads = 1
            return try measure(benchmark, H264Encoder(settings: settings), inputs.videoFrames)
        }
    }
    // FFmpeg decodes H.264 on as many frame threads as there are CPUs (thread_count 0), and its
    // per-frame bookkeeping varies by a few mallocs between runs: half a malloc per frame of slack
    // still fails on one more malloc per frame. `make bench-check` pins the run to two CPUs.
    let decoderSlack = BenchmarkThresholds(absolute: [.p90: samplesPerRun / 2])
    Benchmark("H264Decoder", configuration: .init(thresholds: [.mallocCountTotal: decoderSlack])) { benchmark in
        run(benchmark) { try measure(benchmark, H264Decoder(), $0.h264Packets) }
    }
    // Groups of pictures (an IDR every 30 frames) on two workers, each with a single-threaded FFmpeg
    // decoder: FFmpeg's own per-frame mallocs without frame threads' copies. How many frames are in
    // flight, and so how many buffers FFmpeg's and our pools grow to, depends on the threads' timing:
    // the first 300 access units bring the pools near their size before the measured 1000, and five
    // runs still differed by up to 2400 mallocs (35.2k-37.6k), so the slack is 3 per frame: enough to
    // catch a return to frame threads' 86 per frame, not one more malloc per frame.
    let groupsSlack = BenchmarkThresholds(absolute: [.p90: 3 * samplesPerRun])
    Benchmark("H264Decoder.groupsOfPictures", configuration: .init(thresholds: [.mallocCountTotal: groupsSlack])) {
        benchmark in
        run(benchmark) { inputs in
            try measure(
                benchmark, H264Decoder(threading: .groupsOfPictures(workers: 2)), inputs.shortGOPPackets, warmUp: 300)
        }
    }
    Benchmark("Pipeline.3IdentityStages") { benchmark in
        run(benchmark) { inputs in
            let samples = Array(inputs.int16PCM.prefix(samplesPerRun))
            var pipeline = Pipeline(
                source: ArraySource(samples), stages: Array(repeating: IdentityStage(), count: 3),
                sink: CountingSink())
            benchmark.startMeasurement()
            let progress = try pipeline.run()
            benchmark.stopMeasurement()
            return Int(progress.samplesWritten)
        }
    }
    Benchmark("MediaGraph.3IdentityStages") { benchmark in
        run(benchmark) { inputs in
            let samples = Array(inputs.int16PCM.prefix(samplesPerRun))
            var graph = MediaGraph()
            let branch = graph.addBranch(
                source: ArraySource(samples), stages: Array(repeating: IdentityStage(), count: 3))
            graph.addSink(CountingSink(), input: branch)
            benchmark.startMeasurement()
            let progress = try graph.runSynchronously()
            benchmark.stopMeasurement()
            return Int(progress.sinks.first?.samplesWritten ?? 0)
        }
    }
}

/// Processes `samples[0]` unmeasured (it opens the codec), then `samples[1...1000]` measured, then
/// finishes unmeasured; returns how many samples were measured.
func measure(_ benchmark: Benchmark, _ stage: some MediaStage, _ samples: [MediaSample], warmUp: Int = 1) throws
    -> Int
{
    var stage = stage
    var emitted = 0
    let run = samples.prefix(samplesPerRun + warmUp)
    guard run.count > warmUp else { return 0 }
    for sample in run.prefix(warmUp) { try stage.process(sample) { _ in emitted += 1 } }
    benchmark.startMeasurement()
    for sample in run.dropFirst(warmUp) { try stage.process(sample) { _ in emitted += 1 } }
    benchmark.stopMeasurement()
    try stage.finish { _ in emitted += 1 }
    blackHole(emitted)
    return run.count - warmUp
}
