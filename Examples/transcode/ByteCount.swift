import Synchronization

/// How many bytes a ``CountedOutput`` has written: shared between the output (owned by a muxer that the
/// graph runs, perhaps on another thread) and the command, which reads it for the summary.
final class ByteCount: Sendable {
    private let bytes = Atomic<Int64>(0)

    /// The count so far.
    var value: Int64 { bytes.load(ordering: .relaxed) }

    /// Records that the output has reached `position` bytes.
    func record(_ position: Int64) { bytes.store(position, ordering: .relaxed) }
}
