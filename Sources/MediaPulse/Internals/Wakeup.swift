#if canImport(Glibc)
    import Glibc
#endif
// timespec: with CPulseAudio in the same module, the importer credits the Glibc struct to it (pulse's
// headers include <sys/time.h>), and MemberImportVisibility then asks for this import too.
internal import CPulseAudio

/// A counting semaphore (`sem_t`) that PulseAudio's mainloop thread posts and a waiting thread waits
/// on with a deadline: how a stream's callbacks wake ``AudioCaptureSource/next()``, a blocked
/// playback `write`, or a thread waiting for a state change or an operation.
///
/// `post` is what the real-time side calls: `sem_post` is an atomic increment plus a futex wake only
/// when someone sleeps; it takes no lock and never allocates (POSIX lists it as async-signal-safe).
/// A waiter always re-checks its condition after waking, so a stale post costs one extra check, and a
/// post made before the wait began is never lost (the count keeps it).
final class Wakeup: @unchecked Sendable {
    // Sendable: the semaphore is only used through sem_post / sem_timedwait, which are thread-safe by
    // POSIX; the pointer is set in init and freed in deinit, when no other reference exists.
    private let semaphore: UnsafeMutablePointer<sem_t>

    init() {
        semaphore = .allocate(capacity: 1)
        semaphore.initialize(to: sem_t())
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deinitialize(count: 1)
        semaphore.deallocate()
    }

    /// Wakes one waiter (or the next wait). Real-time safe.
    func post() { sem_post(semaphore) }

    /// Forgets posts not waited for (a consumer that never had to wait leaves one per callback), so
    /// that the next wait sleeps. Call it *before* checking the condition: a post after that check
    /// still ends the wait, and every post before it is covered by the check.
    func reset() {
        while sem_trywait(semaphore) == 0 {}
    }

    /// Sleeps until a post or for at most `nanoseconds` (a signal may end it early: callers re-check).
    func wait(nanoseconds: Int64) {
        guard nanoseconds > 0 else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)  // sem_timedwait measures on the realtime clock
        let total = Int64(now.tv_nsec) + nanoseconds % 1_000_000_000
        var deadline = timespec(
            tv_sec: now.tv_sec + Int(nanoseconds / 1_000_000_000) + Int(total / 1_000_000_000),
            tv_nsec: Int(total % 1_000_000_000))
        _ = sem_timedwait(semaphore, &deadline)
    }
}

/// Nanoseconds of `CLOCK_MONOTONIC`: deadlines for bounded waits.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64`.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
