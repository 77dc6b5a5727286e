import Glibc
import MediaCore

/// What a ``VideoPreviewSink`` and its window thread share, behind one lock: the queue of frames to show,
/// the counts, whether the window opened, and the requests that end it.
///
/// The waits (`waitUntilOpen`, `waitUntilEnded`, the renderer's wait for a due frame) poll every
/// millisecond or two rather than wait on a condition: a window draws at most a few hundred times a
/// second, and `Locked` (a pthread mutex ThreadSanitizer sees) is the library's one lock.
final class PreviewState: Sendable {
    /// How the preview ends.
    enum Ending: Sendable, Equatable {
        /// Running.
        case none
        /// Show what is queued, then close (the run finished).
        case drain
        /// Close now.
        case now
    }

    struct Shared: Sendable {
        var queue: [MediaSample] = []
        var statistics = VideoPreviewSink.Statistics()
        var opened = false
        var failure: MediaError?
        var ending = Ending.none
        var ended = false
        /// While draining: the host time after which frames not yet due are given up (a clock that
        /// stopped, a player paused, must not hold the end for ever). Moved on by each frame shown.
        var drainDeadline = MediaTime.invalid
    }

    /// How long a drain waits for a frame to fall due.
    static let drainPatience = MediaTime(value: 1, timescale: 1)

    /// The closures the window thread calls.
    struct Observers: Sendable {
        var key: (@Sendable (VideoPreviewSink.Key) -> Void)?
        var frameShown: (@Sendable (MediaTime, MediaTime) -> Void)?
    }

    let pacing: VideoPreviewSink.Pacing
    let whenClosed: VideoPreviewSink.CloseAction
    let capacity: Int
    let observers: Observers
    let shared = Locked(Shared())

    /// Whether a preview window is open in this process (SDL's video subsystem serves one thread).
    private static let windowTaken = Locked(false)

    init(
        pacing: VideoPreviewSink.Pacing, whenClosed: VideoPreviewSink.CloseAction, capacity: Int,
        observers: Observers = Observers()
    ) {
        (self.pacing, self.whenClosed, self.capacity, self.observers) = (pacing, whenClosed, capacity, observers)
    }

    /// Takes the process's one preview window, or throws `unavailable` when another preview has it.
    static func claimTheWindow() throws(MediaError) {
        let taken = windowTaken.withLock { taken in
            defer { taken = true }
            return taken
        }
        if taken {
            throw MediaError(
                .unavailable, "VideoPreviewSink: another preview window is open (one at a time in a process)")
        }
    }

    /// Gives the process's preview window back.
    static func releaseTheWindow() { windowTaken.withLock { $0 = false } }

    var statistics: VideoPreviewSink.Statistics {
        shared.withLock { s in
            var statistics = s.statistics
            statistics.queuedFrames = s.queue.count
            return statistics
        }
    }

    /// Whether a frame written now would not push another out (always, once the window is closed:
    /// the frame is then ignored).
    var hasRoom: Bool {
        shared.withLock { $0.queue.count < capacity || $0.statistics.isClosed || $0.ending != .none }
    }

    /// Drops the frames queued.
    func flush() { shared.withLock { $0.queue.removeAll(keepingCapacity: true) } }

    /// Why the window could not be opened or drawn in, if it could not.
    var failure: MediaError? { shared.withLock { $0.failure } }

    /// Queues a frame, pushing out the oldest when full; counts it when the window is closed.
    func enqueue(_ sample: MediaSample) {
        shared.withLock { s in
            guard !s.statistics.isClosed, s.ending == .none else {
                s.statistics.framesAfterClose += 1
                return
            }
            if s.queue.count >= capacity {
                s.queue.removeFirst()
                s.statistics.overflowFrames += 1
            }
            s.queue.append(sample)
        }
    }

    /// Asks the window to show what is queued and close.
    func finishQueue() {
        shared.withLock {
            guard $0.ending == .none else { return }
            $0.ending = .drain
            $0.drainDeadline = MediaClock.hostTime + Self.drainPatience
        }
    }

    /// Asks the window to close now; `byUser` when its close button did.
    func requestClose(byUser: Bool) {
        shared.withLock {
            $0.ending = .now
            if byUser { $0.statistics.closedByUser = true }
        }
    }

    /// Waits until the window thread has opened the window or failed to; the failure, if any.
    func waitUntilOpen() -> MediaError? {
        while true {
            let (opened, failure) = shared.withLock { ($0.opened, $0.failure) }
            if let failure { return failure }
            if opened { return nil }
            usleep(1_000)
        }
    }

    /// Waits until the window thread has ended (closed the window and left SDL).
    func waitUntilEnded() {
        while !shared.withLock({ $0.ended }) { usleep(2_000) }
    }
}
