import DequeModule

/// The queue in front of one ``MultiTrackSink``: takes each track's samples as they come and hands
/// them on in decode-time order, within the bound of an ``Interleaving`` (whose doc states the policy).
struct Interleaver {
    private let bound: Interleaving
    /// The sink's name, for the ``MediaError/Code/stalled`` error.
    private let sinkName: String
    private var queues: [Deque<MediaSample>]
    private var ended: [Bool]
    /// The decode time of the last sample each track delivered (queued or already written).
    private var latest: [MediaTime?]
    /// Whether ``MultiTrackSink/begin(tracks:)`` has been called.
    private(set) var hasBegun = false
    /// Samples queued now.
    private(set) var queuedCount = 0
    /// The most samples that were ever queued at once: for tests of the bound.
    private(set) var highWaterMark = 0

    init(trackCount: Int, bound: Interleaving, sinkName: String) {
        self.bound = bound
        self.sinkName = sinkName
        queues = Array(repeating: Deque(), count: trackCount)
        ended = Array(repeating: false, count: trackCount)
        latest = Array(repeating: nil, count: trackCount)
    }

    /// Whether every track has ended (what is queued can all be written).
    var isDoneReceiving: Bool { !ended.contains(false) }

    /// Queues `sample` of `track`.
    mutating func enqueue(_ sample: MediaSample, track: Int) {
        queues[track].append(sample)
        queuedCount += 1
        highWaterMark = max(highWaterMark, queuedCount)
        let time = sample.timing.effectiveDecodeTime
        if time.isNumeric { latest[track] = time }
    }

    /// Records that the sink was begun by its runner directly (a single track needs no queue).
    mutating func markBegun() { hasBegun = true }

    /// Marks `track` as ended: nothing will be waited for from it.
    mutating func end(track: Int) { ended[track] = true }

    /// Hands on every sample that may be written now (see ``Interleaving``), calling `begin` with each
    /// track's first sample (or `nil` for a track that ended empty) once they are all known.
    mutating func release(
        begin: ([MediaSample?]) throws -> Void,
        write: (MediaSample, Int) throws -> Void
    ) throws {
        if !hasBegun {
            let silent = queues.indices.filter { queues[$0].isEmpty && !ended[$0] }
            if !silent.isEmpty {
                // Before the start only the sample limit applies: an encoder's look-ahead (x264's can
                // hold two seconds of frames) delays a track's first sample by more than the media-time
                // limit, and the sink cannot write anything before it knows every track's format.
                guard queuedCount < bound.maxQueuedSamples else {
                    throw MediaError(
                        .stalled,
                        "track \(silent.map(String.init).joined(separator: ", ")) produced no sample while the others queued \(count: queuedCount, "sample") (the interleaving bound is \(count: bound.maxQueuedSamples, "sample") before every track has started)",
                        stage: sinkName)
                }
                return
            }
            hasBegun = true
            try begin(queues.map { $0.first })
        }
        while let head = earliestHead() {
            guard canWrite(head) || isOverBound(head: head.time) else { return }
            try pop(head.track, write)
        }
    }

    /// Hands on everything queued, in decode-time order, whatever the bound: at the end of the run, or
    /// after an error, so that what the tracks produced reaches the file.
    mutating func releaseAll(
        begin: ([MediaSample?]) throws -> Void,
        write: (MediaSample, Int) throws -> Void
    ) throws {
        if !hasBegun {
            guard queuedCount > 0 else { return }
            hasBegun = true
            try begin(queues.map { $0.first })
        }
        while let head = earliestHead() { try pop(head.track, write) }
    }

    private mutating func pop(_ track: Int, _ write: (MediaSample, Int) throws -> Void) throws {
        guard let sample = queues[track].popFirst() else { return }
        queuedCount -= 1
        try write(sample, track)
    }

    /// The track whose queued head has the earliest decode time (a sample without one counts as
    /// earliest); ties go to the lower track.
    private func earliestHead() -> (track: Int, time: MediaTime)? {
        var best: (track: Int, time: MediaTime)?
        for track in queues.indices {
            guard let sample = queues[track].first else { continue }
            let time = sample.timing.effectiveDecodeTime
            guard time.isNumeric else { return (track, time) }
            if let current = best, !(time < current.time) { continue }
            best = (track, time)
        }
        return best
    }

    /// Whether no other track can still produce a sample earlier than `head`.
    private func canWrite(_ head: (track: Int, time: MediaTime)) -> Bool {
        guard head.time.isNumeric else { return true }
        for track in queues.indices where track != head.track && queues[track].isEmpty && !ended[track] {
            guard let last = latest[track], head.time <= last else { return false }
        }
        return true
    }

    /// Whether the queue has reached a limit of the bound, given the earliest queued decode time.
    private func isOverBound(head: MediaTime) -> Bool {
        if queuedCount >= bound.maxQueuedSamples { return true }
        guard head.isNumeric else { return false }
        var newest = head
        for track in queues.indices where !queues[track].isEmpty {
            if let last = latest[track], newest < last { newest = last }
        }
        return bound.maxQueuedDuration < newest - head
    }
}
