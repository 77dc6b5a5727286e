import ExampleSupport
import MediaPipeline

/// The command line of `h264-encoder`, parsed by hand (no dependency for a dozen flags).
struct Options {
    enum Input {
        /// A `.y4m`, `.yuv` or `.h264` file (by its extension; `.yuv` needs --size and --pix-fmt).
        case file(String)
        /// The generated test pattern.
        case pattern
    }

    var output = ""
    var input = Input.pattern
    var size: (width: Int, height: Int)?
    var pixelFormat: PixelFormat?
    var frames: Int?
    var durationSeconds: Double?
    var fps: FrameRate?
    var bitRate: Int?
    var maxRate: Int?
    var bufferSize: Int?
    var keyint: Int?
    var preset: String?
    var profile: String?
    var level: String?
    var realtime = false
    var bframes: Int?
    var encoderName = "libx264"
    var threads: Int?
    var accessUnitDelimiters = false
    var quiet = false

    static let usage = """
        usage: h264-encoder --output FILE.h264
                            [--input IN.y4m | --input IN.yuv --size WxH --pix-fmt FMT | --input IN.h264
                             | --pattern [--size WxH] [--frames N | --duration SECONDS]]
                            [--fps RATE] [--bitrate BITS] [--maxrate BITS --bufsize BITS] [--keyint N]
                            [--preset NAME] [--profile NAME] [--level N.N] [--realtime] [--bframes N]
                            [--encoder NAME] [--threads N] [--aud] [--quiet]

        Encodes raw video to H.264 and writes an Annex-B (.h264) file with SPS/PPS before every
        keyframe. Without --input, encodes the test pattern (moving colour bars with the frame number
        drawn in, 1280x720, 240 frames). An .h264 input is read, decoded and re-encoded. Other pixel
        formats (nv12, bgra, rgb24, ...) are converted to yuv420p first.

        Defaults follow the ffmpeg CLI's for libx264, so the same settings give the same stream:
        preset medium, CRF 23 unless --bitrate is given, keyframe interval 250, B-frames as the preset
        says (--bframes 0 turns reordering off). --fps defaults to the input's rate (25 for .yuv and the
        pattern). --realtime delivers the frames at the pace of their timestamps, as a camera does,
        and tunes the encoder for zero latency (no lookahead, no frame delay). --encoder picks
        another FFmpeg encoder (h264_nvenc, h264_vaapi) where the hardware exists. --threads sets
        the encoder's threads (default: automatic, as the CLI; with a bit rate, x264's output depends on
        its thread count). --aud starts every access unit with an access unit delimiter (x264's --aud,
        ffmpeg's -aud 1), which some hardware decoders and transport-stream muxers expect.
        --licence prints which FFmpeg libraries and codecs this binary uses, their licences and what
        that means for distributing it, and exits.
        """

    /// Parses `arguments` (without the program name); throws a one-line message on a bad flag.
    init(_ arguments: [String]) throws(UsageError) {
        var rest = ArgumentCursor(arguments)
        var sawPattern = false
        var sawInput = false
        while let flag = rest.next() {
            switch flag {
            case "--output", "-o": output = try rest.value(for: flag)
            case "--input", "-i":
                input = .file(try rest.value(for: flag))
                sawInput = true
            case "--pattern": sawPattern = true
            case "--size", "-s": size = try Self.parseSize(try rest.value(for: flag))
            case "--pix-fmt":
                let name = try rest.value(for: flag)
                guard let format = PixelFormat(rawValue: name) else {
                    throw UsageError("--pix-fmt '\(name)' is not one of \(PixelFormat.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                pixelFormat = format
            case "--frames": frames = try rest.number(for: flag, Int.self)
            case "--duration": durationSeconds = try rest.number(for: flag, Double.self)
            case "--fps", "-r": fps = try Self.parseRate(try rest.value(for: flag))
            case "--bitrate", "-b": bitRate = try rest.number(for: flag, Int.self)
            case "--maxrate": maxRate = try rest.number(for: flag, Int.self)
            case "--bufsize": bufferSize = try rest.number(for: flag, Int.self)
            case "--keyint", "-g": keyint = try rest.number(for: flag, Int.self)
            case "--preset": preset = try rest.value(for: flag)
            case "--profile": profile = try rest.value(for: flag)
            case "--level": level = try rest.value(for: flag)
            case "--realtime": realtime = true
            case "--bframes": bframes = try rest.number(for: flag, Int.self)
            case "--encoder": encoderName = try rest.value(for: flag)
            case "--threads": threads = try rest.number(for: flag, Int.self)
            case "--aud": accessUnitDelimiters = true
            case "--quiet", "-q": quiet = true
            case "--help", "-h": throw UsageError(Self.usage, isHelp: true)
            default: throw UsageError("unknown option '\(flag)' (see --help)")
            }
        }
        guard !output.isEmpty else { throw UsageError("--output is required (see --help)") }
        if sawPattern && sawInput { throw UsageError("give either --input or --pattern, not both") }
        if frames != nil && durationSeconds != nil { throw UsageError("give either --frames or --duration, not both") }
        if case .file(let path) = input {
            if path.hasSuffix(".yuv") && (size == nil || pixelFormat == nil) {
                throw UsageError("a .yuv input needs --size WxH and --pix-fmt")
            }
            if durationSeconds != nil { throw UsageError("--duration applies to --pattern only") }
        }
        if let f = frames, f <= 0 { throw UsageError("--frames must be positive") }
        if let d = durationSeconds, !(d > 0 && d <= 86_400) { throw UsageError("--duration must be between 0 and 86400 seconds") }
        if let b = bitRate, b <= 0 { throw UsageError("--bitrate must be positive") }
        if let k = keyint, k <= 0 { throw UsageError("--keyint must be positive") }
        if let b = bframes, !(0...16).contains(b) { throw UsageError("--bframes must be 0 to 16") }
        if let t = threads, !(0...64).contains(t) { throw UsageError("--threads must be 0 (automatic) to 64") }
        if (maxRate == nil) != (bufferSize == nil) { throw UsageError("give --maxrate and --bufsize together") }
    }

    /// `1280x720` → (1280, 720).
    static func parseSize(_ text: String) throws(UsageError) -> (width: Int, height: Int) {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw UsageError("--size takes WIDTHxHEIGHT, e.g. 1280x720, not '\(text)'")
        }
        return (w, h)
    }

    /// `24`, `30000/1001` or `29.97` → a rational rate.
    static func parseRate(_ text: String) throws(UsageError) -> FrameRate {
        let parts = text.split(separator: "/")
        if parts.count == 2, let n = Int32(parts[0]), let d = Int32(parts[1]), n > 0, d > 0 { return FrameRate(n, d) }
        if let n = Int32(text), n > 0 { return FrameRate(n) }
        if let value = Double(text), value > 0, value < 1000 {
            return FrameRate(Int32((value * 1000).rounded()), 1000)
        }
        throw UsageError("--fps takes a rate like 24, 30000/1001 or 29.97, not '\(text)'")
    }
}
