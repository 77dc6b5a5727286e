/// One sink of a running ``MediaGraph`` with the ``Interleaver`` in front of it, and its life cycle:
/// `begin` once, writes, `finish` once, also after an error elsewhere.
final class SinkRunner {
    let name: String
    private var sink: any MultiTrackSink
    private let trackCount: Int
    private var interleaver: Interleaver
    private(set) var counts: MediaGraph.Progress.Sink
    private var isFinished = false
    private var isFailed = false

    init(sink: any MultiTrackSink, trackCount: Int) {
        name = sink.name
        self.sink = sink
        self.trackCount = trackCount
        interleaver = Interleaver(trackCount: trackCount, bound: Interleaving())
        counts = .init(name: name)
    }

    /// Sets the interleaving bound for the run about to start.
    func prepare(bound: Interleaving) {
        interleaver = Interleaver(trackCount: trackCount, bound: bound)
    }

    /// Whether every track has ended and the sink was finished.
    var isDone: Bool { isFinished }

    /// Queues `sample` of `track` and writes what the interleaving lets through.
    func receive(_ sample: MediaSample, track: Int) throws {
        guard !isFinished, !isFailed else { return }
        if trackCount == 1, interleaver.hasBegun {
            // One track: nothing to interleave, so no queue.
            return try stamped { try write(sample, track) }
        }
        interleaver.enqueue(sample, track: track)
        counts.maxQueuedSamples = interleaver.highWaterMark
        try release()
    }

    /// Marks `track` ended and writes what that lets through; finishes the sink after the last track.
    func endTrack(_ track: Int) throws {
        guard !isFinished, !isFailed else { return }
        interleaver.end(track: track)
        if interleaver.isDoneReceiving {
            try stamped { try interleaver.releaseAll(begin: begin, write: write) }
            try finish()
        } else {
            try release()
        }
    }

    /// Finishes the sink (writes what is queued first, unless the sink itself failed).
    func finish() throws {
        guard !isFinished else { return }
        if !isFailed {
            try stamped { try interleaver.releaseAll(begin: begin, write: write) }
        }
        isFinished = true
        try stamped { try sink.finish() }
    }

    /// After an error elsewhere: writes what is queued and finishes, ignoring further errors, so that
    /// what was written stays a valid file.
    func finishAfterError() {
        guard !isFinished else { return }
        if !isFailed { try? interleaver.releaseAll(begin: begin, write: write) }
        isFinished = true
        try? sink.finish()
    }

    private func release() throws {
        try stamped { try interleaver.release(begin: begin, write: write) }
    }

    private func begin(_ firstSamples: [MediaSample?]) throws {
        try sink.begin(firstSamples: firstSamples)
    }

    private func write(_ sample: MediaSample, _ track: Int) throws {
        try sink.write(sample, track: track)
        counts.samplesWritten += 1
        counts.bytesWritten += Int64(sample.byteCount)
    }

    /// Runs `body`, marking the sink failed and stamping its name and sample index on an error.
    private func stamped(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            isFailed = true
            throw StampedError(error, stage: name, sampleIndex: counts.samplesWritten)
        }
    }
}

@available(*, unavailable) extension SinkRunner: Sendable {}

/// A ``MediaSink`` as a one-track ``MultiTrackSink``.
struct SingleTrackSink: MultiTrackSink {
    var base: any MediaSink
    let name: String

    init(_ base: any MediaSink) {
        self.base = base
        name = base.name
    }

    func begin(tracks: [MediaFormat?]) throws {}
    mutating func write(_ sample: MediaSample, track: Int) throws { try base.write(sample) }
    mutating func finish() throws { try base.finish() }
}
