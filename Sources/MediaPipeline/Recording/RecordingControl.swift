import Synchronization

/// What a UI thread tells a running recording (pause, resume, stop) and what the recording tells it
/// back (frames written), shared between ``AudioRecorder`` and its ``RecordingGate``.
///
/// The gate reads the requests once per captured buffer and publishes its frame count with atomics, so
/// the capture thread never waits for the UI (the lost-input handler is read under a lock only when
/// input was lost).
final class RecordingControl: Sendable {
    private let paused = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let written = Atomic<Int64>(0)
    private let dropped = Atomic<Int64>(0)
    private let discontinuities = Atomic<Int>(0)

    /// A control for a recording that is running, not paused.
    init() {}

    /// Asks the gate to pause (fading out) or to resume (fading in).
    func setPaused(_ value: Bool) { paused.store(value, ordering: .releasing) }
    /// Whether a pause is asked for.
    var isPauseRequested: Bool { paused.load(ordering: .acquiring) }

    /// Asks the gate to end the recording at the next buffer.
    func requestStop() { stopped.store(true, ordering: .releasing) }
    /// Whether a stop is asked for.
    var isStopRequested: Bool { stopped.load(ordering: .acquiring) }

    /// Frames written to the file so far (the recording's ``AudioRecorder/currentTime`` × rate).
    var framesWritten: Int64 { written.load(ordering: .acquiring) }
    func setFramesWritten(_ value: Int64) { written.store(value, ordering: .releasing) }

    /// Captured frames dropped while paused.
    var framesDropped: Int64 { dropped.load(ordering: .acquiring) }
    func addDropped(_ count: Int64) { dropped.add(count, ordering: .relaxed) }

    private let lostInputHandler = Locked<(@Sendable (Int) -> Void)?>(nil)

    /// Captured buffers that followed lost input (the device's overruns), as the input flagged them.
    var inputDiscontinuities: Int { discontinuities.load(ordering: .acquiring) }

    /// Called (on the recording's thread) with the new count each time input was lost.
    var onInputLost: (@Sendable (Int) -> Void)? {
        get { lostInputHandler.withLock { $0 } }
        set { lostInputHandler.withLock { $0 = newValue } }
    }

    /// Counts one more loss of input and reports it.
    func addDiscontinuity() {
        let count = discontinuities.add(1, ordering: .relaxed).newValue
        onInputLost?(count)
    }
}
