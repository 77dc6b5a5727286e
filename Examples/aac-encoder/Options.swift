import ExampleSupport
import MediaPipeline

/// The command line of `aac-encoder`, parsed by hand (no dependency for a dozen flags).
struct Options {
    enum Input {
        case file(String)
        case tone(frequency: Double)
    }

    var output = ""
    var input = Input.tone(frequency: 440)
    var durationSeconds: Double?
    var frames: Int64?
    var bitRate = 128_000
    var sampleRate: Int?
    var channels: Int?
    var quiet = false
    var threads = false

    static let usage = """
        usage: aac-encoder --output FILE.aac [--input IN.wav | --tone HZ [--duration SECONDS | --frames N]]
                           [--bitrate BITS] [--sample-rate HZ] [--channels N] [--quiet] [--threads]

        Encodes PCM to AAC-LC and writes an ADTS (.aac) file. Without --input, encodes a sine tone
        (440 Hz, amplitude 0.5, 48 kHz stereo, 5 seconds). --sample-rate and --channels default to the
        input's. --output - writes to standard output. --threads runs the encoder and the muxer on
        threads of their own (Pipeline.runConcurrently); by default everything runs on one thread, which
        measures faster for audio alone.
        --licence prints which FFmpeg libraries and codecs this binary uses, their licences and what
        that means for distributing it, and exits.
        """

    /// Parses `arguments` (without the program name); throws a one-line message on a bad flag.
    init(_ arguments: [String]) throws(UsageError) {
        var rest = ArgumentCursor(arguments)
        var sawTone = false
        var sawInput = false
        while let flag = rest.next() {
            switch flag {
            case "--output", "-o": output = try rest.value(for: flag)
            case "--input", "-i":
                input = .file(try rest.value(for: flag))
                sawInput = true
            case "--tone":
                input = .tone(frequency: try rest.number(for: flag, Double.self))
                sawTone = true
            case "--duration": durationSeconds = try rest.number(for: flag, Double.self)
            case "--frames": frames = try rest.number(for: flag, Int64.self)
            case "--bitrate", "-b": bitRate = try rest.number(for: flag, Int.self)
            case "--sample-rate", "-r": sampleRate = try rest.number(for: flag, Int.self)
            case "--channels", "-c": channels = try rest.number(for: flag, Int.self)
            case "--quiet", "-q": quiet = true
            case "--threads": threads = true
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
        if let d = durationSeconds, !(d > 0 && d <= 86_400) { throw UsageError("--duration must be between 0 and 86400 seconds") }
        if let f = frames, f <= 0 { throw UsageError("--frames must be positive") }
        if let c = channels, !(1...8).contains(c) { throw UsageError("--channels must be 1 to 8") }
    }
}
