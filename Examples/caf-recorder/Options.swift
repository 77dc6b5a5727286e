import ExampleSupport
import MediaPipeline

/// The command line of `caf-recorder`, parsed by hand (no dependency for a dozen flags).
struct Options {
    enum Input {
        case file(String)
        case tone(frequency: Double)
    }

    enum Format: String {
        case aac
        case lpcm
    }

    var output = ""
    var format = Format.aac
    var input = Input.tone(frequency: 440)
    var durationSeconds: Double?
    var frames: Int64?
    var bitRate = 96_000
    var realtime = false
    var quiet = false

    static let usage = """
        usage: caf-recorder --output FILE.caf [--format aac|lpcm] [--bitrate BITS]
                            [--tone HZ [--duration SECONDS | --frames N] | --input IN.wav|IN.caf|IN.aac]
                            [--realtime] [--quiet]

        Records PCM into a Core Audio Format file, as Apple's AudioFile does: AAC (the default, with its
        magic cookie and packet table) or 16-bit linear PCM. Without --input, records a sine tone (440 Hz,
        amplitude 0.5, 48 kHz stereo, 5 seconds). An ADTS (.aac) input, or an AAC CAF, with --format aac
        is remuxed without re-encoding; with --format lpcm it is decoded. --realtime delivers the input at
        the pace of real time, as a microphone would.
        --licence prints which FFmpeg libraries and codecs this binary uses, their licences and what
        that means for distributing it, and exits.
        """

    /// Parses `arguments` (without the program name); throws a one-line message on a bad flag.
    init(_ arguments: [String]) throws(UsageError) {
        var rest = ArgumentCursor(arguments)
        var sawTone = false
        var sawInput = false
        var sawBitRate = false
        while let flag = rest.next() {
            switch flag {
            case "--output", "-o": output = try rest.value(for: flag)
            case "--format", "-f":
                let text = try rest.value(for: flag)
                guard let f = Format(rawValue: text) else { throw UsageError("--format is aac or lpcm, not '\(text)'") }
                format = f
            case "--input", "-i":
                input = .file(try rest.value(for: flag))
                sawInput = true
            case "--tone":
                input = .tone(frequency: try rest.number(for: flag, Double.self))
                sawTone = true
            case "--duration": durationSeconds = try rest.number(for: flag, Double.self)
            case "--frames": frames = try rest.number(for: flag, Int64.self)
            case "--bitrate", "-b":
                bitRate = try rest.number(for: flag, Int.self)
                sawBitRate = true
            case "--realtime": realtime = true
            case "--quiet", "-q": quiet = true
            case "--help", "-h": throw UsageError(Self.usage, isHelp: true)
            default: throw UsageError("unknown option '\(flag)' (see --help)")
            }
        }
        guard !output.isEmpty else { throw UsageError("--output is required (see --help)") }
        if sawTone && sawInput { throw UsageError("give either --input or --tone, not both") }
        if durationSeconds != nil && frames != nil { throw UsageError("give either --duration or --frames, not both") }
        if sawInput && (durationSeconds != nil || frames != nil) {
            throw UsageError("--duration and --frames apply to --tone only")
        }
        if sawBitRate && format == .lpcm { throw UsageError("--bitrate applies to --format aac only") }
        if let d = durationSeconds, !(d > 0 && d <= 86_400) { throw UsageError("--duration must be between 0 and 86400 seconds") }
        if let f = frames, f <= 0 { throw UsageError("--frames must be positive") }
        if case .tone(let hz) = input, !(hz >= 0 && hz < 24_000) { throw UsageError("--tone must be between 0 and 24000 Hz") }
        if bitRate <= 0 { throw UsageError("--bitrate must be positive") }
    }
}
