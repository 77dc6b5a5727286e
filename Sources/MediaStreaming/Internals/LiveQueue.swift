import MediaCore

/// The queue between a ``LiveStreamSink``'s writer (the graph) and its sender thread: a
/// ``LiveQueueState`` behind a `pthread_mutex_t`, with a condition variable (on `CLOCK_MONOTONIC`) for
/// the two sides to wait on. Every wait is bounded (``waitSlice``) and re-checks its condition; none
/// spins.
final class LiveQueue: @unchecked Sendable {
    // Sendable by construction: `state`, `closed`, `finishing`, `senderDone` and `failure` are read and
    // written only between pthread_mutex_lock and pthread_mutex_unlock on `mutex` (every access goes
    // through `locked`), and what leaves the lock is Sendable (samples, stats, errors).
    private let mutex = PthreadMutex()
    private let condition = PthreadCondition(monotonic: true)
    private var state: LiveQueueState
    private var finishing = false
    private var senderDone = false
    private var failure: MediaError?
    /// Longest single wait, in nanoseconds, before a waiter re-checks.
    private let waitSlice: Int64 = 100_000_000

    init(limit: MediaTime) {
        state = LiveQueueState(limit: limit)
    }

    private func locked<R>(_ body: () throws(MediaError) -> R) throws(MediaError) -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return try body()
    }

    /// Waits on the condition at most one slice (called with the mutex held).
    private func waitSliceLocked() {
        condition.wait(mutex, forNanoseconds: waitSlice)
    }

    /// Queues `entry` or drops it by the policy; waits (bounded slices) while audio would exceed the
    /// limit. Throws the sender's error once it has failed.
    func put(_ entry: LiveQueueState.Entry) throws(MediaError) {
        try locked { () throws(MediaError) in
            var waited = false
            while true {
                if let failure { throw failure }
                switch state.admit(entry) {
                case .queued, .dropped:
                    condition.broadcast()
                    return
                case .mustWait:
                    if !waited { state.stats.writerWaits += 1 }
                    waited = true
                    if senderDone { throw MediaError(.stageFinished, "the live stream's sender has ended") }
                    waitSliceLocked()
                }
            }
        }
    }

    /// The next entry for the sender; `nil` once ``finish()`` was called and the queue is empty.
    func take() -> LiveQueueState.Entry? {
        // `locked` only rethrows the body's errors; this body throws none.
        (try? locked { () throws(MediaError) -> LiveQueueState.Entry? in
            while true {
                if let entry = state.takeFirst() {
                    condition.broadcast()
                    return entry
                }
                if finishing { return nil }
                waitSliceLocked()
            }
        }) ?? nil
    }

    /// Records a sample handed to the inner sink at `time` (on the sink's clock).
    func didSend(_ entry: LiveQueueState.Entry, latency: Double?, bytes: Int64?, reconnects: Int?, at time: MediaTime) {
        try? locked { () throws(MediaError) in
            state.recordSent(entry, latency: latency, bytes: bytes, at: time)
            if let reconnects { state.stats.reconnects = reconnects }
        }
    }

    /// Records a sample the inner sink accepted but could not send (its connection was down).
    func didDiscard(reconnects: Int, bytes: Int64?) {
        try? locked { () throws(MediaError) in
            state.stats.droppedWhileReconnecting += 1
            state.stats.reconnects = reconnects
            if let bytes { state.stats.sentBytes = bytes }
        }
    }

    /// Whether the sender has ended (finished the inner sink, or never started).
    var senderHasEnded: Bool {
        (try? locked { () throws(MediaError) in senderDone }) ?? true
    }

    /// Records the sender's first error: the writer throws it from then on.
    func fail(_ error: MediaError) {
        try? locked { () throws(MediaError) in
            if failure == nil { failure = error }
            condition.broadcast()
        }
    }

    /// No more entries will come: the sender drains the queue, then ends.
    func finish() {
        try? locked { () throws(MediaError) in
            finishing = true
            condition.broadcast()
        }
    }

    /// The sender has finished the inner sink, which sent `bytes` in all (when it says).
    func senderEnded(bytes: Int64?) {
        try? locked { () throws(MediaError) in
            if let bytes { state.stats.sentBytes = bytes }
            senderDone = true
            condition.broadcast()
        }
    }

    /// Waits (bounded slices) until the sender has ended; its error, if any.
    func waitForSender() -> MediaError? {
        (try? locked { () throws(MediaError) -> MediaError? in
            while !senderDone { waitSliceLocked() }
            return failure
        }) ?? nil
    }

    /// The stats at `now` (on the sink's clock): the sent bit rate is over the second before `now`, so it
    /// falls to 0 while nothing is sent (an outage), instead of keeping its last value.
    func stats(at now: MediaTime) -> LiveStreamSink.Stats {
        // Copied under the lock, sorted outside it. The latencies are copied into a buffer of their own, not
        // shared copy-on-write with the sender's: handing a shared buffer back (the sender appends in place once
        // this copy's reference is gone) is ordered by the reference count inside the Swift runtime, which
        // ThreadSanitizer does not see, and an optimised build drops the reference early enough for it to report.
        let copy = try? locked { () throws(MediaError) in
            var stats = state.stats
            if let now = now.seconds { stats.sentBitRate = state.bitRate(at: now) ?? stats.sentBitRate }
            return (stats, state.latencies.withUnsafeBufferPointer { Array($0) })
        }
        guard let (stats, latencies) = copy else { return LiveStreamSink.Stats() }
        return LiveQueueState.snapshot(stats, latencies: latencies)
    }
}
