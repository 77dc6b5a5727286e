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
/// `logger` given to ``init(source:stages:sink:logger:)``, which the pipeline hands to every source, stage
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

    let engine: Engine

    /// A pipeline of `source` → `stages` (in order) → `sink`, whose diagnostics go to `logger` (default:
    /// none) and to ``Progress/warnings``.
    public init(source: any MediaSource, stages: [any MediaStage] = [], sink: any MediaSink, logger: Logger? = nil) {
        engine = Engine(source: source, stages: stages, sink: sink, logger: logger)
    }

    /// The sink, with everything written to it (for a ``CollectingSink``, the samples).
    public var finishedSink: any MediaSink { engine.sink.base }

    /// Runs to the end of the source, calling `progress` after each source sample, and returns the
    /// final counts. Can run once; a second call throws ``MediaError/Code/stageFinished``.
    @discardableResult
    public mutating func run(progress report: ((Progress) throws -> Void)? = nil) throws -> Progress {
        try engine.run(progress: report)
    }
}

/// The state of one run. A class, so that the emit closures that carry samples from stage to stage
/// capture a reference rather than `inout` access to the `Pipeline` value they were started from.
///
/// Each stage and the sink sit in their checked wrappers (``CheckedStage``, ``CheckedSink``): those
/// keep the order (process per sample, finish once, nothing after a throw) and stamp every error with
/// the stage's name and sample index; the engine only decides what runs next.
final class Engine {
    let source: CheckedSource
    let stages: [CheckedStage]
    let sink: CheckedSink
    var progress = Pipeline.Progress()
    var hasRun = false
    let diagnostics = DiagnosticCollector()

    init(source: any MediaSource, stages: [any MediaStage], sink: any MediaSink, logger: Logger?) {
        diagnostics.attach(to: source, user: logger)
        for stage in stages { diagnostics.attach(to: (stage as? CheckedStage)?.base ?? stage, user: logger) }
        diagnostics.attach(to: (sink as? CheckedSink)?.base ?? sink, user: logger)
        self.source = CheckedSource(source)
        self.stages = stages.map(CheckedStage.wrapping)
        self.sink = CheckedSink.wrapping(sink)
    }

    func run(progress report: ((Pipeline.Progress) throws -> Void)?) throws -> Pipeline.Progress {
        guard !hasRun else { throw MediaError.stageFinished("Pipeline") }
        hasRun = true
        var sourceError: (any Error)?
        do {
            while true {
                let next: MediaSample?
                do {
                    next = try source.next()
                } catch {
                    // The input is damaged, not the stages: drain what they hold (an encoder's
                    // delayed frames) into the sink before reporting, as the ffmpeg CLI does.
                    sourceError = error
                    break
                }
                guard let sample = next else { break }
                progress = progress.counting(sample)
                try push(sample, from: 0)
                collectWarnings()
                try report?(progress)
            }
            for index in stages.indices {
                try stages[index].finish(forwardingTo: { output in try self.forward(output, to: index + 1) })
            }
            try sink.finish()
            collectWarnings()
            if let sourceError { throw sourceError }
            return progress
        } catch {
            if let sourceError { throw sourceError }  // a failure while draining is secondary
            // Keep what was written valid: let the sink write its trailer and sizes. Its own error,
            // if any (or `stageFinished`, when its finish already ran), is secondary to the one that
            // stopped the run.
            try? sink.finish()
            throw error
        }
    }

    /// Copies the collector's warnings into the progress when there are new ones: one atomic load per
    /// sample otherwise.
    func collectWarnings() {
        let count = diagnostics.count
        guard count != progress.warningCount else { return }
        progress.warningCount = count
        progress.warnings = diagnostics.diagnostics
    }

    private func push(_ sample: MediaSample, from index: Int) throws {
        if index == stages.count {
            progress.samplesWritten += 1
            progress.bytesWritten += Int64(sample.byteCount)
            try sink.write(sample)
            return
        }
        try stages[index].process(sample, forwardingTo: { output in try self.forward(output, to: index + 1) })
    }

    /// Pushes what stage `index - 1` emitted on; an error from there on is the stage's downstream's.
    private func forward(_ sample: MediaSample, to index: Int) throws {
        do { try push(sample, from: index) } catch { throw DownstreamError(error: error) }
    }
}

extension Pipeline.Progress {
    /// The progress with `sample` counted as read from the source. Not a mutating method: the time
    /// arithmetic then runs outside the access to the engine's `progress`, which so needs no dynamic
    /// exclusivity check (a tenth of a pipeline's per-sample cost).
    func counting(_ sample: MediaSample) -> Self {
        var copy = self
        copy.samplesRead += 1
        copy.count(frames: sample)
        let end = sample.timing.presentationTime + sample.timing.duration
        if end.isNumeric { copy.position = end }
        return copy
    }

    /// Adds `sample`'s frames to ``framesRead`` (audio) or ``videoFramesRead`` (video).
    mutating func count(frames sample: MediaSample) {
        switch sample.format {
        case .video: videoFramesRead += 1
        case .audio: framesRead += Int64(sample.frameCount)
        }
    }
}
