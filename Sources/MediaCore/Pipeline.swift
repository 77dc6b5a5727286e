public import Logging

/// Runs a source through stages into a sink, synchronously, on the calling thread.
///
/// ```swift
/// var pipeline = Pipeline(
///     source: try ToneGenerator(
///         .sine(frequency: 440, amplitude: 0.5), sampleRate: 48_000, channels: 2,
///         length: .duration(MediaTime(value: 5, timescale: 1))),
///     stages: [try AACEncoder(bitRate: 128_000)],
///     sink: ADTSMuxer(output: try FileOutput(path: "tone.aac")))
/// let result = try pipeline.run { progress in print(progress.position) }
/// ```
///
/// Each sample a stage emits goes straight to the next stage, so memory stays flat whatever the input
/// length. At the end of the source every stage is finished in order (draining encoder delay into the
/// stages after it) and then the sink. On the first error, the run stops, the sink is finished so that
/// what was written stays a valid file, and the error is rethrown with ``MediaError/stage`` set to the
/// name of the stage that failed and ``MediaError/sampleIndex`` to the index of the sample it was
/// given (unless the error said where already). When it is the source that fails (a file cut short), the stages are
/// drained into the sink first, so an encoder's delayed frames still reach the file. The progress callback may throw to cancel the run the same way.
///
/// Each stage sits in a ``CheckedStage`` and the sink in a ``CheckedSink``: the pipeline calls
/// `process` per sample, `finish` once and nothing after a throw, so a stage keeps only its media
/// logic. A stage given already checked is not wrapped again.
///
/// Diagnostics (a WAV file cut short, bytes skipped to resynchronise, concealed frames) go to the
/// `logger` given to `init(source:stages:sink:logger:)`, which the pipeline hands to every source, stage
/// and sink that adopts ``DiagnosticReporting`` and has no logger of its own; with no logger the run is
/// silent, but ``Progress/warnings`` still holds what went wrong.
public struct Pipeline {
    /// What the progress callback and the run report.
    public struct Progress: Sendable, Hashable {
        /// Samples the source has produced.
        public var samplesRead: Int64 = 0
        /// Audio frames the source has produced: the sum of ``MediaSample/frameCount`` over its samples
        /// of an audio format. Video samples are counted in ``videoFramesRead``, not here.
        public var framesRead: Int64 = 0
        /// Video frames (pictures, compressed or raw) the source has produced: one per sample of a video
        /// format.
        public var videoFramesRead: Int64 = 0
        /// The end of the last sample from the source (its presentation time plus duration).
        public var position: MediaTime = .zero
        /// Samples the sink has received.
        public var samplesWritten: Int64 = 0
        /// Bytes of sample data the sink has received.
        public var bytesWritten: Int64 = 0
        /// Warnings the source, stages and sink logged so far (see ``DiagnosticReporting``); those that
        /// have a logger of their own given by the caller log there and are not counted.
        public var warningCount = 0
        /// The first 16 of those warnings, in the order they were logged (the count goes on).
        public var warnings: [MediaDiagnostic] = []
    }

    let run: PipelineRun

    /// A pipeline of `source` → `stages` (in order) → `sink`, whose diagnostics go to `logger` (default:
    /// none) and to ``Progress/warnings``.
    public init(source: any MediaSource, stages: [any MediaStage] = [], sink: any MediaSink, logger: Logger? = nil) {
        run = PipelineRun(source: source, stages: stages, sink: SingleTrackSink(sink), logger: logger)
    }

    /// A pipeline that ends in a multi-track sink used for one track: a `ContainerMuxer` writing one
    /// stream (an `.m4a`, an `.mp4` of video alone). The sink's ``MultiTrackSink/begin(firstSamples:)``
    /// gets the first sample, then every sample is written to track 0.
    public init(
        source: any MediaSource, stages: [any MediaStage] = [], sink: any MultiTrackSink, logger: Logger? = nil
    ) {
        run = PipelineRun(source: source, stages: stages, sink: sink, logger: logger)
    }

    /// The sink, with everything written to it (for a ``CollectingSink``, the samples). For a pipeline
    /// made with a ``MultiTrackSink``, see ``finishedMultiTrackSink``.
    public var finishedSink: any MediaSink {
        let base = run.sink.base
        return (base as? SingleTrackSink)?.base ?? MultiTrackSinkAsSink(base: base)
    }

