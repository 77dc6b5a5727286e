/// Stages in a row, each in its ``CheckedStage``: the one push/forward/drain loop every driver runs.
///
/// ``push(_:from:deliver:)`` gives a sample to stage `index`, and each sample a stage emits goes straight
/// to the next one (memory stays flat: nothing is queued); what leaves the last stage goes to `deliver`.
/// ``drain(deliver:)`` finishes the stages in order, each draining what it held back (an encoder's
/// delay, a resampler's tail) into the ones after it. ``BranchRunner`` (a source and its stages, for
/// ``Pipeline`` and every ``MediaGraph`` run), ``MediaBin`` (a chain that is itself a stage) and the
/// threads of ``Pipeline/runConcurrently(queueDepth:stop:progress:)`` (a chain of one stage each) all drive
/// their stages through it.
///
/// An error a stage throws is stamped by its guard; an error from further down (the next stages, the
/// sink, the caller's closure) travels up as a ``DownstreamError``, so that the stages it passes through
/// rethrow it as it is and stay open.
final class StageChain {
    /// The stages, in order.
    let stages: [CheckedStage]
    /// Whether ``drain(deliver:)`` ran (or the chain was abandoned).
    private(set) var isDrained = false

    init(_ stages: [any MediaStage]) {
        self.stages = stages.map(CheckedStage.wrapping)
    }

    /// Gives `sample` to stage `index` (the whole chain from 0); at the end of the chain, to `deliver`.
    @inline(__always)
    func push(_ sample: MediaSample, from index: Int = 0, deliver: (MediaSample) throws -> Void) throws {
        guard index < stages.count else { return try deliver(sample) }
        try stages[index].process(
            sample, forwardingTo: { output in try self.forward(output, to: index + 1, deliver: deliver) })
    }

    /// Finishes every stage still open, in order, draining what each holds into the ones after it.
    /// Stages that already finished or failed are not called again; a second drain does nothing.
    func drain(deliver: (MediaSample) throws -> Void) throws {
        guard !isDrained else { return }
        isDrained = true
        for index in stages.indices where stages[index].state == .open {
            try stages[index].finish(forwardingTo: { output in
                try self.forward(output, to: index + 1, deliver: deliver)
            })
        }
    }

    /// Marks the chain drained without finishing its stages (after another part of the run failed), and
    /// tells the stages that want to know (a ``MediaTap`` ends its sequence, a ``MediaBin`` tells its
    /// children).
    func abandon() {
        guard !isDrained else { return }
        isDrained = true
        for stage in stages { (stage.base as? any AbandonObserving)?.runAbandoned() }
    }

    /// Asks every stage that can (``KeyframeForcing``) to code its next picture as a keyframe.
    func forceKeyframe() {
        for stage in stages where stage.state == .open { (stage.base as? any KeyframeForcing)?.forceKeyframe() }
    }

    /// Pushes what stage `index - 1` emitted on; an error from there on is the stage's downstream's.
    private func forward(_ sample: MediaSample, to index: Int, deliver: (MediaSample) throws -> Void) throws {
        do { try push(sample, from: index, deliver: deliver) } catch { throw DownstreamError(error: error) }
    }
}

@available(*, unavailable) extension StageChain: Sendable {}

/// A stage that must know when a run lets go of it without finishing it (after an error elsewhere): a
/// ``MediaTap`` ends its sequence then, so that its reader's loop ends too.
protocol AbandonObserving {
    /// The run ended without finishing this stage; it gets no further call.
    func runAbandoned()
}
