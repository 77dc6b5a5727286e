import ArgumentParser
import ExampleSupport
import MediaPipeline

/// `h264-encoder --output FILE.h264 [--input IN | --pattern] …`: raw video (a .y4m or .yuv file, the test
/// pattern) or an .h264 file → H.264 → Annex-B, with the ffmpeg CLI's libx264 defaults.
struct H264EncoderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "h264-encoder",
        abstract: "Encode raw video to H.264 and write an Annex-B (.h264) file with SPS/PPS before every keyframe.",
        discussion: """
            Without --input, encodes the test pattern (moving colour bars with the frame number drawn in, \
            1280x720, 25 fps, 240 frames). A .y4m input carries its own size and rate; a .yuv input needs \
            --size and --pix-fmt; an .h264 input is read, decoded and re-encoded, and damage the decoder gets \
            past is reported in a warning line. Pixel formats libx264 does not take (bgra, rgb24, …) are \
            converted to yuv420p first, and so are .h264 inputs of any kind (10-bit High 10, 4:2:2, 4:4:4): \
            8-bit 4:2:0 plays everywhere. --pixel-format chooses another, e.g. yuv420p10le to keep 10 bits.

            Defaults follow the ffmpeg CLI's for libx264, so the same settings give the same stream: preset \
            medium, CRF 23 unless --bitrate is given, keyframe interval 250, B-frames as the preset says. \
            --realtime delivers the frames at the pace of their timestamps, as a camera does, and tunes the \
            encoder for zero latency. Ctrl-C finishes the file and exits 130.

            Examples:
              h264-encoder --output video.h264
              h264-encoder -o video.h264 --size 640x360 --frames 120 --fps 24 -g 24
              h264-encoder -o video.h264 -i in.y4m --bitrate 1500000 --preset veryfast
              h264-encoder -o video.h264 -i in.yuv --size 1280x720 --pix-fmt nv12
              h264-encoder -o again.h264 -i other.h264 --bframes 0
              h264-encoder -o keep10.h264 -i high10.h264 --pixel-format yuv420p10le
            """,
        version: "0.2.0")

    @Option(
        name: .shortAndLong, help: ArgumentHelp("The .h264 file to write ('-' for standard output).", valueName: "FILE")
    )
    var output: String

    @Option(name: .shortAndLong, help: ArgumentHelp("A .y4m, .yuv or .h264 file (by its extension).", valueName: "IN"))
    var input: String?

    @Flag(help: "Encode the test pattern (the default input).")
    var pattern = false

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The pattern's size (default 1280x720) or a raw input's.", valueName: "WxH"))
    var size: String?

    @Option(
        name: .customLong("pix-fmt"),
        help: ArgumentHelp(
            "A raw input's pixel format: yuv420p, yuv422p, yuv444p, nv12, bgra, rgb24 or gray.", valueName: "FMT"))
    var pixFmt: String?

    @Option(
        name: .customLong("pixel-format"),
        help: ArgumentHelp(
            "The pixel format to encode: \(encodablePixelFormats.map(\.rawValue).joined(separator: ", ")) "
                + "(default: yuv420p, or a raw input's own when libx264 takes it).",
            valueName: "FMT"))
    var encodedPixelFormatName: String?

    @Option(help: ArgumentHelp("The pattern's length (default 240); also caps a file input.", valueName: "N"))
    var frames: Int?

    @Option(help: ArgumentHelp("The pattern's length in seconds.", valueName: "SECONDS"))
    var duration: Double?

    @Option(
        name: [.customShort("r"), .long],
        help: ArgumentHelp(
            "24, 30000/1001 or 29.97: the pattern's, a raw input's and an .h264's rate (default 25).", valueName: "RATE"
        ))
    var fps: String?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The average bit rate (default: CRF 23, as the ffmpeg CLI).", valueName: "BITS"))
    var bitrate: Int?

    @Option(help: ArgumentHelp("The VBV maximum rate (with --bufsize).", valueName: "BITS"))
    var maxrate: Int?

    @Option(help: ArgumentHelp("The VBV buffer size (with --maxrate).", valueName: "BITS"))
    var bufsize: Int?

    @Option(
        name: [.customShort("g"), .long],
        help: ArgumentHelp("The most frames between keyframes (default 250).", valueName: "N"))
    var keyint: Int?

    @Option(help: ArgumentHelp("The x264 preset, ultrafast … placebo (default medium).", valueName: "NAME"))
    var preset: String?

    @Option(help: ArgumentHelp("baseline, main or high.", valueName: "NAME"))
    var profile: String?

    @Option(help: ArgumentHelp("The level as in Annex A, e.g. 3.1.", valueName: "N.N"))
    var level: String?

    @Flag(help: "Deliver frames at the pace of their timestamps and tune libx264 for zero latency.")
    var realtime = false

    @Option(help: ArgumentHelp("At most N consecutive B-frames; 0 turns frame reordering off.", valueName: "N"))
    var bframes: Int?

    @Option(help: ArgumentHelp("Another FFmpeg H.264 encoder (h264_nvenc, h264_vaapi).", valueName: "NAME"))
    var encoder = "libx264"

    @Option(help: ArgumentHelp("Encoder threads (default: automatic, as the CLI's -threads).", valueName: "N"))
    var threads: Int?

    @Flag(help: "Start every access unit with an access unit delimiter (x264's --aud).")
    var aud = false

    @Flag(name: .shortAndLong, help: "Print no progress line, no summary and no warnings (errors only).")
    var quiet = false

    @OptionGroup var logging: VerboseOption

    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        _ = try videoSize
        _ = try pixelFormat
        _ = try encodedPixelFormat
        _ = try frameRate
        if pattern && input != nil { throw ValidationError("give either --input or --pattern, not both") }
        if frames != nil && duration != nil { throw ValidationError("give either --frames or --duration, not both") }
        if let input {
            if input.hasSuffix(".yuv") && (size == nil || pixFmt == nil) {
                throw ValidationError("a .yuv input needs --size WxH and --pix-fmt")
            }
            if duration != nil { throw ValidationError("--duration applies to --pattern only") }
        }
        if let frames, frames <= 0 { throw ValidationError("--frames must be positive") }
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be between 0 and 86400 seconds")
        }
        if let bitrate, bitrate <= 0 { throw ValidationError("--bitrate must be positive") }
        if let keyint, keyint <= 0 { throw ValidationError("--keyint must be positive") }
        if let bframes, !(0...16).contains(bframes) { throw ValidationError("--bframes must be 0 to 16") }
        if let threads, !(0...64).contains(threads) { throw ValidationError("--threads must be 0 (automatic) to 64") }
        if (maxrate == nil) != (bufsize == nil) { throw ValidationError("give --maxrate and --bufsize together") }
    }

    /// `--size`: `1280x720` → (1280, 720).
    var videoSize: (width: Int, height: Int)? {
        get throws(ValidationError) {
            guard let size else { return nil }
            let parts = size.split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
                throw ValidationError("--size takes WIDTHxHEIGHT, e.g. 1280x720, not '\(size)'")
            }
            return (w, h)
        }
    }

    /// `--pix-fmt`, by FFmpeg's name.
    var pixelFormat: PixelFormat? {
        get throws(ValidationError) {
            guard let pixFmt else { return nil }
            guard let format = PixelFormat(rawValue: pixFmt) else {
                let names = PixelFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--pix-fmt '\(pixFmt)' is not one of \(names)")
            }
            return format
        }
    }

    /// `--pixel-format`, by FFmpeg's name: one libx264 encodes.
    var encodedPixelFormat: PixelFormat? {
        get throws(ValidationError) {
            guard let name = encodedPixelFormatName else { return nil }
            guard let format = PixelFormat(rawValue: name), encodablePixelFormats.contains(format) else {
                let names = encodablePixelFormats.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--pixel-format '\(name)' is not one of \(names)")
            }
            return format
        }
    }

    /// `--fps`: `24`, `30000/1001` or `29.97` → a rational rate.
    var frameRate: FrameRate? {
        get throws(ValidationError) {
            guard let text = fps else { return nil }
            let parts = text.split(separator: "/")
            if parts.count == 2, let n = Int32(parts[0]), let d = Int32(parts[1]), n > 0, d > 0 {
                return FrameRate(n, d)
            }
            if let n = Int32(text), n > 0 { return FrameRate(n) }
            if let value = Double(text), value > 0, value < 1000 {
                return FrameRate(Int32((value * 1000).rounded()), 1000)
            }
            throw ValidationError("--fps takes a rate like 24, 30000/1001 or 29.97, not '\(text)'")
        }
    }

    func run() throws {
        try H264Encoding(self).run()
    }
}
