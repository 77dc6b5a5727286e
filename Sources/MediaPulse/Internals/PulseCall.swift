internal import CPulseAudio
import MediaCore

// The one funnel for libpulse return codes, as `check(_:calling:)` is for FFmpeg's in MediaFFmpeg.
//
// libpulse functions return a negative value (or NULL) on failure and leave the reason in the
// context: `pa_context_errno`, a positive `PA_ERR_*` code that `pa_strerror` describes. Every call
// whose result can fail goes through `check` or `unwrap`, which turn it into a `MediaError` naming
// the call, what it was doing (the server, the device) and libpulse's own words.

/// Throws a ``/MediaCore/MediaError`` for a negative `code` returned by `function`, with the reason from
/// `pa_context_errno(context)`. Call with the mainloop lock held (the errno is the context's).
@inline(__always)
func check(
    _ code: CInt, calling function: StaticString, in context: OpaquePointer?, _ what: @autoclosure () -> String,
    _ kind: MediaError.Code = .io
) throws(MediaError) {
    guard code < 0 else { return }
    throw MediaError.pulse(
        context.map { pa_context_errno($0) } ?? CInt(PA_ERR_UNKNOWN.rawValue), calling: function, what(), kind)
}

/// `pointer`, or a ``/MediaCore/MediaError`` for `function` having returned NULL (reason from the context, as
/// ``check(_:calling:in:_:_:)``).
@inline(__always)
func unwrap<P>(
    _ pointer: P?, calling function: StaticString, in context: OpaquePointer?, _ what: @autoclosure () -> String,
    _ kind: MediaError.Code = .io
) throws(MediaError) -> P {
    guard let pointer else {
        throw MediaError.pulse(
            context.map { pa_context_errno($0) } ?? CInt(PA_ERR_UNKNOWN.rawValue), calling: function, what(), kind)
    }
    return pointer
}

extension MediaError {
    /// An error for libpulse's `PA_ERR_*` code `error` from `function`, while doing `what`: e.g.
    /// "PulseAudio: connecting to server unix:/run/user/0/pulse/native failed: Connection refused
    /// (pa_context_connect, PA_ERR_CONNECTIONREFUSED = 6)".
    static func pulse(_ error: CInt, calling function: StaticString, _ what: String, _ kind: MediaError.Code)
        -> MediaError
    {
        MediaError(kind, "PulseAudio: \(what) failed: \(Pulse.describe(error)) (\(function), error \(error))")
    }
}

/// Process-wide libpulse helpers.
enum Pulse {
    /// `pa_strerror`: libpulse's text for a `PA_ERR_*` code.
    static func describe(_ error: CInt) -> String {
        guard let text = pa_strerror(error) else { return "PulseAudio error \(error)" }
        return String(cString: text)
    }

    /// The ``/MediaCore/MediaError/Code`` for a stream or context that failed with `error`: the device or the
    /// server going away is ``/MediaCore/MediaError/Code/deviceLost``, anything else an I/O error.
    static func code(forFailure error: CInt) -> MediaError.Code {
        switch UInt32(bitPattern: error) {
        case PA_ERR_KILLED.rawValue, PA_ERR_NOENTITY.rawValue, PA_ERR_CONNECTIONTERMINATED.rawValue:
            return .deviceLost
        default:
            return .io
        }
    }
}
