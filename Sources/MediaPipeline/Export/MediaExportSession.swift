#if canImport(Glibc)
    import Glibc
#endif
public import Logging
public import MediaCore
public import MediaFFmpeg
import MediaFormats

/// Exports media to a new file in one call, as `AVAssetExportSession` does: every audio and video stream
/// of one or more inputs (anything ``/MediaFFmpeg/ContainerDemuxer`` opens: files and network URLs),
/// re-encoded or copied as an ``ExportPreset`` says, into one ``ExportFormat``.
///
/// ```swift
/// let session = try MediaExportSession(input: "movie.mov", outputPath: "movie-720p.mp4", preset: .h264At1280x720)
/// let result = try session.export { progress in print(progress.fractionCompleted ?? 0) }
/// print(result.graph.sinks[0].samplesWritten)
/// ```
///
/// - The graph: one branch per stream (a demuxer's stream source; the decoder, the scaler and the
///   encoder the preset asks for), into ``/MediaFFmpeg/ContainerMuxer`` or the format's own muxer, run on
///   threads (``/MediaCore/MediaGraph/runThreaded(queueDepth:stop:progress:)``). A container takes every
///   stream in input order; a one-stream format the first stream that fits, of the first input.
/// - ``export(stop:logger:progress:)`` runs on the calling thread until the output is finished, and
///   reports progress about ten times a second.
/// - Two ways to end early: ``cancel()`` (any thread) stops the export, removes the partial file and
///   makes ``export(stop:logger:progress:)`` throw ``/MediaCore/MediaError/Code/cancelled``, as
///   `AVAssetExportSession.cancelExport()` does; a `stop` signal (Ctrl-C) ends the inputs there and
///   finishes the output, which stays valid and shorter (``ExportResult/wasStoppedEarly``).
///
/// Errors are typed: an input that cannot be opened, a stream no decoder here decodes, an output that
/// cannot be written, and the graph's errors, each naming what and where.
public final class MediaExportSession: Sendable {
    /// Where the output goes.
    public enum Destination: Sendable {
        /// A file, created or replaced.
        case file(String)
        /// A ``/MediaCore/MediaOutput`` made when the export starts (standard output, a socket): for a
        /// container its format must be one that can be written as a stream.
        case output(@Sendable () throws -> sending any MediaOutput)
    }

    /// How the export reads and writes, beyond the preset.
    public struct Options: Sendable {
        /// Write MP4, MOV and M4A fragmented (``/MediaFFmpeg/ContainerMuxer/Options/fragmented``).
        public var fragmented = false
        /// How the H.264 decoder uses the CPUs: a group of pictures per CPU at once (the default), or
        /// one decoder with frame threads as ffmpeg.
        public var h264Decoding: H264Decoder.Threading = .groupsOfPictures()
        /// Options for network inputs (their `stop` is the export's own).
        public var network = ContainerDemuxer.NetworkOptions()

        /// The defaults.
        public init() {}
    }

    /// The files and URLs read, in order.
    public let inputs: [String]
    /// Where the output goes.
    public let destination: Destination
    /// What the output is written as.
    public let format: ExportFormat
    /// What the audio and video become.
    public let preset: ExportPreset
    /// How the export reads and writes.
    public let options: Options
    private let cancelled = StopSignal()

    /// An export of `inputs` to `destination` as `format` (for a file, by default the one its extension
    /// names), with `preset`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for no input, or a format that is neither
    ///   given nor told by the file's extension.
    public init(
        inputs: [String], destination: Destination, format: ExportFormat? = nil, preset: ExportPreset,
        options: Options = Options()
    ) throws(MediaError) {
        guard !inputs.isEmpty else { throw MediaError(.invalidArgument, "an export needs at least one input") }
        var chosen = format
        if chosen == nil, case .file(let path) = destination { chosen = ExportFormat(path: path) }
        guard let chosen else {
            throw MediaError(
                .invalidArgument,
                "cannot tell the format of the export's output from its name; give one of \(ExportFormat.names.joined(separator: ", "))"
            )
        }
        self.inputs = inputs
        self.destination = destination
        self.format = chosen
        self.preset = preset
        self.options = options
    }

    /// An export of `input` to the file `outputPath`, in the format its extension names.
    ///
    /// - Throws: as ``init(inputs:destination:format:preset:options:)``.
    public convenience init(input: String, outputPath: String, preset: ExportPreset) throws(MediaError) {
        try self.init(inputs: [input], destination: .file(outputPath), preset: preset)
    }

    /// Whether `input` is a network URL (a scheme ``/MediaFFmpeg/ContainerDemuxer/networkSchemes`` lists)
    /// rather than a path.
    public static func isNetworkURL(_ input: String) -> Bool { ExportGraphBuilder.isURL(input) }

