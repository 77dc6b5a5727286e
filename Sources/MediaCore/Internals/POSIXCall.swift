import Glibc

/// The one funnel for byte-moving POSIX calls (`read`, `write`, `pread`, `pwrite`): runs the call again while it
/// fails with `EINTR`, and turns any other failure into `MediaError(.io, …)` whose message names the call, the
/// path, the errno text and the errno number (no new `MediaError` field: the message carries them).
package enum POSIXCall {
    /// Runs `call` until it does not fail with `EINTR`; returns its non-negative result.
    ///
    /// - Throws: ``MediaError/Code/io`` naming `name`, `path`, `strerror(errno)` and `errno`, at `byteOffset`.
    package static func check(
        _ name: String, path: String, at byteOffset: Int64? = nil, _ call: () -> Int
    ) throws(MediaError) -> Int {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw failure(name, path: path, errno: code, at: byteOffset)
        }
    }

    /// The error for `name` failing on `path` with `code`.
    package static func failure(_ name: String, path: String, errno code: Int32, at byteOffset: Int64?) -> MediaError {
        MediaError(
            .io, "\(name) on \(path) failed: \(String(cString: strerror(code))) (errno \(code))",
            byteOffset: byteOffset)
    }
}
