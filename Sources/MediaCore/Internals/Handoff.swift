import Synchronization

/// Carries one non-`Sendable` value (a branch's source and stages, a sink) from the thread that built a
/// ``MediaGraph`` (or a `LiveStreamSink`, in MediaStreaming, hence `package`) to the thread that runs
/// it, checked by the compiler.
///
/// The value goes in as a `sending` argument, so the caller can no longer touch it, and comes out of
/// ``take()`` as a `sending` result, disconnected from everything else: exactly one thread owns it at
/// a time, which is what makes running a non-`Sendable` stage on another thread safe. A `Mutex` is the
/// container because it is `Sendable` for any value it guards.
package final class Handoff<Value>: Sendable {
    private let slot: Mutex<Value?>

    /// A hand-off holding `value`.
    package init(_ value: sending Value) { slot = Mutex(value) }

    /// The value, once; `nil` after it has been taken.
    package func take() -> sending Value? {
        slot.withLock { value -> sending Value? in
            let taken = value
            value = nil
            return taken
        }
    }
}
