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
            .ts .flv .mp3 .aac .h264 .wav ...) goes to the --output, in input order. Without --copy, video is \
            decoded and re-encoded to H.264 and audio to AAC (the ffmpeg CLI's defaults); with --copy the \
            packets are remuxed untouched. The output's container comes from its extension (.mp4 .mov .m4a \
            .ts .flv .mkv .webm), or it is written by MediaPipeline's own muxers: .aac (ADTS), .h264 \
            (Annex-B), .caf (AAC or PCM), .wav (decoded PCM), .y4m (decoded frames). Ctrl-C finishes the \
            output and exits 130.
            """,
        version: "0.2.0")

    @Option(name: .shortAndLong, help: ArgumentHelp("A file to read; repeat for several.", valueName: "FILE"))
    var input: [String] = []

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "FILE"))
    var output: String

    @Flag(help: "Copy the packets without re-encoding (a remux).")
    var copy = false

    @Option(help: "Force the output container (mp4, mov, m4a, mpegts, flv, matroska, webm).")
    var format: String?

    @OptionGroup var encoding: EncoderOptions

    @Flag(name: .shortAndLong, help: "Print no progress line and no summary.")
    var quiet = false

    func validate() throws {
        guard !input.isEmpty else { throw ValidationError("give at least one --input") }
        if let format, ContainerFormat(name: format) == nil {
            throw ValidationError("--format '\(format)' is not one of \(ContainerFormat.all.map(\.name).joined(separator: ", "))")
        }
        if format == nil && TranscodeOutput(path: output) == nil {
            throw ValidationError("cannot tell the format of '\(output)' from its extension; use --format or one of .mp4 .mov .m4a .ts .flv .mkv .webm .aac .h264 .caf .wav .y4m")
        }
    }

    func run() throws {
        guard let kind = format.flatMap(ContainerFormat.init(name:)).map(TranscodeOutput.container) ?? TranscodeOutput(path: output) else {
            throw ValidationError("cannot tell the format of '\(output)'")
        }
        // Which streams: every audio and video stream, or the one kind the output takes.
        var streams: [(path: String, stream: ContainerDemuxer.Stream)] = []
        for path in input {
            let demuxer = try ContainerDemuxer(path: path)
            for stream in demuxer.streams where (stream.isAudio && kind.takesAudio) || (stream.isVideo && kind.takesVideo) {
                streams.append((path, stream))
            }
        }
        guard !streams.isEmpty else {
            throw MediaError(.unsupportedFormat, "\(input.joined(separator: ", ")) holds no \(kind.takesVideo ? (kind.takesAudio ? "audio or video" : "video") : "audio") stream for \(output)")
        }
        if !kind.isContainer {
            // A bare stream, CAF, WAV or Y4M file holds one stream: the first that fits.
            streams = [streams[0]]
        }

        var graph = MediaGraph()
        var branches: [MediaGraph.BranchID] = []
        for (path, stream) in streams {
            let source = try ContainerDemuxer.streamSource(path: path, stream: stream.index)
            let stages = try self.stages(for: stream, path: path, into: kind)
            branches.append(graph.addBranch("\(path)#\(stream.index)", source: source, stages: stages))
        }
        switch kind {
        case .container(let container):
            graph.addSink(try ContainerMuxer(path: output, format: container), tracks: branches)
        case .adts:
            graph.addSink(ADTSMuxer(output: try FileOutput(path: output)), input: branches[0])
        case .annexB:
            graph.addSink(AnnexBMuxer(output: try FileOutput(path: output)), input: branches[0])
        case .caf:
            graph.addSink(CAFMuxer(output: try FileOutput(path: output)), input: branches[0])
        case .wav:
            graph.addSink(WAVMuxer(output: try FileOutput(path: output)), input: branches[0])
        case .y4m:
            graph.addSink(Y4MMuxer(output: try FileOutput(path: output)), input: branches[0])
        }

        let reporter = ProgressReporter(name: "transcode", verb: copy ? "copied" : "transcoded", enabled: !quiet && output != "-")
        let progress = try graph.runThreaded(stop: Interrupt.signal, progress: reporter.report)
        let wall = reporter.finish()
        guard !quiet else { return }
        let read = progress.branches.map { "\($0.name) \($0.samplesRead) packets" }.joined(separator: ", ")
        let written = progress.sinks.first.map { "\($0.samplesWritten) samples, \($0.bytesWritten) bytes" } ?? ""
        printError("transcode: \(read) in; \(written) out in \(formatDecimal(wall, 2)) s → \(output)"
            + (Interrupt.wasRequested ? " (interrupted: the file ends there)" : ""))
    }

    /// The stages that bring `stream` to what `kind` takes.
    func stages(for stream: ContainerDemuxer.Stream, path: String, into kind: TranscodeOutput) throws -> sending [any MediaStage] {
        guard let format = stream.format else {
            throw MediaError(.unsupportedFormat, "stream \(stream.index) of \(path) (\(stream.codecName)) is not audio or video MediaPipeline can take")
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
            case .h264: return [H264Decoder()]
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
            case .h264: return [H264Decoder(), try VideoConverter(to: .yuv420p), try H264Encoder(settings: settings)]
            case .raw: return [try VideoConverter(to: .yuv420p), try H264Encoder(settings: settings)]
            case .other: throw cannotDecode(stream, path)
            }
        }
    }

    func cannotDecode(_ stream: ContainerDemuxer.Stream, _ path: String) -> MediaError {
        MediaError(.unsupportedFormat, "MediaPipeline has no decoder for \(stream.codecName) (stream \(stream.index) of \(path)); --copy remuxes it untouched where the container takes it")
    }
}

/// What the output path is written as.
enum TranscodeOutput: Equatable {
    case container(ContainerFormat)
    case adts, annexB, caf, wav, y4m

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
