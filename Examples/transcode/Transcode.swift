import ArgumentParser
import ExampleSupport
import MediaPipeline

/// `transcode`: the audio and video streams of any files libavformat reads → re-encoded to H.264/AAC,
/// or copied (`--copy`) → one container, or a bare stream or PCM/raw file through our own muxers.
struct Transcode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcode",
        abstract: "Combine the audio and video streams of media files into one output, re-encoded or copied.",
        discussion: """
            Every audio and video stream of every --input (any file libavformat reads: .mp4 .mov .m4a .mkv \
            .ts .flv .mp3 .aac .h264 .wav ..., or a URL: http(s), rtsp, rtmp, srt, udp, tcp) goes to the \
            --output, in input order. Without --copy, video is \
            decoded and re-encoded to H.264 and audio to AAC (the ffmpeg CLI's defaults); with --copy the \
            packets are remuxed untouched. The output's container comes from its extension (.mp4 .mov .m4a \
            .ts .flv .mkv .webm), or it is written by MediaPipeline's own muxers: .aac (ADTS), .h264 \
            (Annex-B), .caf (AAC or PCM), .wav (decoded PCM), .y4m (decoded frames). --output - writes to \
            standard output, in the --format given, for the formats that can be written as a stream: \
            mpegts, flv, matroska, webm, mp4/mov/m4a with --fragmented, aac, h264, wav, y4m, and caf of \
            PCM. Ctrl-C finishes the output and exits 130.

            Examples:
              transcode --input a.aac --input v.h264 --output av.mp4 --copy
              transcode --input in.mkv --output out.mp4
              transcode --input movie.mp4 --output sound.wav
              transcode --input movie.mp4 --output - --format mpegts | ffplay -
            """,
        version: "0.2.0")

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "A file or URL (http(s), rtsp, rtmp, srt, udp, tcp) to read; repeat for several.", valueName: "FILE|URL"))
    var input: [String] = []

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The file to write; - for standard output (with --format).", valueName: "FILE"))
    var output: String

    @Flag(help: "Copy the packets without re-encoding (a remux).")
    var copy = false

    @Option(help: "Force the output format (mp4, mov, m4a, mpegts, flv, matroska, webm, aac, h264, caf, wav, y4m).")
    var format: String?

    @Flag(
        help:
            "Write MP4/MOV/M4A fragmented (moof per keyframe): readable while it grows, and writable to standard output."
    )
    var fragmented = false

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Decode H.264 a group of pictures per CPU at once (on by default; faster than one decoder's frame threads, "
                + "and holds up to 256 MiB of decoded pictures). --no-parallel: one decoder with frame threads, as ffmpeg."
        ))
    var parallel = true

    @OptionGroup var encoding: EncoderOptions

    @Flag(name: .shortAndLong, help: "Print no progress line, no summary and no warnings (errors only).")
    var quiet = false

    @OptionGroup var logging: VerboseOption

    /// Whether the output is standard output.
    var toStandardOutput: Bool { output == "-" }

    /// What the output is written as: `--format`, else the output's extension.
    var kind: TranscodeOutput? {
        if let format { return TranscodeOutput(name: format) }
        return toStandardOutput ? nil : TranscodeOutput(path: output)
    }
    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard !input.isEmpty else { throw ValidationError("give at least one --input") }
        if let format, TranscodeOutput(name: format) == nil {
            throw ValidationError("--format '\(format)' is not one of \(TranscodeOutput.names.joined(separator: ", "))")
        }
        guard let kind else {
            if toStandardOutput {
                throw ValidationError(
                    "--output - (standard output) needs --format: one of mpegts, flv, matroska, webm, aac, h264, wav, y4m, caf, "
                        + "or mp4/mov/m4a with --fragmented")
            }
            throw ValidationError(
                "cannot tell the format of '\(output)' from its extension; use --format or one of .mp4 .mov .m4a .ts .flv .mkv .webm .aac .h264 .caf .wav .y4m"
            )
        }
        if toStandardOutput, case .container(let container) = kind, [.mp4, .mov, .m4a].contains(container), !fragmented
        {
            throw ValidationError(
                "--output - (standard output) cannot take \(container) unless --fragmented: its index is written at the end, "
                    + "into a file that can seek back")
        }
    }

    func run() throws {
        guard let kind else { throw ValidationError("cannot tell the format of '\(output)'") }
        // The library's diagnostics (skipped bytes, concealed frames …), one line each on standard error.
        var graph = MediaGraph(
            logger: ExampleLogHandler.logger(for: "transcode", verbose: logging.verbose, quiet: quiet))
        // Which streams: every audio and video stream, or the one kind the output takes; a branch each.
        var branches: [MediaGraph.BranchID] = []
        for path in input {
            if Self.isURL(path) {
                // A URL is opened once (a live one cannot be opened again at the same point): its streams
                // share the demuxer, each read on its branch's thread.
                var network = ContainerDemuxer.NetworkOptions()
                network.stop = Interrupt.signal  // Ctrl-C ends a live input there, and the file is finished
                let demuxer = try ContainerDemuxer(url: path, options: network)
                let wanted = try wantedStreams(demuxer.streams, into: kind, first: branches.isEmpty)
                let sources = try ContainerDemuxer.sharedSources(demuxer, streams: wanted.map(\.index))
                for (stream, source) in zip(wanted, sources) {
                    branches.append(
                        graph.addBranch(
                            "\(ContainerDemuxer.redacted(path))#\(stream.index)", source: source,
                            stages: try stages(for: stream, path: path, into: kind)))
                }
                continue
            }
            let demuxer = try ContainerDemuxer(path: path)
            let wanted = try wantedStreams(demuxer.streams, into: kind, first: branches.isEmpty)
            guard let first = wanted.first else { continue }
            // The file's first stream takes over the demuxer that listed the streams: no second open
            // (nor a second probe, which for a raw .h264 decodes its first pictures). Every other
            // stream gets a demuxer of its own, so that each branch reads on a thread of its own.
            branches.append(
                graph.addBranch(
                    "\(path)#\(first.index)", source: try ContainerDemuxer.streamSource(demuxer, stream: first.index),
                    stages: try stages(for: first, path: path, into: kind)))
            for stream in wanted.dropFirst() {
                branches.append(
                    graph.addBranch(
                        "\(path)#\(stream.index)",
                        source: try ContainerDemuxer.streamSource(path: path, stream: stream.index),
                        stages: try stages(for: stream, path: path, into: kind)))
            }
        }
        guard !branches.isEmpty else {
            throw MediaError(
                .unsupportedFormat,
                "\(input.joined(separator: ", ")) holds no \(kind.takesVideo ? (kind.takesAudio ? "audio or video" : "video") : "audio") stream for \(output)"
            )
        }
        var options = ContainerMuxer.Options()
        options.fragmented = fragmented
        // Standard output has no file to measure: its bytes are counted on the way.
        let standardOutputBytes = ByteCount()
        func fileOutput() throws -> sending any MediaOutput {
            toStandardOutput
                ? CountedOutput(try FileOutput.standardOutput(), count: standardOutputBytes)
                : try FileOutput(path: output)
        }
        switch kind {
        case .container(let container):
            let muxer =
                toStandardOutput
                ? try ContainerMuxer(output: fileOutput(), format: container, options: options)
                : try ContainerMuxer(path: output, format: container, options: options)
            graph.addSink(muxer, tracks: branches)
        case .adts:
            graph.addSink(ADTSMuxer(output: try fileOutput()), input: branches[0])
        case .annexB:
            graph.addSink(AnnexBMuxer(output: try fileOutput()), input: branches[0])
        case .caf:
            graph.addSink(CAFMuxer(output: try fileOutput()), input: branches[0])
        case .wav:
            graph.addSink(WAVMuxer(output: try fileOutput()), input: branches[0])
        case .y4m:
            graph.addSink(Y4MMuxer(output: try fileOutput()), input: branches[0])
        }

        let reporter = ProgressReporter(
            name: "transcode", verb: copy ? "copied" : "transcoded", enabled: !quiet && !toStandardOutput)
        let progress = try graph.runThreaded(stop: Interrupt.signal, progress: reporter.report)
        let wall = reporter.finish()
        guard !quiet else { return }
        let read = progress.branches.map { "\($0.name) \(count: $0.samplesRead, "packet")" }.joined(separator: ", ")
        let samples = progress.sinks.first?.samplesWritten ?? 0
        // The size of what was written, as the other examples report it: the file's, or what went to
        // standard output (not the packets' bytes: headers, indexes and start codes count too).
        let size = toStandardOutput ? standardOutputBytes.value : (fileSize(output) ?? 0)
        printError(
            "transcode: \(read) in; \(count: samples, "sample") out in \(formatDecimal(wall, 2)) s → "
                + "\(toStandardOutput ? "standard output" : output) (\(count: size, "byte"))"
                + (Interrupt.wasRequested ? " (interrupted: the file ends there)" : ""))
        // What the demuxer and decoders worked around, summed up in one line after the warnings themselves.
        let warning = InputWarnings.line(
            example: "transcode", path: input.joined(separator: ", "), warningCount: progress.warningCount,
            warnings: progress.warnings)
        if let warning { printError(warning) }
    }

    /// Which of an input's `streams` go to the output: every audio and video stream, or the one kind the
    /// output takes; for a bare stream, CAF, WAV or Y4M output, only the first that fits, from the first
    /// input (`first`) only.
    func wantedStreams(_ streams: [ContainerDemuxer.Stream], into kind: TranscodeOutput, first: Bool) throws
        -> [ContainerDemuxer.Stream]
    {
        var wanted = streams.filter { ($0.isAudio && kind.takesAudio) || ($0.isVideo && kind.takesVideo) }
        if !kind.isContainer {
            // A bare stream, CAF, WAV or Y4M file holds one stream: the first that fits.
            wanted = first ? Array(wanted.prefix(1)) : []
        }
        if first, toStandardOutput, kind == .caf, case .audio(let audio)? = wanted.first?.format, audio.pcm == nil {
            // CAF writes AAC's packet table and data size at the end, seeking back: not into a stream.
            throw ValidationError(
                "--output - (standard output) cannot take AAC in CAF (its packet table is written at the end); use --format aac, or a file"
            )
        }
        return wanted
    }

    /// Whether `input` is a URL `ContainerDemuxer(url:options:)` opens rather than a path.
    static func isURL(_ input: String) -> Bool {
        let scheme = input.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        return input.contains("://") && ContainerDemuxer.networkSchemes.contains(scheme)
    }

    /// The stages that bring `stream` to what `kind` takes.
    func stages(for stream: ContainerDemuxer.Stream, path: String, into kind: TranscodeOutput) throws
        -> sending [any MediaStage]
    {
        guard let format = stream.format else {
            throw MediaError(
                .unsupportedFormat,
                "stream \(stream.index) of \(path) (\(stream.codecName)) is not audio or video MediaPipeline can take")
        }
        switch (kind, format) {
        case (.wav, .audio(let audio)):
            // Decoded PCM, 16-bit as most WAV readers expect.
            var stages: [any MediaStage] = []
            if audio.pcm == nil {
                guard AudioDecoder.canDecode(format) else { throw cannotDecode(stream, path) }
                stages.append(AudioDecoder())
            }
            stages.append(try AudioConverter(format: PCMFormat(.s16)))
            return stages
        case (.y4m, .video(let video)):
            switch video.codec {
            case .h264: return [H264Decoder(threading: threading)]
            case .raw: return []
            case .other: throw cannotDecode(stream, path)
            }
        case (_, .audio(let audio)):
            if copy || (kind == .caf && audio.pcm != nil) { return [] }
            if audio.pcm != nil { return [try AACEncoder(bitRate: encoding.audioBitrate)] }
            // AAC, MP3, ALAC, IMA, A-law, µ-law: decoded, then encoded.
            guard AudioDecoder.canDecode(format) else { throw cannotDecode(stream, path) }
            return [AudioDecoder(), try AACEncoder(bitRate: encoding.audioBitrate)]
        case (_, .video(let video)):
            if copy { return [] }
            let settings = encoding.h264Settings()
            switch video.codec {
            case .h264:
                return [
                    H264Decoder(threading: threading), try VideoConverter(to: .yuv420p),
                    try H264Encoder(settings: settings)
                ]
            case .raw: return [try VideoConverter(to: .yuv420p), try H264Encoder(settings: settings)]
            case .other: throw cannotDecode(stream, path)
            }
        }
    }

    /// How the H.264 decoder uses the CPUs: as `--parallel` says.
    var threading: H264Decoder.Threading { parallel ? .groupsOfPictures() : .frames }

    func cannotDecode(_ stream: ContainerDemuxer.Stream, _ path: String) -> MediaError {
        MediaError(
            .unsupportedFormat,
            "MediaPipeline has no decoder for \(stream.codecName) (stream \(stream.index) of \(path)); --copy remuxes it untouched where the container takes it"
        )
    }
}

