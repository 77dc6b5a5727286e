// aac-encoder: PCM (a WAV file or a generated tone) → AAC-LC → ADTS file.
// The pipeline is the one Examples/aac-encoder/README.md shows in code.
#if canImport(Glibc)
import Glibc
#endif
import ExampleSupport
import MediaPipeline

func run() throws -> Int32 {
    Interrupt.install()  // Ctrl-C: finish the file, exit 130
    let options: Options
    do {
        options = try Options(Array(CommandLine.arguments.dropFirst()))
    } catch {
        return error.report(as: "aac-encoder")
    }

    // Source: a WAV file, or a sine tone (phase 0, amplitude 0.5, 48 kHz stereo unless told otherwise).
    let source: any MediaSource
    let inputFormat: AudioFormat
    var wavReader: WAVReader?
    switch options.input {
    case .file(let path):
        let reader = try WAVReader(path: path)
        inputFormat = reader.format
        source = reader
        wavReader = reader
    case .tone(let frequency):
        let rate = options.sampleRate ?? 48_000
        let length: ToneGenerator.Length =
            if let frames = options.frames { .frames(frames) }
            else { .duration(MediaTime(value: Int64(((options.durationSeconds ?? 5) * Double(rate)).rounded()), timescale: Int32(rate))) }
        let tone = try ToneGenerator(
            .sine(frequency: frequency, amplitude: 0.5), sampleRate: rate, channels: options.channels ?? 2,
            sampleType: .f32, length: length)
        inputFormat = .pcm(.f32, sampleRate: rate, channels: options.channels ?? 2)
        source = tone
    }

    // Stages: convert rate or channels only when asked to (the encoder converts the sample format
    // itself), then encode.
    var stages: [any MediaStage] = []
    let wantsRate = options.sampleRate.map { $0 != inputFormat.sampleRate } ?? false
    let wantsChannels = options.channels.map { $0 != inputFormat.channelCount } ?? false
    if wantsRate || wantsChannels {
        stages.append(try AudioConverter(
            format: .f32Planar, sampleRate: options.sampleRate,
            channelLayout: options.channels.map { ChannelLayout.default(channelCount: $0) }))
    }
    let encoder = try AACEncoder(bitRate: options.bitRate)
    stages.append(encoder)

    // Sink: ADTS to the output file (or standard output for "-").
    let output = try FileOutput(path: options.output)
    // The library's diagnostics (a WAV file cut short …), one line each on standard error; --quiet: errors only.
    let logger = ExampleLogHandler.logger(for: "aac-encoder", verbose: false, quiet: options.quiet)
    wavReader?.logger = logger  // also when wrapped (RealTimeSource), where the pipeline cannot see it
    var pipeline = Pipeline(source: source, stages: stages, sink: ADTSMuxer(output: output), logger: logger)

    let progress = ProgressReporter(name: "aac-encoder", verb: "encoded", enabled: !options.quiet && options.output != "-")
    // By default everything runs on this thread: for audio alone, handing each packet to another
    // thread costs more than it saves (Benchmarks/README.md). --threads gives each stage its own.
    let result = options.threads ? try pipeline.runConcurrently(progress: progress.reportUntilInterrupted) : try pipeline.run(progress: progress.reportUntilInterrupted)
    let wall = progress.finish()
    let audioSeconds = Double(result.framesRead) / Double(inputFormat.sampleRate)
    let summary = "aac-encoder: \(count: result.framesRead, "frame") in, \(count: result.samplesWritten, "packet") out, "
        + "\(formatDecimal(audioSeconds, 3)) s of audio, \(count: result.bytesWritten, "byte") of AAC, "
        + "\(formatDecimal(audioSeconds / max(wall, 1e-9), 1))x realtime → \(options.output)"
    if !options.quiet { printError(summary) }
    return 0
}

runExample("aac-encoder", run)
