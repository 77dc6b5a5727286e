/// One sink of a running ``MediaGraph`` with the ``Interleaver`` in front of it. The sink sits in a
/// ``CheckedMultiTrackSink``, which keeps its life cycle (`begin` once, writes, `finish` once, also
/// after an error elsewhere) and stamps its errors with its name and sample index. A sink that joins a
/// running graph has a ``JoinGate`` in front of the interleaver, which decides where its recording starts.
final class SinkRunner {
    let name: String
    private let sink: CheckedMultiTrackSink
    private let trackCount: Int
    private var interleaver: Interleaver
    private(set) var counts: MediaGraph.Progress.Sink
    /// The array a single-track sink is begun with, made here so that the run allocates nothing for it.
    private var firstSample: [MediaSample?] = [nil]
    private var gate: JoinGate?

    init(sink: any MultiTrackSink, trackCount: Int, gate: JoinGate? = nil) {
        self.gate = gate
        self.sink = CheckedMultiTrackSink.wrapping(sink)
        name = self.sink.name
        self.trackCount = trackCount
        interleaver = Interleaver(trackCount: trackCount, bound: Interleaving(), sinkName: name)
        counts = .init(name: name)
    }

    /// Sets the interleaving bound for the run about to start.
    func prepare(bound: Interleaving) {
        interleaver = Interleaver(trackCount: trackCount, bound: bound, sinkName: name)
    }

    /// The sink the runner was given, with everything written to it.
    var base: any MultiTrackSink { sink.base }

    /// Whether the sink was finished.
    var isDone: Bool { sink.state == .finished }

    /// Queues `sample` of `track` and writes what the interleaving lets through. Does nothing once the
    /// sink has finished or failed.
    func receive(_ sample: MediaSample, track: Int) throws {
        guard sink.state == .open else { return }
        if gate != nil { return try gate!.receive(sample, track: track, release: admit) }
        try admit(sample, track: track)
    }

    /// Samples the gate let through (or all of them, with no gate).
    private func admit(_ sample: MediaSample, track: Int) throws {
        guard sink.state == .open else { return }
        if trackCount == 1 {
            // One track: nothing to interleave, so no queue; begun with the first sample directly.
            if !interleaver.hasBegun {
                interleaver.markBegun()
                firstSample[0] = sample
                defer { firstSample[0] = nil }
                try sink.begin(firstSamples: firstSample)
            }
            return try write(sample, track)
        }
        interleaver.enqueue(sample, track: track)
        counts.maxQueuedSamples = interleaver.highWaterMark
        try interleaver.release(begin: sink.begin, write: write)
    }

    /// Marks `track` ended and writes what that lets through; finishes the sink after the last track.
    func endTrack(_ track: Int) throws {
        guard sink.state == .open else { return }
        try gate?.end(track: track, release: admit)
        interleaver.end(track: track)
        if interleaver.isDoneReceiving {
            try finish()
        } else {
            try interleaver.release(begin: sink.begin, write: write)
        }
    }

    /// Finishes the sink, writing what is queued first unless the sink itself failed.
    func finish() throws {
        guard sink.state != .finished else { return }
        if sink.state == .open {
            try gate?.flush(release: admit)
            try interleaver.releaseAll(begin: sink.begin, write: write)
        }
        try sink.finish()
    }

    /// After an error elsewhere: writes what is queued and finishes, ignoring further errors, so that
    /// what was written stays a valid file.
    func finishAfterError() {
        guard sink.state != .finished else { return }
        if sink.state == .open { try? interleaver.releaseAll(begin: sink.begin, write: write) }
        try? sink.finish()
    }

    /// Samples the join gate dropped because they came before the sink's start.
    var skippedBeforeStart: Int { gate?.skipped ?? 0 }

    private func write(_ sample: MediaSample, _ track: Int) throws {
        try sink.write(sample, track: track)
        counts.samplesWritten += 1
        counts.bytesWritten += Int64(sample.byteCount)
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
    func begin(firstSamples: [MediaSample?]) throws {}
    mutating func write(_ sample: MediaSample, track: Int) throws { try base.write(sample) }
    mutating func finish() throws { try base.finish() }
}
