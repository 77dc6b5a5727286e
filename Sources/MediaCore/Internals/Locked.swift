#if canImport(Glibc)
    import Glibc
#endif

/// A value guarded by a `pthread_mutex_t`, for the threads of a concurrent ``Pipeline``, a threaded
/// ``MediaGraph`` and MediaFFmpeg's `ParallelAACEncoder` (hence `package`).
///
/// The value must be `Sendable`: the lock keeps two threads from touching it at once, but what
/// `withLock` hands out (a copy of the value, or something read from it) leaves the lock and may be
/// used on the thread that took it, so the compiler must be able to check that it may cross threads.
/// A lock around non-`Sendable` state (a class with unsynchronised mutable fields) would let a
/// reference to that state escape to two threads unchecked.
///
/// The standard library's `Mutex` would do, but on Linux it is built on raw futex calls that
/// ThreadSanitizer cannot see; a pthread mutex keeps the concurrent pipeline checkable with
/// `-sanitize=thread`. So every lock in the library is a `Locked` (or a `PthreadMutex`), except
/// `Handoff`'s, whose value is not `Sendable`: ThreadSanitizer reported the playback thread's
/// `PlayerControl` reads as a race while it was a `Mutex`.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // Sendable by construction: `value` is only read or written inside `withLock`, between
    // pthread_mutex_lock and pthread_mutex_unlock on `mutex`, so no two threads touch it at once; and
    // `Value: Sendable`, so whatever leaves the lock may cross threads (the compiler checks that).
    private let mutex = PthreadMutex()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value; throws what `body` throws (typed, as `Mutex`'s).
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&value)
    }
}
