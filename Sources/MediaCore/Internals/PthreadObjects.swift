#if canImport(Glibc)
    import Glibc
#endif

/// One `pthread_mutex_t`, allocated once (a pthread object must not move, so it cannot be a stored
/// struct) and destroyed with its owner: the lock of ``Locked``, ``BoundedQueue`` and MediaStreaming's
/// `LiveQueue` (hence `package`).
/// ThreadSanitizer intercepts pthread locks, which is why they are used rather than `Mutex`.
package final class PthreadMutex {
    /// The mutex, for `pthread_cond_wait`.
    let raw: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        raw = .allocate(capacity: 1)
        raw.initialize(to: pthread_mutex_t())
        pthread_mutex_init(raw, nil)
    }

    deinit {
        pthread_mutex_destroy(raw)
        raw.deinitialize(count: 1)
        raw.deallocate()
    }

    package func lock() { pthread_mutex_lock(raw) }
    package func unlock() { pthread_mutex_unlock(raw) }
}

/// One `pthread_cond_t`, allocated once and destroyed with its owner; its timed waits measure
/// `CLOCK_MONOTONIC` when asked (MediaStreaming's `LiveQueue`'s bounded waits, hence `package`).
package final class PthreadCondition {
    /// The condition variable.
    let raw: UnsafeMutablePointer<pthread_cond_t>

    package init(monotonic: Bool = false) {
        raw = .allocate(capacity: 1)
        raw.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        if monotonic { pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) }
        pthread_cond_init(raw, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(raw)
        raw.deinitialize(count: 1)
        raw.deallocate()
    }

    /// Waits for a signal, releasing `mutex` meanwhile (which the caller holds).
    package func wait(_ mutex: PthreadMutex) { pthread_cond_wait(raw, mutex.raw) }

    /// Waits for a signal at most `nanoseconds` of `CLOCK_MONOTONIC` (of a condition made with
    /// `monotonic`), releasing `mutex` meanwhile (which the caller holds); the caller re-checks what it
    /// waits for, as after any wait.
    package func wait(_ mutex: PthreadMutex, forNanoseconds nanoseconds: Int64) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let end = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) + nanoseconds
        var deadline = timespec(tv_sec: Int(end / 1_000_000_000), tv_nsec: Int(end % 1_000_000_000))
        _ = pthread_cond_timedwait(raw, mutex.raw, &deadline)
    }
    package func signal() { pthread_cond_signal(raw) }
    package func broadcast() { pthread_cond_broadcast(raw) }
}
