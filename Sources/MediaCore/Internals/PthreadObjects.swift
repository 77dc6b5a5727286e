#if canImport(Glibc)
    import Glibc
#endif

/// One `pthread_mutex_t`, allocated once (a pthread object must not move, so it cannot be a stored
/// struct) and destroyed with its owner: the lock of ``Locked``, ``BoundedQueue`` and ``LiveQueue``.
/// ThreadSanitizer intercepts pthread locks, which is why they are used rather than `Mutex`.
final class PthreadMutex {
    /// The mutex, for `pthread_cond_wait`.
    let raw: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        raw = .allocate(capacity: 1)
        raw.initialize(to: pthread_mutex_t())
        pthread_mutex_init(raw, nil)
    }

    deinit {
        pthread_mutex_destroy(raw)
        raw.deinitialize(count: 1)
        raw.deallocate()
    }

    func lock() { pthread_mutex_lock(raw) }
    func unlock() { pthread_mutex_unlock(raw) }
}

/// One `pthread_cond_t`, allocated once and destroyed with its owner; its timed waits measure
/// `CLOCK_MONOTONIC` when asked (``LiveQueue``'s bounded waits).
final class PthreadCondition {
    /// The condition variable.
    let raw: UnsafeMutablePointer<pthread_cond_t>

    init(monotonic: Bool = false) {
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
    func wait(_ mutex: PthreadMutex) { pthread_cond_wait(raw, mutex.raw) }
    func signal() { pthread_cond_signal(raw) }
    func broadcast() { pthread_cond_broadcast(raw) }
}
