import ArgumentParser
import ExampleSupport
import MediaPipeline

/// `audio-convert --input IN --output OUT [...]`: `afconvert` for every file AudioFileReader reads.
struct AudioConvert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio-convert",
        abstract:
            "Convert an audio file, like afconvert: any WAVE, AIFF, AIFC, CAF, NeXT, ADTS or MP3 file → PCM or AAC.",
        discussion: """
            The input is read by AudioFileReader (any of the seven containers), decoded where it is not PCM \
            (AudioDecoder: MP3, AAC, ALAC, IMA4, IMA ADPCM, A-law, µ-law), converted only as asked, and written \
            in the container its extension names: .wav .aif/.aiff .caf .au (PCM), .aac (ADTS) and .m4a (AAC), \
            .caf also takes AAC. Without --rate, --channels, --bits or --float the PCM keeps the file's rate, \
            channels and sample type (Apple Lossless its source depth, other decoded audio 16-bit), so `--input x.mp3 --output x.wav` is \
            the decoded PCM. Priming and padding are trimmed: the output has exactly the input's valid frames. \
            Ctrl-C finishes the output and exits 130.

            Examples:
              audio-convert --input song.mp3 --output song.wav
              audio-convert --input take.aif --output take.caf --bits 24
              audio-convert -i voice.wav -o voice.m4a --bitrate 64000 --channels 1
              audio-convert --input old.au --output old.wav --rate 48000 --float
            """,
        version: "0.2.0")

    /// What the output holds.
    enum DataFormat: String, ExpressibleByArgument, CaseIterable {
        case lpcm, aac
    }

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to read.", valueName: "IN"))
    var input: String

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The file to write (its extension picks the container).", valueName: "OUT"))
    var output: String

    @Option(help: "lpcm or aac (default: aac for .aac and .m4a, else lpcm).")
    var format: DataFormat?

    @Option(help: ArgumentHelp("Resample to this rate.", valueName: "HZ"))
    var rate: Int?

    @Option(help: ArgumentHelp("Mix to this many channels.", valueName: "N"))
    var channels: Int?

    @Option(help: ArgumentHelp("AAC bit rate in bits per second.", valueName: "BPS"))
    var bitrate: Int = 128_000

    @Option(help: ArgumentHelp("PCM bits per sample: 16, 24 or 32.", valueName: "16|24|32"))
    var bits: Int?

    @Flag(help: "Write floating-point PCM (32-bit).")
    var float = false

    @Flag(name: .shortAndLong, help: "Print no progress line, no summary and no warnings (errors only).")
    var quiet = false
    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    @OptionGroup var logging: VerboseOption

    func validate() throws {
        guard let container = AudioConvertOutput(path: output) else {
            throw ValidationError(
                "cannot tell the container of '\(output)' from its extension; use .wav .aif .aiff .caf .au .aac or .m4a"
            )
        }
        let data = format ?? container.defaultFormat
        guard container.takes(data) else { throw ValidationError("\(container.name) cannot hold \(data.rawValue)") }
        if let bits, ![16, 24, 32].contains(bits) { throw ValidationError("--bits must be 16, 24 or 32, not \(bits)") }
        if float, let bits, bits != 32 { throw ValidationError("--float writes 32-bit samples; drop --bits \(bits)") }
        if let rate, !(1...768_000).contains(rate) { throw ValidationError("--rate \(rate) is not a sample rate") }
        if let channels, !(1...8).contains(channels) {
            throw ValidationError("--channels must be 1 to 8, not \(channels)")
        }
        if data == .aac, bits != nil || float { throw ValidationError("--bits and --float apply to lpcm output only") }
    }

    func run() throws {
        guard let container = AudioConvertOutput(path: output) else {
            throw ValidationError("cannot tell the container of '\(output)'")
        }
        let data = format ?? container.defaultFormat
        let reader = try AudioFileReader(path: input)
        let source = reader.format
        let fileType = reader.properties.fileType.map { "\($0)" } ?? "?"

        var stages: [any MediaStage] = []
        switch data {
        case .lpcm:
            let type =
                float
                ? PCMSampleType.f32
                : bits.map { $0 == 16 ? .s16 : $0 == 24 ? .s24 : .s32 } ?? source.sourceSampleType ?? .s16
            stages.append(AudioDecoder(outputFormat: PCMFormat(type)))
            if rate.map({ $0 != source.sampleRate }) == true || channels.map({ $0 != source.channelCount }) == true {
                stages.append(
                    try AudioConverter(
                        format: PCMFormat(type), sampleRate: rate,
                        channelLayout: channels.map { .default(channelCount: $0) }))
            }
        case .aac:
            if source.codec != .aac || rate != nil || channels != nil {
                stages.append(AudioDecoder(outputFormat: .f32Planar))
                if rate != nil || channels != nil {
                    stages.append(
                        try AudioConverter(
                            format: .f32Planar, sampleRate: rate,
                            channelLayout: channels.map { .default(channelCount: $0) }))
                }
                stages.append(try AACEncoder(bitRate: bitrate))
            }
        }

        // The reader's, decoders' and muxers' diagnostics, one line each on standard error, as ffmpeg prints warnings.
        var graph = MediaGraph(
            logger: ExampleLogHandler.logger(for: "audio-convert", verbose: logging.verbose, quiet: quiet))
        let branch = graph.addBranch(input, source: reader, stages: stages)
        try container.addSink(path: output, to: &graph, input: branch)
        let reporter = ProgressReporter(name: "audio-convert", verb: "converted", enabled: !quiet && output != "-")
        let progress = try graph.runSynchronously(stop: Interrupt.signal, progress: reporter.report)
        let wall = reporter.finish()
        guard !quiet else { return }
        let written = progress.sinks.first.map { "\(count: $0.samplesWritten, "sample")" } ?? ""
        printError(
            "audio-convert: \(fileType) \(source) → \(data.rawValue), \(written) "
                + "in \(formatDecimal(wall, 2)) s → \(output)"
                + (Interrupt.wasRequested ? " (interrupted: the file ends there)" : ""))
        // What the reader and decoders worked around, summed up in one line after the warnings themselves.
        let warning = InputWarnings.line(
            example: "audio-convert", path: input, warningCount: progress.warningCount, warnings: progress.warnings)
        if let warning { printError(warning) }
    }
}

