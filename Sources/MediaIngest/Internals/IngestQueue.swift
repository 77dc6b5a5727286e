import DequeModule
import MediaCore

/// The samples of one published stream between the server's event loop (which puts) and the sources of
/// the graph the caller built (which take, each on its own thread): a queue per track, bounded in bytes
/// together.
///
/// A track is queued while it is *wanted*: from the start until the stream's handler has returned, and
/// after that only if a source was made for it, so that a track nobody reads does not fill the queue.
final class IngestQueue: @unchecked Sendable {
    // Sendable by construction: every stored var is read and written only between `mutex.lock()` and
    // `mutex.unlock()` (the condition wait releases and retakes it), and MediaSample is Sendable.
    enum Track: Int, CaseIterable {
        case audio, video
    }

    private let mutex = PthreadMutex()
    private let changed = PthreadCondition()
    private var queues: [Deque<MediaSample>] = [[], []]
    private var wanted: [Bool] = [true, true]
    private var selected: [Bool] = [false, false]
    private var bytes = 0
    private var end: Result<Void, MediaError>?
    private var counts = IngestStream.Statistics()
    /// The sources asleep in ``take(_:)``, per track: ``put(_:on:)`` wakes them (a system call) only for
    /// a sample of a track one waits for. A graph run on one thread waits for one track while the other's
    /// samples arrive.
    private var waiting = [0, 0]
    let byteLimit: Int

    init(byteLimit: Int) {
        self.byteLimit = byteLimit
    }

    /// Queues `sample` on `track` (dropped when the track is not wanted); `false` when that would
    /// hold more than the limit: the stream has then failed with ``MediaError/Code/limitExceeded``.
    func put(_ sample: MediaSample, on track: Track) -> Bool {
        mutex.lock()
        defer { mutex.unlock() }
        guard end == nil else { return true }
        if track == .audio { counts.audioSamples += 1 } else { counts.videoSamples += 1 }
        counts.bytes += Int64(sample.byteCount)
        guard wanted[track.rawValue] else { return true }
        guard bytes + sample.byteCount <= byteLimit else {
            end = .failure(
                MediaError(
                    .limitExceeded,
                    "the graph is not taking the stream's samples: \(byteLimit) bytes are queued"))
            changed.broadcast()
            return false
        }
        bytes += sample.byteCount
        queues[track.rawValue].append(sample)
        if waiting[track.rawValue] > 0 { changed.broadcast() }
        return true
    }

    /// Ends the stream: the sources hand out what is queued, then end (or throw `error`).
    func finish(_ error: MediaError? = nil) {
        mutex.lock()
        if end == nil { end = error.map { .failure($0) } ?? .success(()) }
        changed.broadcast()
        mutex.unlock()
    }

    /// Notes that a source reads `track`.
    func select(_ track: Track) {
        mutex.lock()
        selected[track.rawValue] = true
        mutex.unlock()
    }

    /// The stream's handler has returned: the tracks no source reads are dropped from now on.
    func keepSelected() {
        mutex.lock()
        for track in Track.allCases where !selected[track.rawValue] {
            wanted[track.rawValue] = false
            bytes -= queues[track.rawValue].reduce(0) { $0 + $1.byteCount }
            queues[track.rawValue].removeAll()
        }
        mutex.unlock()
    }

    /// The next sample of `track`, waiting for one; `nil` at the end.
    func take(_ track: Track) throws(MediaError) -> MediaSample? {
        mutex.lock()
        defer { mutex.unlock() }
        while true {
            if let sample = queues[track.rawValue].popFirst() {
                bytes -= sample.byteCount
                return sample
            }
            switch end {
            case .success: return nil
            case .failure(let error): throw error
            case nil:
                waiting[track.rawValue] += 1
                changed.wait(mutex)
                waiting[track.rawValue] -= 1
            }
        }
    }

    /// What has arrived so far, and what is queued now.
    var statistics: IngestStream.Statistics {
        mutex.lock()
        defer { mutex.unlock() }
        var now = counts
        now.queuedBytes = bytes
        now.queuedAudioSamples = queues[Track.audio.rawValue].count
        now.queuedVideoSamples = queues[Track.video.rawValue].count
        now.hasEnded = end != nil
        return now
    }
}
