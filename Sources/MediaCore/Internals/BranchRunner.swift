/// One branch of a running ``MediaGraph``: its source and stages, and the life cycle the driver
/// guarantees them (process*, finish once, nothing after a throw), with every error stamped here, in one
/// place, with the stage's name and the index of the sample it was given.
///
/// Names are computed once, when the branch is built: the per-sample path does no string work.
final class BranchRunner {
    let name: String
    private var source: any MediaSource
    private let sourceName: String
    private let stages: [StageSlot]
    /// The (sink, track) inputs this branch's output feeds; set when a run starts.
    var routes: [Route] = []
    /// Counts for progress.
    var counts: MediaGraph.Progress.Branch
    /// Whether the source ended (or failed) and the stages were drained.
    private(set) var isEnded = false
    /// The source's error, if it failed: reported after the other branches have run to their end.
    private(set) var sourceError: (any Error)?

    init(name: String?, source: any MediaSource, stages: [any MediaStage]) {
        sourceName = source.name
        self.name = name ?? sourceName
        self.source = source
        self.stages = stages.map(StageSlot.init)
        counts = .init(name: self.name)
    }

    /// Pulls one sample from the source and pushes it through the stages, handing what leaves the last
    /// stage to `deliver`. At the end of the source (or when it fails) drains the stages and returns
    /// `false`.
    func step(deliver: (MediaSample) throws -> Void) throws -> Bool {
        guard !isEnded else { return false }
        let next: MediaSample?
        do {
            next = try source.next()
        } catch let error as MediaError {
            sourceError = error.inStage(sourceName, sampleIndex: counts.samplesRead)
            next = nil
        } catch {
            sourceError = error
            next = nil
        }
        guard let sample = next else {
            try drain(deliver: deliver)
            return false
        }
        counts.samplesRead += 1
        counts.framesRead += Int64(sample.frameCount)
        let end = sample.timing.presentationTime + sample.timing.duration
        if end.isNumeric { counts.position = end }
        try push(sample, from: 0, deliver: deliver)
        return true
    }

    /// Ends the branch without reading further: finishes every stage in order, draining what each holds
    /// into the ones after it. Stages that already finished or failed are not called again.
    func drain(deliver: (MediaSample) throws -> Void) throws {
        guard !isEnded else { return }
        isEnded = true
        for index in stages.indices {
            let slot = stages[index]
            guard slot.state == .open else { continue }
            slot.state = .finished
            do {
                try slot.stage.finish { output in try self.push(output, from: index + 1, deliver: deliver) }
            } catch let error as StampedError {
                throw error
            } catch {
                slot.state = .failed
                throw StampedError(error, stage: slot.name, sampleIndex: slot.samplesIn)
            }
        }
    }

    /// Marks the branch ended without draining (after another part of the graph failed).
    func abandon() { isEnded = true }

    private func push(_ sample: MediaSample, from index: Int, deliver: (MediaSample) throws -> Void) throws {
        guard index < stages.count else {
            counts.samplesOut += 1
            try deliver(sample)
            return
        }
        let slot = stages[index]
        guard slot.state == .open else {
            throw MediaError.stageFinished(slot.name).inStage(slot.name, sampleIndex: slot.samplesIn)
        }
        do {
            try slot.stage.process(sample) { output in try self.push(output, from: index + 1, deliver: deliver) }
            slot.samplesIn += 1
        } catch let error as StampedError {
            throw error
        } catch {
            slot.state = .failed
            throw StampedError(error, stage: slot.name, sampleIndex: slot.samplesIn)
        }
    }
}

@available(*, unavailable) extension BranchRunner: Sendable {}

/// One stage with its cached name and its place in the life cycle.
final class StageSlot {
    enum State { case open, finished, failed }
    var stage: any MediaStage
    let name: String
    var state = State.open
    var samplesIn: Int64 = 0

    init(_ stage: any MediaStage) {
        self.stage = stage
        name = stage.name
    }
}

/// An error already stamped with the stage it happened in, travelling up through the emit closures
/// of the stages before it (which must not stamp it again, nor count themselves as failed).
struct StampedError: Error {
    let error: any Error

    init(_ error: any Error, stage: String, sampleIndex: Int64) {
        if let media = error as? MediaError {
            self.error = media.inStage(stage, sampleIndex: sampleIndex)
        } else {
            self.error = error
        }
    }

    /// The error a caller sees: `error` itself, unwrapped.
    static func unwrap(_ error: any Error) -> any Error {
        (error as? StampedError)?.error ?? error
    }
}
