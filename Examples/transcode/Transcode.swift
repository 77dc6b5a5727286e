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
            decoded and re-encoded to H.264 and audio to AAC (the ffmpeg CLI's defaults; --audio-codec opus \
            for Opus); with --copy the \
            packets are remuxed untouched. The output's container comes from its extension (.mp4 .mov .m4a \
            .ts .flv .mkv .webm .ogg .opus), or it is written by MediaPipeline's own muxers: .aac (ADTS), .h264 \
            (Annex-B), .caf (AAC or PCM), .wav (decoded PCM), .y4m (decoded frames). --output - writes to \
            standard output, in the --format given, for the formats that can be written as a stream: \
            mpegts, flv, matroska, webm, ogg, mp4/mov/m4a with --fragmented, aac, h264, wav, y4m, and caf of \
            PCM. Ctrl-C finishes the output and exits 130.

            Examples:
              transcode --input a.aac --input v.h264 --output av.mp4 --copy
              transcode --input in.mkv --output out.mp4
              transcode --input movie.mp4 --output sound.wav
              transcode --input movie.mov --output movie-720p.mp4 --export-preset 1280x720
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

    @Option(
        name: .customLong("export-preset"),
        help: ArgumentHelp(
            "What to make of the streams, as AVAssetExportSession's presets: passthrough (as --copy), h264 (H.264 and "
                + "AAC at the input's size), 1280x720 or 1920x1080 (H.264 fitted in that size, and AAC), m4a (the audio "
                + "alone, as AAC). The encoder options apply to the preset's encoders.",
            valueName: "NAME"))
    var exportPresetName = "h264"

    @Option(
        help: "Force the output format (mp4, mov, m4a, mpegts, flv, matroska, webm, ogg, aac, h264, caf, wav, y4m).")
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
    var kind: ExportFormat? {
        if let format { return ExportFormat(name: format) }
        return toStandardOutput ? nil : ExportFormat(path: output)
    }
    /// `--licence` (acted on before parsing, in runInHouseStyle), here so that --help lists it.
    @OptionGroup var licence: LicenceOption

    func validate() throws {
        guard !input.isEmpty else { throw ValidationError("give at least one --input") }
        guard ExportPreset(name: exportPresetName) != nil else {
            throw ValidationError(
                "--export-preset '\(exportPresetName)' is not one of \(ExportPreset.names.joined(separator: ", "))")
        }
        if copy, exportPresetName != "h264", exportPresetName != "passthrough" {
            throw ValidationError(
                "--copy is the passthrough preset: it cannot go with --export-preset \(exportPresetName)")
        }
        if let format, ExportFormat(name: format) == nil {
            throw ValidationError("--format '\(format)' is not one of \(ExportFormat.names.joined(separator: ", "))")
        }
        guard let kind else {
            if toStandardOutput {
                throw ValidationError(
                    "--output - (standard output) needs --format: one of mpegts, flv, matroska, webm, ogg, aac, h264, wav, y4m, caf, "
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
        if toStandardOutput, kind == .caf { try refuseAACInCAFOnStandardOutput() }
        var options = MediaExportSession.Options()
        options.fragmented = fragmented
        options.h264Decoding = parallel ? .groupsOfPictures() : .frames
        // Standard output has no file to measure: its bytes are counted on the way.
        let standardOutputBytes = ByteCount()
        let session = try MediaExportSession(
            inputs: input,
            destination: toStandardOutput
                ? .output { CountedOutput(try FileOutput.standardOutput(), count: standardOutputBytes) }
                : .file(output),
            format: kind,
            preset: exportPreset,
            options: options)
        let reporter = ProgressReporter(
            name: "transcode", verb: exportPreset == .passthrough ? "copied" : "transcoded",
            enabled: !quiet && !toStandardOutput)
        // The library's diagnostics (skipped bytes, concealed frames …), one line each on standard error;
        // Ctrl-C ends the inputs there and the output is finished.
        let result = try session.export(
            stop: Interrupt.signal,
            logger: ExampleLogHandler.logger(for: "transcode", verbose: logging.verbose, quiet: quiet)
        ) { reporter.report($0.graph) }
        let progress = result.graph
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

    /// `--export-preset` (`--copy`: passthrough), its encoders set by the encoder options.
    var exportPreset: ExportPreset {
        guard !copy, var chosen = ExportPreset(name: exportPresetName) else { return .passthrough }
        if case .h264(_, let maxWidth, let maxHeight) = chosen.video {
            let settings = encoding.videoSettings()
            switch encoding.videoCodec {
            case .h264: chosen.video = .h264(settings, maxWidth: maxWidth, maxHeight: maxHeight)
            case .hevc: chosen.video = .hevc(settings, maxWidth: maxWidth, maxHeight: maxHeight)
            case .av1: chosen.video = .av1(settings, maxWidth: maxWidth, maxHeight: maxHeight)
            case .vp9: chosen.video = .vp9(settings, maxWidth: maxWidth, maxHeight: maxHeight)
            }
        }
        if case .aac = chosen.audio {
            switch encoding.audioCodec {
            case .aac: chosen.audio = .aac(bitRate: encoding.audioBitrate)
            case .opus: chosen.audio = .opus(encoding.opusSettings)
            }
        }
        return chosen
    }

    /// CAF writes AAC's packet table and data size at the end, seeking back: not into a stream. Refused
    /// before anything is written when the first input's first audio stream is not PCM.
    func refuseAACInCAFOnStandardOutput() throws {
        guard let first = input.first, !MediaExportSession.isNetworkURL(first) else { return }
        let audio = try ContainerDemuxer(path: first).streams.first { $0.isAudio }
        if case .audio(let format)? = audio?.format, format.pcm == nil {
            throw ValidationError(
                "--output - (standard output) cannot take AAC in CAF (its packet table is written at the end); use --format aac, or a file"
            )
        }
    }
}
