import MediaCore

/// Where a push parser stands with respect to the end of its input: whether ``PushParser/finish()`` was
/// called, and how many bytes were pushed after it, so that every parser reports that misuse the same way.
struct PushInputEnd: Sendable {
    /// Whether ``PushParser/finish()`` has been called.
    private(set) var isFinished = false
    /// Bytes pushed after ``PushParser/finish()``.
    private var bytesAfterFinish = 0

    /// Records `finish()`.
    mutating func finish() { isFinished = true }

    /// Records a push of `count` bytes; `false` when they come after `finish()` and must be dropped.
    mutating func accept(_ count: Int) -> Bool {
        guard isFinished else { return true }
        bytesAfterFinish += count
        return false
    }

    /// Throws ``/MediaCore/MediaError/Code/invalidArgument`` when bytes were pushed after `finish()`.
    func check(_ parser: String) throws(MediaError) {
        guard bytesAfterFinish == 0 else {
            throw MediaError(.invalidArgument, "\(parser) was given \(count: bytesAfterFinish, "byte") after finish()")
        }
    }
}
