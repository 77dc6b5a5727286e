import ArgumentParser
import ExampleSupport
import MediaPipeline

/// `aac-encoder --output FILE.aac [--input IN.wav | --tone HZ …]`: PCM (a WAV file or a generated tone)
/// → AAC-LC → ADTS (or CAF, or M4A, by the output's extension), the pipeline README.md shows in code.
struct AACEncoderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aac-encoder",
        abstract: "Encode PCM (a WAV file or a sine tone) to AAC-LC and write an ADTS (.aac), CAF or M4A file.",
        discussion: """
            Without --input, encodes a sine tone (440 Hz, amplitude 0.5, phase 0, 48 kHz stereo, 5 seconds). \
            --sample-rate and --channels convert first and default to the input's. With the same input and \
            bit rate the file is byte-identical to `ffmpeg -i in.wav -c:a aac -b:a 128k -f adts out.aac`. \
            The output's extension picks the container: .caf (CAFMuxer), .m4a or .mp4 (ContainerMuxer), \
            anything else (and '-') ADTS. \
            --parallel cuts a WAV file into segments encoded on all CPUs at once (ParallelAACEncoder): one \
            valid stream with the serial encode's priming, length and quality, not its bytes. It is on by \
            itself for WAV files of at least 3072 AAC packets (65.5 s at 48 kHz) when there are two CPUs \
            or more; --no-parallel turns it off. Otherwise everything runs on one thread, which measures \
            faster for audio alone; --threads runs the encoder and the muxer on threads of their own \
            (Pipeline.runConcurrently). A WAV file cut short is encoded as far as it goes, with a warning. \
            Ctrl-C finishes the file and exits 130.

            Examples:
              aac-encoder --output tone.aac
              aac-encoder --output tone.aac --tone 1000 --frames 240000 --bitrate 96000
              aac-encoder -i speech.wav -o speech.aac --sample-rate 44100 --channels 1
              aac-encoder --input in.wav --output - | ffplay -
              aac-encoder --input long.wav --output long.m4a --parallel
            """,
        version: "0.2.0")

    @Option(
        name: .shortAndLong, help: ArgumentHelp("The .aac file to write ('-' for standard output).", valueName: "FILE"))
    var output: String

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "A WAV file: 8/16/24/32-bit integer or 32/64-bit float PCM, 1–8 channels.", valueName: "IN.wav"))
    var input: String?

    @Option(
        help: ArgumentHelp("Encode a sine at HZ Hz instead of a file (the default input, at 440 Hz).", valueName: "HZ"))
    var tone: Double?

    @Option(help: ArgumentHelp("The tone's length in seconds (default 5).", valueName: "SECONDS"))
    var duration: Double?

    @Option(help: ArgumentHelp("The tone's length in frames.", valueName: "N"))
    var frames: Int64?

    @Option(name: .shortAndLong, help: ArgumentHelp("The AAC bit rate in bits per second.", valueName: "BITS"))
    var bitrate = 128_000

    @Option(
        name: [.customShort("r"), .long],
        help: ArgumentHelp(
            "Convert to this sample rate first (default: the input's; the tone's is 48000).", valueName: "HZ"))
    var sampleRate: Int?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Convert to this many channels first (default: the input's; the tone has 2).", valueName: "N"))
    var channels: Int?

    @Flag(help: "Run the encoder and the muxer on threads of their own (same output; slower for audio alone).")
    var threads = false

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Encode segments of a WAV file on all CPUs at once (default: on from 3072 packets with 2+ CPUs)."))
    var parallel: Bool?

    @Flag(name: .shortAndLong, help: "Print no progress line, no summary and no warnings (errors only).")
    var quiet = false

    @OptionGroup var logging: VerboseOption

    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        if tone != nil && input != nil { throw ValidationError("give either --input or --tone, not both") }
        if duration != nil && frames != nil { throw ValidationError("give either --duration or --frames, not both") }
        if input != nil && (duration != nil || frames != nil) {
            throw ValidationError("--duration and --frames apply to --tone only")
        }
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be between 0 and 86400 seconds")
        }
        if let frames, frames <= 0 { throw ValidationError("--frames must be positive") }
        if let channels, !(1...8).contains(channels) { throw ValidationError("--channels must be 1 to 8") }
        if parallel == true {
            guard let input, input != "-" else { throw ValidationError("--parallel needs a WAV file as --input") }
            if sampleRate != nil || channels != nil {
                throw ValidationError("--parallel encodes the file as it is: drop --sample-rate and --channels")
            }
            if threads { throw ValidationError("give either --parallel or --threads, not both") }
        }
    }

    func run() throws {
        if let input, try usesParallel(input: input) { return try runParallel(input: input) }
        // Source: a WAV file, or a sine tone (phase 0, amplitude 0.5, 48 kHz stereo unless told otherwise).
        let source: any MediaSource
        let inputFormat: AudioFormat
        var wavReader: WAVReader?
        if let input {
            let reader = try WAVReader(path: input)
            inputFormat = reader.format
            source = reader
            wavReader = reader
        } else {
            let rate = sampleRate ?? 48_000
            let length: ToneGenerator.Length =
                if let frames { .frames(frames) } else {
                    .duration(
                        MediaTime(value: Int64(((duration ?? 5) * Double(rate)).rounded()), timescale: Int32(rate)))
                }
            source = try ToneGenerator(
                .sine(frequency: tone ?? 440, amplitude: 0.5), sampleRate: rate, channels: channels ?? 2,
                sampleType: .f32, length: length)
            inputFormat = .pcm(.f32, sampleRate: rate, channels: channels ?? 2)
        }

        // Stages: convert rate or channels only when asked to (the encoder converts the sample format
        // itself), then encode.
        var stages: [any MediaStage] = []
        let wantsRate = sampleRate.map { $0 != inputFormat.sampleRate } ?? false
        let wantsChannels = channels.map { $0 != inputFormat.channelCount } ?? false
        if wantsRate || wantsChannels {
            stages.append(
                try AudioConverter(
                    format: .f32Planar, sampleRate: sampleRate,
                    channelLayout: channels.map { ChannelLayout.default(channelCount: $0) }))
        }
        stages.append(try AACEncoder(bitRate: bitrate))

        // The library's diagnostics (a WAV file cut short …), one line each on standard error; --quiet:
        // errors only, --verbose: debug and up.
        let logger = ExampleLogHandler.logger(for: "aac-encoder", verbose: logging.verbose, quiet: quiet)
        wavReader?.logger = logger  // also when wrapped (RealTimeSource), where the pipeline cannot see it
        var pipeline = Pipeline(source: source, stages: stages, sink: try makeSink(), logger: logger)

        let progress = ProgressReporter(name: "aac-encoder", verb: "encoded", enabled: !quiet && output != "-")
        // By default everything runs on this thread: for audio alone, handing each packet to another
        // thread costs more than it saves (Benchmarks/README.md). --threads gives each stage its own.
        let result =
            threads
            ? try pipeline.runConcurrently(progress: progress.reportUntilInterrupted)
            : try pipeline.run(progress: progress.reportUntilInterrupted)
        let wall = progress.finish()
        guard !quiet else { return }
        let audioSeconds = Double(result.framesRead) / Double(inputFormat.sampleRate)
        printError(
            "aac-encoder: \(count: result.framesRead, "frame") in, \(count: result.samplesWritten, "packet") out, "
                + "\(formatDecimal(audioSeconds, 3)) s of audio, \(count: result.bytesWritten, "byte") of AAC, "
                + "\(formatDecimal(audioSeconds / max(wall, 1e-9), 1))x realtime → \(output)")
        if let input, let wavReader, let line = InputWarnings.line(example: "aac-encoder", path: input, wav: wavReader)
        {
            printError(line)
        }
    }
}
