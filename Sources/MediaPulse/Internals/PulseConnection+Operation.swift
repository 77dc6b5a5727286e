internal import CPulseAudio
import MediaCore

extension PulseConnection {
    /// Starts an asynchronous operation with `start` (called with the mainloop lock held; it returns
    /// the `pa_operation` from a `pa_context_*` or `pa_stream_*` call, whose result callback fills
    /// something the caller owns) and waits until it completes, at most `timeout`.
    ///
    /// On timeout the operation is cancelled (`pa_operation_cancel`: its callback will not run any
    /// more), so what the callback writes to may be released as soon as this returns.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/io`` (or ``/MediaCore/MediaError/Code/deviceLost`` when the server went away)
    ///   when the operation cannot start or is cancelled by libpulse, and when it does not complete in
    ///   time; the message says `what`.
    func perform(
        _ what: @autoclosure () -> String, calling function: StaticString, timeout: Duration,
        _ start: (OpaquePointer) -> OpaquePointer?
    ) throws(MediaError) {
        let done = Wakeup()
        let operation = try withLock { context throws(MediaError) -> OpaquePointer in
            let operation = try unwrap(start(context), calling: function, in: context, what(), failureCode(context))
            pa_operation_set_state_callback(
                operation,
                { _, userdata in
                    guard let userdata else { return }
                    Unmanaged<Wakeup>.fromOpaque(userdata).takeUnretainedValue().post()
                }, Unmanaged.passUnretained(done).toOpaque())
            return operation
        }
        defer {
            withLock { _ in
                pa_operation_set_state_callback(operation, nil, nil)
                if pa_operation_get_state(operation) == PA_OPERATION_RUNNING { pa_operation_cancel(operation) }
                pa_operation_unref(operation)
            }
        }
        let deadline = monotonicNanoseconds() + timeout.nanoseconds
        while true {
            let (state, error, code) = withLock { context in
                (pa_operation_get_state(operation), pa_context_errno(context), failureCode(context))
            }
            switch state {
            case PA_OPERATION_DONE:
                return
            case PA_OPERATION_RUNNING:
                let left = deadline - monotonicNanoseconds()
                guard left > 0 else {
                    throw MediaError(
                        code == .deviceLost ? .deviceLost : .io,
                        "PulseAudio: \(what()) failed: no answer within \(timeout) (\(function))")
                }
                done.wait(nanoseconds: left)
            default:
                throw MediaError.pulse(error, calling: function, what(), code)
            }
        }
    }

    /// ``/MediaCore/MediaError/Code/deviceLost`` when the context is no longer connected, else ``/MediaCore/MediaError/Code/io``.
    func failureCode(_ context: OpaquePointer) -> MediaError.Code {
        pa_context_get_state(context) == PA_CONTEXT_READY ? .io : .deviceLost
    }
}
