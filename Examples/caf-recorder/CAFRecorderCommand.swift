import ArgumentParser
import ExampleSupport
import MediaPipeline

/// `caf-recorder --output FILE.caf [--format aac|lpcm] …`: PCM (a tone, a WAV or PCM CAF file) → AAC-LC or
/// linear PCM → CAF, the way Apple's AudioFile records; AAC input (ADTS or CAF) is remuxed or decoded.
struct CAFRecorderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caf-recorder",
        abstract: "Record PCM into a Core Audio Format (.caf) file, as Apple's AudioFile does: AAC-LC or linear PCM.",
        discussion: """
            AAC (the default) is written with its magic cookie and packet table (priming and remainder \
            frames), so playback is sample-exact; --format lpcm writes 16-bit (or the input's) PCM. Without \
            --input, records a sine tone (440 Hz, amplitude 0.5, 48 kHz stereo, 5 seconds). An ADTS (.aac) \
            input, or an AAC CAF, is remuxed without re-encoding with --format aac and decoded with --format \
            lpcm; ADTS carries no priming, so a remuxed ADTS file has priming 0 and remainder 0. --realtime \
            delivers the input at the pace of real time, as a microphone would. Ctrl-C finishes the file and \
            exits 130.

            Examples:
              caf-recorder --output rec.caf
              caf-recorder --output rec.caf --tone 1000 --frames 100000 --bitrate 128000
              caf-recorder --output take.caf --format lpcm --input take.wav
              caf-recorder --output song.caf --input song.aac
            """,
        version: "0.2.0")

    /// What the file holds.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case aac
        case lpcm
    }

    @Option(name: .shortAndLong, help: ArgumentHelp("The .caf file to write.", valueName: "FILE"))
    var output: String

    @Option(name: .shortAndLong, help: "AAC-LC or linear PCM.")
    var format: Format = .aac

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The AAC bit rate in bits per second (default 96000; --format aac only).", valueName: "BITS")
    )
    var bitrate: Int?

    @Option(
        help: ArgumentHelp("Record a sine at HZ Hz, 48 kHz stereo (the default input, at 440 Hz).", valueName: "HZ"))
    var tone: Double?

    @Option(help: ArgumentHelp("The tone's length in seconds (default 5).", valueName: "SECONDS"))
    var duration: Double?

    @Option(help: ArgumentHelp("The tone's length in frames.", valueName: "N"))
    var frames: Int64?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "A WAV file, a CAF file (PCM or AAC) or an ADTS .aac file to record.", valueName: "IN.wav|IN.caf|IN.aac"))
    var input: String?

    @Flag(help: "Deliver the input at the pace of real time, as a microphone would.")
    var realtime = false

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
        if bitrate != nil && format == .lpcm { throw ValidationError("--bitrate applies to --format aac only") }
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be between 0 and 86400 seconds")
        }
        if let frames, frames <= 0 { throw ValidationError("--frames must be positive") }
        if let tone, !(tone >= 0 && tone < 24_000) { throw ValidationError("--tone must be between 0 and 24000 Hz") }
        if let bitrate, bitrate <= 0 { throw ValidationError("--bitrate must be positive") }
        if let input { _ = try InputKind(path: input) }
    }

    func run() throws {
        try CAFRecording(self).run()
    }
}
