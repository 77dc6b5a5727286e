import ArgumentParser
import ExampleSupport
import MediaPipeline

/// `av-encoder`: video (the test pattern or a .y4m) and audio (a tone or a .wav) → H.264 + AAC → one or
/// more files (MP4, MOV, M4A, MPEG-TS, FLV, Matroska; also .aac and .h264), from one encode.
struct AVEncoder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "av-encoder",
        abstract: "Encode video and audio to H.264 and AAC and write them into containers.",
        discussion: """
            Video comes from the generated test pattern (--pattern) or a .y4m file (--video); audio from a \
            generated tone (--tone HZ: 48 kHz stereo, amplitude 0.5) or a .wav file (--audio). Both are \
            encoded once and written to every --output: the container comes from the extension \
            (.mp4 .mov .m4a .ts .flv .mkv .webm; .aac and .h264 write the bare streams), or from --format. \
            An .m4a output takes the audio only. The encoder settings follow h264-encoder's and \
            aac-encoder's (the ffmpeg CLI's defaults). Ctrl-C finishes every file and exits 130.

            Examples:
              av-encoder --pattern --tone 440 --duration 10 --output out.mp4
              av-encoder --video in.y4m --audio in.wav --output out.mkv
              av-encoder --tone 440 --duration 30 --output tone.m4a
              av-encoder --pattern --tone 440 --duration 10 -o a.mp4 -o a.ts -o a.flv
            """,
        version: "0.2.0")

    @OptionGroup var sources: AVSourceOptions

    @Option(help: "How many seconds to encode (required for --pattern and --tone; cuts files).")
    var duration: Double?

    @OptionGroup var encoding: EncoderOptions

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("A file to write; give several to write them all from one encode.", valueName: "out.mp4"))
    var output: [String] = []

    @Option(help: "Force the container of every --output (mp4, mov, m4a, mpegts, flv, matroska, webm).")
    var format: String?

    @Flag(help: "Write MP4/MOV fragmented (moof per keyframe): readable while it grows and after a crash.")
    var fragmented = false

    @Flag(help: "Deliver video and audio at the pace of their timestamps, as a camera and a microphone do.")
    var realtime = false

    @Flag(name: .shortAndLong, help: "Print no progress line, no summary and no warnings (errors only).")
    var quiet = false

    @OptionGroup var logging: VerboseOption

    @Option(
        help: "How to run the graph: threaded (a thread per branch and output), sync (one thread), async (Swift tasks)."
    )
    var driver: Driver = .threaded

    enum Driver: String, ExpressibleByArgument, CaseIterable {
        case threaded, sync, async
    }
    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard !output.isEmpty else { throw ValidationError("give at least one --output") }
        guard sources.hasVideo || sources.hasAudioFileOrTone else {
            throw ValidationError("give video (--pattern or --video) or audio (--tone or --audio), or both")
        }
        if (sources.pattern || sources.tone != nil) && duration == nil {
            throw ValidationError("--pattern and --tone need --duration SECONDS")
        }
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be between 0 and 86400 seconds")
        }
        if let format, ContainerFormat(name: format) == nil {
            throw ValidationError(
                "--format '\(format)' is not one of \(ContainerFormat.all.map(\.name).joined(separator: ", "))")
        }
        for path in output where format == nil {
            guard OutputKind(path: path) != nil else {
                throw ValidationError(
                    "cannot tell the container of '\(path)' from its extension; use --format or one of .mp4 .mov .m4a .ts .flv .mkv .webm .aac .h264"
                )
            }
            if OutputKind(path: path) == .annexB, encoding.videoCodec != .h264 {
                throw ValidationError(
                    "'\(path)' is raw H.264 (Annex-B): it cannot take --video-codec \(encoding.videoCodec.rawValue); use .mkv, .mp4 or .webm"
                )
            }
            if OutputKind(path: path) == .adts, encoding.audioCodec != .aac {
                throw ValidationError(
                    "'\(path)' is ADTS: it holds AAC only, not --audio-codec \(encoding.audioCodec.rawValue)")
            }
        }
    }

    func run() throws {
        let limit = duration.map { MediaTime(value: Int64(($0 * 1000).rounded()), timescale: 1000) }
        let clock = MediaClock()  // one clock: with --realtime, video and audio start together
        // The library's diagnostics (skipped bytes, concealed frames …), one line each on standard error.
        var graph = MediaGraph(
            logger: ExampleLogHandler.logger(for: "av-encoder", verbose: logging.verbose, quiet: quiet))
        var videoBranch: MediaGraph.BranchID?
        var audioBranch: MediaGraph.BranchID?

        if let input = try sources.videoSource(patternLength: .duration(limit ?? .seconds(10)), limit: limit) {
            var stages: [any MediaStage] = input.needsConversion ? [try VideoConverter(to: .yuv420p)] : []
            stages.append(try encoding.videoEncoder(realTime: realtime))
            let source = realtime ? RealTimeSource(input.source, clock: clock) : input.source
            videoBranch = graph.addBranch("video", source: source, stages: stages)
        }
        if var source = try sources.audioSource(toneLength: .duration(limit ?? .seconds(10)), limit: limit) {
            if realtime { source = RealTimeSource(source, clock: clock) }
            audioBranch = graph.addBranch(
                "audio", source: source, stages: [try encoding.audioEncoder()])
        }

        for path in output {
            let kind = format.flatMap(ContainerFormat.init(name:)).map(OutputKind.container) ?? OutputKind(path: path)
            switch kind {
            case .adts?:
                guard let audioBranch else {
                    throw ValidationError("\(path): an .aac output needs audio (--tone or --audio)")
                }
                graph.addSink(ADTSMuxer(output: try FileOutput(path: path)), input: audioBranch)
            case .annexB?:
                guard let videoBranch else {
                    throw ValidationError("\(path): an .h264 output needs video (--pattern or --video)")
                }
                graph.addSink(AnnexBMuxer(output: try FileOutput(path: path)), input: videoBranch)
            case .container(let container)?:
                var options = ContainerMuxer.Options()
                options.fragmented = fragmented
                let tracks =
                    container == .m4a ? [audioBranch].compactMap { $0 } : [videoBranch, audioBranch].compactMap { $0 }
                guard !tracks.isEmpty else {
                    throw ValidationError("\(path): an .m4a output needs audio (--tone or --audio)")
                }
                graph.addSink(try ContainerMuxer(path: path, format: container, options: options), tracks: tracks)
            case nil:
                throw ValidationError("cannot tell the container of '\(path)'")
            }
        }

        let reporter = ProgressReporter(name: "av-encoder", verb: "encoded", enabled: !quiet)
        // By default a thread per branch: x264 and the AAC encoder work at once, the muxers beside them.
        let progress: MediaGraph.Progress
        switch driver {
        case .threaded: progress = try graph.runThreaded(stop: Interrupt.signal, progress: reporter.report)
        case .sync: progress = try graph.runSynchronously(stop: Interrupt.signal, progress: reporter.report)
        case .async:
            // `try await graph.run()`; Ctrl-C cancels the task, which finishes every file.
            do {
                progress = try blockingAwait(cancelWhen: { Interrupt.wasRequested }) { try await graph.run() }
            } catch is CancellationError {
                throw ExitCode(130)
            }
        }
        let wall = reporter.finish()
        guard !quiet else { return }
        var parts: [String] = []
        for branch in progress.branches {
            parts.append(
                "\(branch.name) \(count: branch.samplesRead, "sample") in, \(formatDecimal(branch.position.seconds ?? 0, 3)) s"
            )
        }
        // Each file's size (headers and index included), not its packets' bytes.
        let files = zip(output, progress.sinks).map { path, sink in
            "\(path) (\(count: sink.samplesWritten, "packet"), \(count: fileSize(path) ?? 0, "byte"))"
        }
        printError(
            "av-encoder: \(parts.joined(separator: "; ")); \(formatDecimal(wall, 2)) s → \(files.joined(separator: ", "))"
                + (Interrupt.wasRequested ? " (interrupted: the files end there)" : ""))
        // What the readers and decoders worked around, summed up in one line after the warnings themselves.
        let inputs = [sources.video, sources.audio].compactMap { $0 }.joined(separator: ", ")
        let warning = InputWarnings.line(
            example: "av-encoder", path: inputs, warningCount: progress.warningCount, warnings: progress.warnings)
        if let warning { printError(warning) }
    }
}

/// What an output path is written as.
enum OutputKind: Equatable {
    case container(ContainerFormat)
    case adts
    case annexB

    init?(path: String) {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "aac": self = .adts
        case "h264", "264": self = .annexB
        default:
            guard let container = ContainerFormat(fileExtension: ext) else { return nil }
            self = .container(container)
        }
    }
}