/// What the output path is written as.
enum TranscodeOutput: Equatable {
    case container(ContainerFormat)
    case adts, annexB, caf, wav, y4m

    /// The names `--format` takes: the containers' and our own formats'.
    static let names = ContainerFormat.all.map(\.name) + ["aac", "h264", "caf", "wav", "y4m"]

    /// The format `--format` names: a container (``ContainerFormat/init(name:)``: `mp4`, `mpegts`, ...)
    /// or one of our own (`aac` or `adts`, `h264`, `caf`, `wav`, `y4m`).
    init?(name: String) {
        switch name.lowercased() {
        case "aac", "adts": self = .adts
        case "h264", "annexb": self = .annexB
        case "caf": self = .caf
        case "wav": self = .wav
        case "y4m", "yuv4mpegpipe": self = .y4m
        default:
            guard let container = ContainerFormat(name: name) else { return nil }
            self = .container(container)
        }
    }

    init?(path: String) {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "aac": self = .adts
        case "h264", "264": self = .annexB
        case "caf": self = .caf
        case "wav": self = .wav
        case "y4m": self = .y4m
        default:
            guard let container = ContainerFormat(fileExtension: ext) else { return nil }
            self = .container(container)
        }
    }

    var isContainer: Bool { if case .container = self { return true } else { return false } }
    var takesAudio: Bool { self != .annexB && self != .y4m }
    var takesVideo: Bool {
        switch self {
        case .container(let container): return container != .m4a
        case .annexB, .y4m: return true
        case .adts, .caf, .wav: return false
        }
    }
}