    /// Stops the export and removes what it wrote (see the type); any thread, any time.
    public func cancel() { cancelled.request() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { cancelled.isRequested }

    /// Runs the export on the calling thread until the output is finished (see the type).
    ///
    /// - Parameters:
    ///   - stop: when requested, the inputs end there and the output is finished, valid.
    ///   - logger: where the inputs' and the stages' diagnostics (skipped bytes, concealed frames) go.
    ///   - progress: called about ten times a second, on the calling thread; what it throws stops the
    ///     export and is thrown.
    /// - Returns: what was read and written.
    /// - Throws: ``/MediaCore/MediaError/Code/cancelled`` after ``cancel()``;
    ///   ``/MediaCore/MediaError/Code/invalidData`` when a container output got no sample at all (an
    ///   input whose streams are empty or decode to nothing), naming each stream's counts, and the file
    ///   is removed (a container without a track is no valid file); the inputs', stages' and output's
    ///   errors.
    public func export(
        stop: StopSignal? = nil, logger: Logger? = nil, progress: ((ExportProgress) throws -> Void)? = nil
    ) throws -> ExportResult {
        if isCancelled { throw cancellation(removed: false) }  // before anything is opened or written
        let run = StopSignal()
        var network = options.network
        network.stop = run
        var graph = MediaGraph(logger: logger)
        var spans: [(start: MediaTime, duration: MediaTime)] = []
        var builder = ExportGraphBuilder(format: format, preset: preset, options: options, network: network)
        let branches = try builder.addBranches(for: inputs, to: &graph, spans: &spans)
        try addSink(to: &graph, tracks: branches)
        var stoppedEarly = false
        let outcome: MediaGraph.Progress
        do {
            outcome = try graph.runThreaded(stop: run) { [self] graphProgress in
                if isCancelled || (stop?.isRequested ?? false) {
                    stoppedEarly = true
                    run.request()
                }
                try progress?(ExportProgress(graph: graphProgress, spans: spans))
            }
        } catch {
            // A file the failed export left empty (the muxer refused a track before its header) is no
            // file of its format: removed. One with data keeps what was written, valid up to the error.
            if case .file(let path) = destination, let size = Self.fileSize(path), size == 0 { unlink(path) }
            throw error
        }
        if isCancelled {
            if case .file(let path) = destination { unlink(path) }
            throw cancellation(removed: true)
        }
        if case .container = format, outcome.sinks.allSatisfy({ $0.samplesWritten == 0 }) {
            if case .file(let path) = destination { unlink(path) }
            throw nothingExported(outcome)
        }
        return ExportResult(graph: outcome, wasStoppedEarly: stoppedEarly || (stop?.isRequested ?? false))
    }

    /// The size of the file at `path`, or `nil` when there is none.
    private static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// The error of an export whose container got no sample: it has no track to write, so nothing valid
    /// could be written (libavformat would leave an empty file). Names each stream's counts and the
    /// first warning, which usually says why (an edit list past the media, a stream that decodes to
    /// nothing).
    private func nothingExported(_ outcome: MediaGraph.Progress) -> MediaError {
        var target = "its output"
        if case .file(let path) = destination { target = "\(path), which was not written" }
        let counts = outcome.branches.map {
            "\($0.name): \(count: $0.samplesRead, "sample") read, \($0.samplesOut) out"
        }
        var message = "nothing to export to \(target): no stream gave a sample (\(counts.joined(separator: "; ")))"
        if let first = outcome.warnings.first { message += "; first warning: \(first.message)" }
        return MediaError(.invalidData, message)
    }

    /// The error of a cancelled export; `removed` says that the partial file was removed.
    private func cancellation(removed: Bool) -> MediaError {
        var target = "its output"
        if case .file(let path) = destination { target = removed ? "\(path) (the partial file was removed)" : path }
        return MediaError(.cancelled, "the export of \(inputs.joined(separator: ", ")) to \(target) was cancelled")
    }

    /// The muxer `format` asks for, taking `branches`.
    private func addSink(to graph: inout MediaGraph, tracks branches: [MediaGraph.BranchID]) throws {
        func output() throws -> sending any MediaOutput {
            switch destination {
            case .file(let path): try FileOutput(path: path)
            case .output(let make): try make()
            }
        }
        switch format {
        case .container(let container):
            var muxerOptions = ContainerMuxer.Options()
            muxerOptions.fragmented = options.fragmented
            // MPEG-TS as the ffmpeg CLI writes it: timestamps from 1.4 s, audio in PES packets of up to
            // 0.35 s (its default `-muxdelay 0.7`).
            muxerOptions.muxDelay = .milliseconds(700)
            switch destination {
            case .file(let path):
                graph.addSink(
                    try ContainerMuxer(path: path, format: container, options: muxerOptions), tracks: branches)
            case .output:
                graph.addSink(
                    try ContainerMuxer(output: output(), format: container, options: muxerOptions), tracks: branches)
            }
        case .adts: graph.addSink(ADTSMuxer(output: try output()), input: branches[0])
        case .annexB: graph.addSink(AnnexBMuxer(output: try output()), input: branches[0])
        case .caf: graph.addSink(CAFMuxer(output: try output()), input: branches[0])
        case .wav: graph.addSink(WAVMuxer(output: try output()), input: branches[0])
        case .y4m: graph.addSink(Y4MMuxer(output: try output()), input: branches[0])
        }
    }
}

/// How far a ``MediaExportSession`` has come.
public struct ExportProgress: Sendable {
    /// The graph's counts: per branch, samples read and the position reached; per sink, what it wrote.
    public var graph: MediaGraph.Progress
    /// The inputs' start times and durations (zero when a container does not say), in input order.
    let spans: [(start: MediaTime, duration: MediaTime)]

    /// The part of the longest input done, 0…1: the branch furthest behind, measured against the
    /// input's duration; `nil` when no input says how long it is (a live stream).
    public var fractionCompleted: Double? {
        guard let longest = spans.compactMap({ $0.duration.seconds }).max(), longest > 0 else { return nil }
        let start = spans.compactMap { $0.start.seconds }.min() ?? 0
        let reached = graph.branches.compactMap { $0.position.seconds }.min() ?? start
        return min(1, max(0, (reached - start) / longest))
    }
}

/// What a ``MediaExportSession`` read and wrote.
public struct ExportResult: Sendable {
    /// The graph's final counts: per branch (one per stream) what it read; per sink what it wrote; the
    /// inputs' warnings.
    public var graph: MediaGraph.Progress
    /// Whether a `stop` signal ended the inputs early (the output is valid and shorter).
    public var wasStoppedEarly: Bool
}
