package import MediaCore

/// Where a push parser stands with respect to the end of its input: whether `finish()` was
/// called, and how many bytes were pushed after it, so that every parser reports that misuse the same way.
package struct PushInputEnd: Sendable {
    /// Whether `finish()` has been called.
    package private(set) var isFinished = false

    /// An input that has not ended.
    package init() {}
    /// Bytes pushed after `finish()`.
    private var bytesAfterFinish = 0

    /// Records `finish()`.
    package mutating func finish() { isFinished = true }

    /// Records a push of `count` bytes; `false` when they come after `finish()` and must be dropped.
    package mutating func accept(_ count: Int) -> Bool {
        guard isFinished else { return true }
        bytesAfterFinish += count
        return false
    }

    /// Throws ``/MediaCore/MediaError/Code/invalidArgument`` when bytes were pushed after `finish()`.
    package func check(_ parser: String) throws(MediaError) {
        guard bytesAfterFinish == 0 else {
            throw MediaError(.invalidArgument, "\(parser) was given \(count: bytesAfterFinish, "byte") after finish()")
        }
    }
}
