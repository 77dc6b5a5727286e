/// One branch of a run (a ``MediaGraph``'s, or a ``Pipeline``'s single one): its source and its stages,
/// which a ``StageChain`` drives (each in a ``CheckedStage``, which keeps the life cycle the driver
/// guarantees and stamps every error with the stage's name and sample index); the source's errors are
/// stamped by its ``CheckedSource``.
///
/// Names are computed once, when the branch is built: the per-sample path does no string work.
final class BranchRunner {
    let name: String
    private let source: CheckedSource
    private let chain: StageChain
    /// The (sink, track) inputs this branch's output feeds; set when a run starts.
    var routes: [Route] = []
    /// Counts for progress.
    var counts: MediaGraph.Progress.Branch
    /// Whether the source ended (or failed) and the stages were drained.
    var isEnded: Bool { chain.isDrained }
    /// The source's error, if it failed: reported after the other branches have run to their end.
    private(set) var sourceError: (any Error)?

    init(name: String?, source: any MediaSource, stages: [any MediaStage]) {
        self.source = CheckedSource.wrapping(source)
        self.name = name ?? self.source.name
        chain = StageChain(stages)
        counts = .init(name: self.name)
    }

    /// Pulls one sample from the source and pushes it through the stages, handing what leaves the last
    /// stage to `deliver`. At the end of the source (or when it fails) drains the stages and returns
    /// `false`.
    func step(deliver: (MediaSample) throws -> Void) throws -> Bool {
        guard !isEnded else { return false }
        guard let sample = pull() else {
            try drain(deliver: deliver)
            return false
        }
        try push(sample, from: 0, deliver: deliver)
        return true
    }

    /// The source's next sample, counted, without the stages; `nil` at its end or when it fails
    /// (``sourceError`` then says why). ``step(deliver:)`` pushes what this returns through the stages;
    /// a run with a thread per stage hands it to the first stage's thread instead.
    func pull() -> MediaSample? {
        let next: MediaSample?
        do {
            next = try source.next()
        } catch {
            sourceError = error
            return nil
        }
        guard let sample = next else { return nil }
        counts.samplesRead += 1
        switch sample.format {
        case .video: counts.videoFramesRead += 1
        case .audio: counts.framesRead += Int64(sample.frameCount)
        }
        // A sample without a duration (video from RTMP or FLV) still says where its branch is: at its
        // start. Without that, the pacing saw no position and held every other branch at its first sample.
        let start = sample.timing.presentationTime
        let end = sample.timing.duration.isNumeric ? start + sample.timing.duration : start
        if end.isNumeric { counts.position = end }
        return sample
    }

    /// The stages, each in its guard, for a run that gives each a thread of its own.
    var stages: [CheckedStage] { chain.stages }

    /// Ends the branch without reading further: finishes every stage in order, draining what each holds
    /// into the ones after it. Stages that already finished or failed are not called again.
    func drain(deliver: (MediaSample) throws -> Void) throws { try chain.drain(deliver: deliver) }

    /// Asks the stages for a keyframe (a sink joined the branch while it runs).
    func forceKeyframe() { chain.forceKeyframe() }

    /// Marks the branch ended without draining (after another part of the graph failed).
    func abandon() { chain.abandon() }

    /// Pushes `sample` (from ``pull()``) through the stages, handing what leaves the last one to `deliver`.
    func push(_ sample: MediaSample, deliver: (MediaSample) throws -> Void) throws {
        try push(sample, from: 0, deliver: deliver)
    }

    @inline(__always)
    private func push(_ sample: MediaSample, from index: Int, deliver: (MediaSample) throws -> Void) throws {
        try chain.push(sample, from: index) { output in
            self.counts.samplesOut += 1
            try deliver(output)
        }
    }
}

@available(*, unavailable) extension BranchRunner: Sendable {}
