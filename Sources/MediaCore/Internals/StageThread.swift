#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX thread running one closure, joined explicitly: one per stage of a concurrent ``Pipeline``, and
/// the workers of MediaFFmpeg's `ParallelAACEncoder` (hence `package`).
///
/// Dispatch's global queues are not used because each stage blocks on its queues for the whole run, and
/// a pool about as wide as the machine's cores could leave a stage unscheduled.
package final class StageThread {
    private var thread = pthread_t()
    private var joined = false
    private let startedAs = Locked<Int32?>(nil)

    /// Starts `body` on a new thread.
    ///
    /// The closure, and the stage it captures, move to the new thread: the thread that starts it does
    /// not touch the stage again until ``join()`` returns, which orders all of the new thread's writes
    /// before the joiner's reads. That is why a non-`Sendable` stage can run there safely.
    package init(_ body: @escaping () -> Void) throws(MediaError) {
        let startedAs = startedAs
        try Self.create(&thread, attributes: nil) {
            startedAs.withLock { $0 = Self.currentKernelThreadID() }
            body()
        }
    }

    /// The thread's kernel id (its `/proc/self/task/<id>`), once it has started running; `nil` before,
    /// or if `/proc` is not mounted. Only for tests that check a stage's threads have ended.
    package var kernelThreadID: Int32? { startedAs.withLock { $0 } }

    /// The calling thread's kernel id, from the `/proc/thread-self` link (`<pid>/task/<tid>`): Glibc's
    /// `gettid` is not visible to Swift.
    private static func currentKernelThreadID() -> Int32? {
        var link = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &link, link.count - 1)
        guard count > 0 else { return nil }
        let text = String(decoding: link.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "/").last.flatMap { Int32($0) }
    }

    /// Starts `body` on a new detached thread (nobody joins it; it ends when `body` returns).
    ///
    /// `body` is a `sending` closure: the compiler has checked that what it captures (a graph branch's
    /// stages, taken out of a ``Handoff``) is not used by the caller afterwards, so it runs on the new
    /// thread alone. The `Unmanaged` reference in ``create(_:attributes:_:)`` only carries it through
    /// `pthread_create`'s C context pointer.
    package static func detach(_ body: sending @escaping () -> Void) throws(MediaError) {
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        try create(&thread, attributes: &attributes, body)
    }

    /// `pthread_create` running `body`, which is retained until the thread has run it.
    private static func create(
        _ thread: inout pthread_t, attributes: UnsafePointer<pthread_attr_t>?, _ body: @escaping () -> Void
    ) throws(MediaError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let code = pthread_create(
            &thread, attributes,
            { context in
                guard let context else { return nil }
                Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
        guard code == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw MediaError(.outOfMemory, "cannot start a thread: pthread_create returned \(code)")
        }
    }

    /// Waits for the thread to end.
    package func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    deinit { join() }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
}