/// The container the output's extension names.
enum AudioConvertOutput {
    case wav, aiff, caf, au, adts, m4a

    init?(path: String) {
        switch path.split(separator: ".").last.map({ $0.lowercased() }) {
        case "wav": self = .wav
        case "aif", "aiff", "aifc": self = .aiff
        case "caf": self = .caf
        case "au", "snd": self = .au
        case "aac", "adts": self = .adts
        case "m4a": self = .m4a
        default: return nil
        }
    }

    var name: String {
        switch self {
        case .wav: "WAVE"
        case .aiff: "AIFF"
        case .caf: "CAF"
        case .au: "NeXT/Sun .au"
        case .adts: "ADTS"
        case .m4a: "M4A"
        }
    }

    var defaultFormat: AudioConvert.DataFormat { self == .adts || self == .m4a ? .aac : .lpcm }

    func takes(_ format: AudioConvert.DataFormat) -> Bool {
        switch self {
        case .wav, .aiff, .au: format == .lpcm
        case .adts, .m4a: format == .aac
        case .caf: true
        }
    }

    /// Adds the muxer writing `path` as the sink of `branch`.
    func addSink(path: String, to graph: inout MediaGraph, input branch: MediaGraph.BranchID) throws {
        switch self {
        case .wav: graph.addSink(WAVMuxer(output: try FileOutput(path: path)), input: branch)
        case .aiff: graph.addSink(AIFFMuxer(output: try FileOutput(path: path)), input: branch)
        case .caf: graph.addSink(CAFMuxer(output: try FileOutput(path: path)), input: branch)
        case .au: graph.addSink(AUMuxer(output: try FileOutput(path: path)), input: branch)
        case .adts: graph.addSink(ADTSMuxer(output: try FileOutput(path: path)), input: branch)
        case .m4a: graph.addSink(try ContainerMuxer(path: path, format: .m4a), tracks: [branch])
        }
    }
}
