import ArgumentParser
import ExampleSupport
import Foundation
import MediaPipeline

/// `av-mixer`: audio inputs mixed (`AudioMixer`), video inputs composited on a canvas with text
/// (`VideoCompositor`), written unencoded (`.wav`, `.y4m`) or encoded to H.264 + AAC into every
/// container and stream URL `av-encoder` and `live-streamer` write.
struct AVMixer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "av-mixer",
        abstract: "Mix audio inputs and composite video inputs into files and streams.",
        discussion: """
            Each --audio SPEC and --video SPEC is an input: a path (.wav or any file FFmpeg reads; .y4m or \
            a video file), tone:HZ, pattern (the test pattern at the canvas's size), pulse:DEVICE (a \
            PulseAudio source: the mix then runs live, on one clock) or image:PATH (a PNG or JPEG, its \
            alpha kept). Options follow after commas: audio gain=G (linear), pan=P (-1...1), offset=S \
            (seconds); video x=, y=, w=, h= (pixels; the picture keeps its shape inside w x h), z= \
            (stacking order), alpha= (0...1), offset=S.

            Every --output gets the same mix: .wav is the audio mix itself (32-bit float, or --bits 16), \
            .y4m the video; .mp4 .mov .m4a .ts .flv .mkv .aac .h264 and rtmp:// srt:// udp:// URLs get it \
            encoded (H.264 + AAC, from one encode). The mix ends with its last file input, or at \
            --duration (needed with tones, patterns and devices, which never end). Ctrl-C finishes every file.

            Examples:
              av-mixer --audio music.wav,gain=0.5 --audio voice.wav,offset=2 --output mix.wav
              av-mixer --video pattern --video talk.y4m,x=944,y=524,w=320,h=180 --audio tone:440 \\
                       --text 'LIVE,x=24,y=24,size=48' --duration 10 --output pip.mp4
              av-mixer --audio pulse:mic --audio pulse:app.monitor,gain=0.3 --duration 60 --output both.wav
            """,
        version: "0.1.0")

    @Option(help: ArgumentHelp("An audio input and its options (repeatable).", valueName: "SPEC"))
    var audio: [String] = []

    @Option(help: ArgumentHelp("A video input and its options (repeatable).", valueName: "SPEC"))
    var video: [String] = []

    @Option(help: ArgumentHelp("Text on the canvas: 'STRING,x=X,y=Y,size=PX' (repeatable).", valueName: "SPEC"))
    var text: [String] = []

    @Option(help: ArgumentHelp("The video canvas: size and frame rate.", valueName: "WxH@FPS"))
    var canvas = CanvasSpec(argument: "1280x720@30")!

    @Option(help: "How many seconds to mix (needed with tone:, pattern and pulse: inputs, which never end).")
    var duration: Double?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "A file or stream URL to write (repeatable): .wav .y4m, containers, rtmp:// srt:// udp://.",
            valueName: "PATH"))
    var output: [String] = []

    @Option(help: ArgumentHelp("Bits per sample of a .wav output: 32 (float) or 16.", valueName: "BITS"))
    var bits = 32

    @Option(help: "The mix's sample rate in Hz.")
    var sampleRate = 48_000

    @Option(help: "The mix's channel count (1 or 2).")
    var channels = 2

    @Option(
        help: ArgumentHelp(
            "In a live mix (a pulse: input), how long a buffer waits for a late input, in milliseconds (a PulseAudio monitor's capture reports about 200 ms).",
            valueName: "MS"))
    var latency = 500

    @Flag(help: "Limit the audio mix to -1 dBFS (a brick-wall limiter) instead of letting it clip.")
    var limit = false

    @OptionGroup var encoding: EncoderOptions

    @Flag(name: .shortAndLong, help: "Print no progress line, no summary and no warnings (errors only).")
    var quiet = false

    @OptionGroup var logging: VerboseOption

    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard !output.isEmpty else { throw ValidationError("give at least one --output") }
        guard !audio.isEmpty || !video.isEmpty || !text.isEmpty else {
            throw ValidationError("give at least one --audio, --video or --text input")
        }
        let audioSpecs = try audio.map(InputSpec.parse)
        let videoSpecs = try video.map(InputSpec.parse)
        for spec in audioSpecs {
            try spec.validate(keys: ["gain", "pan", "offset"], kind: "audio")
            if case .pattern = spec.origin {
                throw ValidationError("--audio pattern: a pattern is video (--video pattern)")
            }
            if case .image = spec.origin { throw ValidationError("--audio \(spec.text): an image is video (--video)") }
        }
        for spec in videoSpecs {
            try spec.validate(keys: ["x", "y", "w", "h", "z", "alpha", "offset"], kind: "video")
            if case .tone = spec.origin { throw ValidationError("--video \(spec.text): a tone is audio (--audio)") }
            if case .pulse = spec.origin { throw ValidationError("--video \(spec.text): pulse: is an audio device") }
        }
        _ = try text.map(TextSpec.parse)
        let endless = (audioSpecs + videoSpecs).first {
            switch $0.origin {
            case .tone, .pattern, .pulse: true
            case .file, .image: false
            }
        }
        let hasFile = (audioSpecs + videoSpecs).contains { if case .file = $0.origin { true } else { false } }
        if duration == nil, let endless {
            throw ValidationError("'\(endless.text)' never ends: give --duration SECONDS")
        }
        if duration == nil && !hasFile {
            throw ValidationError("images and text never end: give --duration SECONDS")
        }
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be between 0 and 86400 seconds")
        }
        guard (1...10_000).contains(latency) else { throw ValidationError("--latency must be 1...10000 ms") }
        guard bits == 16 || bits == 32 else { throw ValidationError("--bits must be 16 or 32") }
        guard (1...2).contains(channels) else { throw ValidationError("--channels must be 1 or 2") }
        guard (8_000...192_000).contains(sampleRate) else {
            throw ValidationError("--sample-rate must be 8000...192000")
        }
        for path in output {
            guard let kind = MixOutput(path: path) else {
                throw ValidationError(
                    "cannot tell what to write to '\(path)' from its extension: use .wav .y4m .mp4 .mov .m4a .ts .flv .mkv .aac .h264 or a stream URL"
                )
            }
            if kind.takesAudioOnly && audio.isEmpty { throw ValidationError("\(path) needs an --audio input") }
            if kind.takesVideoOnly && video.isEmpty && text.isEmpty {
                throw ValidationError("\(path) needs a --video or --text input")
            }
        }
    }

    func run() throws {
        let limitTime = duration.map { MediaTime(value: Int64(($0 * 1000).rounded()), timescale: 1000) }
        let audioSpecs = try audio.map(InputSpec.parse)
        let videoSpecs = try video.map(InputSpec.parse)
        let live = audioSpecs.contains { if case .pulse = $0.origin { true } else { false } }
        let clock = MediaClock()
        let builder = InputBuilder(
            sampleRate: sampleRate, channels: channels, canvas: canvas, live: live ? clock : nil, duration: limitTime)
        var graph = MediaGraph(
            logger: ExampleLogHandler.logger(for: "av-mixer", verbose: logging.verbose, quiet: quiet))
        let outputs = output.compactMap { path in MixOutput(path: path).map { (path, $0) } }
        let wantsAudio = outputs.contains { !$0.1.takesVideoOnly } && !audioSpecs.isEmpty
        let wantsVideo = outputs.contains { !$0.1.takesAudioOnly } && (!videoSpecs.isEmpty || !text.isEmpty)

        var audioBranch: MediaGraph.BranchID?
        var videoBranch: MediaGraph.BranchID?
        if wantsAudio {
            let made = try AudioMixer(
                sampleRate: sampleRate, channels: channels,
                live: live
                    ? AudioMixer.Live(clock: clock, latency: MediaTime(value: Int64(latency), timescale: 1000)) : nil,
                limiter: limit ? .ceiling(decibels: -1) : nil,
                inputs: try audioSpecs.map(builder.audioInput))
            let source: any MediaSource = try limitTime.map { try made.prefix(duration: $0) } ?? made
            let raw = outputs.filter { $0.1 == .wav }.map(\.0)
            let encoded = outputs.contains { $0.1.isEncoded && !$0.1.takesVideoOnly }
            var stages: [any MediaStage] = []
            for path in raw.dropLast(encoded ? 0 : 1) { stages.append(try WritingTap.wav(path: path, bits: bits)) }
            if encoded { stages.append(try encoding.audioEncoder()) }
            audioBranch = graph.addBranch("audio mix", source: source, stages: stages)
            if !encoded, let last = raw.last, let audioBranch {
                graph.addSink(try WritingTap.wavSink(path: last, bits: bits), input: audioBranch)
            }
        }
        if wantsVideo {
            var inputs = try videoSpecs.map { try builder.videoInput($0) }
            let frame = VideoCompositor.Canvas(
                width: canvas.width, height: canvas.height, frameRate: FrameRate(Int32(canvas.fps)))
            for spec in try text.map(TextSpec.parse) {
                inputs.append(
                    try .text(
                        VideoCompositor.TextOverlay(.string(spec.string), size: spec.size, box: .black), on: frame,
                        layout: VideoCompositor.Layout(x: spec.x, y: spec.y, zIndex: 1000)))
            }
            let compositor = try VideoCompositor(
                canvas: frame, duration: limitTime, live: live ? VideoCompositor.Live(clock: clock) : nil,
                inputs: inputs)
            let raw = outputs.filter { $0.1 == .y4m }.map(\.0)
            let encoded = outputs.contains { $0.1.isEncoded && !$0.1.takesAudioOnly }
            var stages: [any MediaStage] = []
            for path in raw.dropLast(encoded ? 0 : 1) { stages.append(try WritingTap.y4m(path: path)) }
            if encoded { stages.append(try encoding.videoEncoder(realTime: live)) }
            videoBranch = graph.addBranch("video mix", source: compositor, stages: stages)
            if !encoded, let last = raw.last, let videoBranch {
                graph.addSink(Y4MMuxer(output: try FileOutput(path: last)), input: videoBranch)
            }
        }
        for (path, kind) in outputs where kind.isEncoded {
            try kind.addSink(path: path, to: &graph, video: videoBranch, audio: audioBranch)
        }

        let reporter = ProgressReporter(name: "av-mixer", verb: "mixed", enabled: !quiet)
        let progress = try graph.runThreaded(stop: Interrupt.signal, progress: reporter.report)
        let wall = reporter.finish()
        guard !quiet else { return }
        let parts = progress.branches.map { "\($0.name) \(formatDecimal($0.position.seconds ?? 0, 3)) s" }
        printError(
            "av-mixer: \(parts.joined(separator: "; ")); \(formatDecimal(wall, 2)) s → \(output.joined(separator: ", "))"
                + (Interrupt.wasRequested ? " (interrupted: the files end there)" : ""))
        for line in builder.counts() { printError("av-mixer: \(line)") }
        let warning = InputWarnings.line(
            example: "av-mixer", path: (audio + video).joined(separator: ", "), warningCount: progress.warningCount,
            warnings: progress.warnings)
        if let warning { printError(warning) }
    }
}
