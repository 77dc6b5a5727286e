#if canImport(Glibc)
    import Glibc
#endif

/// A clock that live sources stamp their samples on: `CMClock`, host time.
///
/// Its time is the system's monotonic clock (`CLOCK_MONOTONIC`: it never jumps with the wall clock,
/// and does not run while the machine sleeps), read as exact ``MediaTime`` in nanoseconds. A clock has
/// an **anchor**: the host time that is media time zero for a recording. Live sources of one graph that
/// share one clock (and so one anchor) stamp samples captured at the same instant with the same media
/// time, whichever source they come from: audio and video branches that start together start at the
/// same media time.
///
/// ```swift
/// let clock = MediaClock()                    // anchored now
/// let t = clock.now                           // media time since the anchor
/// let host = clock.hostTime(for: t)           // and back
/// ```
///
/// Samples from files do not use a clock: they carry the file's own time.
public struct MediaClock: Sendable, Hashable {
    /// The host time (nanoseconds of `CLOCK_MONOTONIC`) that is media time zero.
    public let anchor: MediaTime

    /// A clock whose media time zero is now.
    public init() { anchor = MediaClock.hostTime }

    /// A clock whose media time zero is the host time `anchor`.
    public init(anchor: MediaTime) { self.anchor = anchor }

    /// The host time now: nanoseconds of `CLOCK_MONOTONIC`, `CMClockGetTime(CMClockGetHostTimeClock())`.
    public static var hostTime: MediaTime {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return MediaTime(value: Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), timescale: 1_000_000_000)
    }

    /// The media time now: how long since the anchor.
    public var now: MediaTime { mediaTime(forHostTime: MediaClock.hostTime) }

    /// The media time of the host time `host` (a capture time from a device, say).
    public func mediaTime(forHostTime host: MediaTime) -> MediaTime { host - anchor }

    /// The host time at which media time `time` happens (for pacing, or to schedule playback).
    public func hostTime(for time: MediaTime) -> MediaTime { anchor + time }

    /// Waits until the media time `time` has come (returns at once when it has passed).
    public func sleep(until time: MediaTime) {
        let wait = hostTime(for: time) - MediaClock.hostTime
        guard wait.isNumeric, wait > .zero else { return }
        let nanoseconds = wait.converted(to: 1_000_000_000, rounding: .up).value
        var pause = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&pause, &remaining) != 0 && errno == EINTR { pause = remaining }
    }
}