    /// The sink as the multi-track sink it is (a single-track sink given to the pipeline is wrapped).
    public var finishedMultiTrackSink: any MultiTrackSink { run.sink.base }

    /// Runs to the end of the source, calling `progress` after each source sample, and returns the
    /// final counts. Can run once; a second call throws ``MediaError/Code/stageFinished``.
    ///
    /// `stop`, when given, ends the run early from any thread: the source is not read again, the stages
    /// drain, the sink finishes (a valid file), and the run returns the progress so far.
    ///
    /// The run is ``MediaGraph``'s synchronous one, for a graph of one branch and one sink: the same
    /// loop, the same errors, the same end (when the progress callback throws, the stages are drained
    /// and the sink finished before its error is rethrown).
    @discardableResult
    public mutating func run(stop: StopSignal? = nil, progress report: ((Progress) throws -> Void)? = nil) throws
        -> Progress
    {
        try run.runSynchronously(stop: stop, progress: report)
    }
}

/// A pipeline's branch (source and stages) and sink, held for its one run. A class, so that the
/// `Pipeline` value can be copied without copying the run (the copies share it, and only one may run).
///
/// Everything a run needs is made here, so that a run of a pipeline whose stages allocate nothing
/// allocates nothing either (the allocation gate's `Pipeline.3IdentityStages`).
final class PipelineRun {
    let branch: BranchRunner
    let sink: SinkRunner
    let diagnostics = DiagnosticCollector()
    private let driver: SyncDriver
    private var hasRun = false
    /// The progress as last reported, whose warnings are copied only when there are new ones.
    private var progress = Pipeline.Progress()

    init(source: any MediaSource, stages: [any MediaStage], sink: any MultiTrackSink, logger: Logger?) {
        diagnostics.attach(to: source, user: logger)
        for stage in stages { diagnostics.attach(to: (stage as? CheckedStage)?.base ?? stage, user: logger) }
        diagnostics.attach(to: (sink as? SingleTrackSink)?.base ?? sink, user: logger)
        branch = BranchRunner(name: nil, source: source, stages: stages)
        branch.routes = [Route(sink: 0, track: 0)]
        self.sink = SinkRunner(sink: sink, trackCount: 1)
        driver = SyncDriver(branches: [branch], sinks: [self.sink], diagnostics: diagnostics)
    }

    /// Marks the pipeline run; throws ``MediaError/Code/stageFinished`` the second time.
    func begin() throws(MediaError) {
        guard !hasRun else { throw MediaError.stageFinished("Pipeline") }
        hasRun = true
    }

    func runSynchronously(stop: StopSignal?, progress report: ((Pipeline.Progress) throws -> Void)?) throws
        -> Pipeline.Progress
    {
        try begin()
        try driver.run(
            stop: { stop?.isRequested ?? false },
            afterStep: report.map { report in
                { try report(self.current(branch: self.branch.counts, sink: self.sink.counts)) }
            }
        )
        return current(branch: branch.counts, sink: sink.counts)
    }

    /// The progress from the branch's and the sink's counts, with the warnings copied when there are
    /// new ones.
    func current(branch counts: MediaGraph.Progress.Branch, sink written: MediaGraph.Progress.Sink)
        -> Pipeline.Progress
    {
        progress.samplesRead = counts.samplesRead
        progress.framesRead = counts.framesRead
        progress.videoFramesRead = counts.videoFramesRead
        if counts.position.isNumeric { progress.position = counts.position }
        progress.samplesWritten = written.samplesWritten
        progress.bytesWritten = written.bytesWritten
        let warnings = diagnostics.count
        if warnings != progress.warningCount {
            progress.warningCount = warnings
            progress.warnings = diagnostics.diagnostics
        }
        return progress
    }
}

/// A ``MultiTrackSink`` shown as a ``MediaSink`` for ``Pipeline/finishedSink``: writes go to track 0.
struct MultiTrackSinkAsSink: MediaSink {
    var base: any MultiTrackSink
    var name: String { base.name }
    mutating func write(_ sample: MediaSample) throws { try base.write(sample, track: 0) }
    mutating func finish() throws { try base.finish() }
}
