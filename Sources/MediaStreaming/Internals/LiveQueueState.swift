import DequeModule
import MediaCore

/// The bookkeeping of a ``LiveStreamSink``'s queue, without any locking: what is queued, the drop
/// policy and the counters. ``LiveQueue`` guards one of these with its mutex.
///
/// Drop policy (media time, by decode time): a sample may be queued when the span from the oldest
/// queued sample's decode time to its own is at most `limit`. Past it, video is dropped a GOP run at a
/// time: from the oldest queued video sample up to (not including) the next queued video keyframe;
/// when no keyframe follows in the queue, every later video sample up to the next keyframe that
/// arrives is dropped too (``droppingGOP``), so a GOP is never resumed after a hole. When no video is
/// left to drop and the new sample is video, it is dropped (its GOP with it); audio is never dropped:
/// the writer waits instead.
struct LiveQueueState {
    struct Entry: Sendable {
        var sample: MediaSample
        var track: Int
        var isVideo: Bool
        var isKeyframe: Bool
        var decodeTime: MediaTime
    }

    enum Admission {
        case queued
        case dropped
        case mustWait
    }

    let limit: MediaTime
    var entries = Deque<Entry>()
    var droppingGOP = false
    var stats = LiveStreamSink.Stats()
    var latencies: [Double] = []
    var latencyCursor = 0
    static let latencyCapacity = 4096
    /// (seconds on the clock, bytes sent) at most every 100 ms over the last 2 s, for the bit rate.
    var rateMarks = Deque<(seconds: Double, bytes: Int64)>()

    /// Whether `entry` is a video frame of the GOP being dropped (counted as dropped); a keyframe ends
    /// the dropping.
    private mutating func dropsWithItsGOP(_ entry: Entry) -> Bool {
        guard entry.isVideo else { return false }
        if entry.isKeyframe {
            droppingGOP = false
            return false
        }
        guard droppingGOP else { return false }
        stats.droppedFrames += 1
        return true
    }

    /// Queues `entry`, drops what the policy says, or says the writer must wait (audio over the limit).
    mutating func admit(_ entry: Entry) -> Admission {
        if dropsWithItsGOP(entry) { return .dropped }
        while exceeds(with: entry) {
            if dropOldestVideoRun() { continue }
            if entry.isVideo {
                stats.droppedFrames += 1
                stats.droppedGOPs += entry.isKeyframe ? 1 : 0
                droppingGOP = true
                return .dropped
            }
            return .mustWait
        }
        // A run just dropped may have reached the end of the queue: the new frame belongs to that GOP
        // unless it starts the next one.
        if dropsWithItsGOP(entry) { return .dropped }
        entries.append(entry)
        let span = queuedSeconds
        stats.queueSeconds = span
        stats.maxQueueSeconds = max(stats.maxQueueSeconds, span)
        return .queued
    }

    /// The oldest entry, removed.
    mutating func takeFirst() -> Entry? {
        let first = entries.popFirst()
        stats.queueSeconds = queuedSeconds
        return first
    }

    /// Counts a sample handed to the inner sink at `time`, `latency` seconds after its capture.
    mutating func recordSent(_ entry: Entry, latency: Double?, bytes: Int64?, at time: MediaTime) {
        stats.sentFrames += 1
        if entry.isVideo { stats.sentVideoFrames += 1 } else { stats.sentAudioFrames += 1 }
        if let bytes {
            stats.sentBytes = bytes
            recordRate(bytes: bytes, at: time)
        }
        guard let latency else { return }
        if latencies.count < Self.latencyCapacity {
            latencies.append(latency)
        } else {
            latencies[latencyCursor] = latency
            latencyCursor = (latencyCursor + 1) % Self.latencyCapacity
        }
    }

    /// Keeps a mark every 100 ms and sets the bit rate over the newest second-or-more span.
    private mutating func recordRate(bytes: Int64, at time: MediaTime) {
        guard let now = time.seconds else { return }
        if let last = rateMarks.last, now - last.seconds < 0.1 { return }
        rateMarks.append((now, bytes))
        while let first = rateMarks.first, now - first.seconds > 2 { rateMarks.removeFirst() }
        // The oldest mark at least a second old (the marks are 0.1 s apart, so the span is 1–1.1 s).
        guard let base = rateMarks.last(where: { now - $0.seconds >= 1 }) else { return }
        stats.sentBitRate = Double(bytes - base.bytes) * 8 / (now - base.seconds)
    }

    /// The bit rate over the span from the newest mark at least a second before `now` to `now`: the
    /// bytes sent since that mark over the time since it, so that it decays while nothing is sent, and is
    /// 0 once the newest mark is over a second old. `nil` before the marks span a second (as
    /// ``LiveStreamSink/Stats/sentBitRate`` is before a second of sending).
    func bitRate(at now: Double) -> Double? {
        guard let last = rateMarks.last, let first = rateMarks.first, now - first.seconds >= 1 else { return nil }
        if now - last.seconds >= 1 { return 0 }
        guard let base = rateMarks.last(where: { now - $0.seconds >= 1 }) else { return nil }
        return Double(last.bytes - base.bytes) * 8 / (now - base.seconds)
    }

    /// The stats with the latency percentiles over `latencies` (the last 4096 samples sent); sorts, so
    /// call it outside the lock on a copy.
    static func snapshot(_ stats: LiveStreamSink.Stats, latencies: [Double]) -> LiveStreamSink.Stats {
        var result = stats
        let sorted = latencies.sorted()
        if !sorted.isEmpty {
            result.latencyP50 = sorted[min(sorted.count - 1, sorted.count * 50 / 100)]
            result.latencyP99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        }
        return result
    }

    /// The decode-time span of the queue, in seconds.
    var queuedSeconds: Double {
        guard let first = entries.first, let last = entries.last else { return 0 }
        return (last.decodeTime - first.decodeTime).seconds ?? 0
    }

    private func exceeds(with entry: Entry) -> Bool {
        guard let first = entries.first else { return false }
        let span = entry.decodeTime - first.decodeTime
        return span.isNumeric && span > limit
    }

    /// Drops the video from the oldest queued video sample up to the next queued keyframe; `false`
    /// when no video is queued.
    private mutating func dropOldestVideoRun() -> Bool {
        guard let start = entries.firstIndex(where: \.isVideo) else { return false }
        var kept = Deque<Entry>()
        var dropping = true
        var reachedKeyframe = false
        for (index, entry) in entries.enumerated() {
            if index >= start, dropping, entry.isVideo {
                if index > start, entry.isKeyframe {
                    dropping = false
                    reachedKeyframe = true
                } else {
                    stats.droppedFrames += 1
                    if entry.isKeyframe { stats.droppedGOPs += 1 }
                    continue
                }
            }
            kept.append(entry)
        }
        entries = kept
        if !reachedKeyframe { droppingGOP = true }
        stats.queueSeconds = queuedSeconds
        return true
    }
}
