import MediaCore

/// The life cycle the FFmpeg-backed stages share: they take samples until `finish`; after `finish`,
/// or after a sample failed (FFmpeg's state is then unknown), every call throws
/// ``MediaCore/MediaError/Code/stageFinished``.
///
/// ```swift
/// try lifecycle.process(name) { ... }   // marks the stage failed if the body throws
/// try lifecycle.finish(name)            // then drain
/// ```
///
/// A class, not a struct: a mutating method on a stage's stored struct would hold exclusive access
/// to it while `body` runs the downstream stages, so that reading the stage's state from there (in an
/// `emit` closure) would trap.
final class StageLifecycle {
    private var finished = false
    private var failed = false

    /// Runs `body` for one sample, unless the stage is over; a throw from `body` ends the stage.
    func process(_ stage: String, _ body: () throws -> Void) throws {
        guard !finished, !failed else { throw MediaError.stageFinished(stage) }
        do {
            try body()
        } catch {
            failed = true
            throw error
        }
    }

    /// Marks the stage finished, once; throws if it already was or if a sample failed.
    func finish(_ stage: String) throws(MediaError) {
        guard !finished, !failed else { throw MediaError.stageFinished(stage) }
        finished = true
    }
}
