import Dispatch
import MediaAudio
import MediaCore

/// What an ``AudioPlayer``'s controls (any thread) tell its engine (the playback thread), and what the
/// engine publishes back: the map from output frames to file time that ``AudioPlayer/currentTime``
/// reads. The engine reads the requests once per buffer.
final class PlayerControl: Sendable {
    /// Volume, pan and rate (the player's), read by the stages once per buffer.
    let volume: AudioParameter
    let pan: AudioParameter
    let rate: AudioParameter

    private struct State: Sendable {
        var isPaused = false
        var stopRequested = false
        var fedToTheEnd = false
        var seekTo: Double?
        /// The last seek taken: where playback rests until the engine marks its first buffer after it.
        var lastSeek: Double?
        /// Where output frames were, in file time: (first output frame of a buffer, its file time in
        /// seconds, the rate then), the last few seconds' worth.
        var marks: [(output: Int64, fileTime: Double, rate: Double)] = []
        var outputRate = 48_000
    }

    /// A pthread mutex (`Locked`), not `Synchronization.Mutex`: ThreadSanitizer cannot see the futex
    /// hand-over inside `Mutex` and reported the playback thread's `takeSeek` against a test's
    /// `currentTime` read as a race (Documentation/Reliability.md, the `Mutex` paragraph).
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)

    init(volume: AudioParameter, pan: AudioParameter, rate: AudioParameter, loops: Int) {
        self.volume = volume
        self.pan = pan
        self.rate = rate
        self.loops = LoopsLeft(loops)
    }

    var isPaused: Bool { state.withLock { $0.isPaused } }
    func setPaused(_ value: Bool) {
        state.withLock { $0.isPaused = value }
        if !value { wake.signal() }
    }

    var isStopRequested: Bool { state.withLock { $0.stopRequested } }
    func requestStop() {
        state.withLock { $0.stopRequested = true }
        wake.signal()
    }

    /// Whether the engine has handed out the last of the audio (after every loop): the output then runs
    /// dry at its end, which is no stall.
    var isFedToTheEnd: Bool { state.withLock { $0.fedToTheEnd } }
    func markFedToTheEnd() { state.withLock { $0.fedToTheEnd = true } }

    /// Asks the engine to move to `seconds` of the file.
    func requestSeek(to seconds: Double) {
        state.withLock { $0.seekTo = seconds }
        wake.signal()
    }
    func takeSeek() -> Double? {
        state.withLock { s in
            defer {
                if let target = s.seekTo { s.lastSeek = target }
                s.seekTo = nil
            }
            return s.seekTo
        }
    }

    /// Loops still to play.
    let loops: LoopsLeft

    /// Waits (at most 50 ms) for a control to change: the paused engine's sleep.
    func waitForChange() { _ = wake.wait(timeout: .now() + .milliseconds(50)) }

    /// Records that output frame `output` plays file time `fileTime`, at `rate`.
    func mark(output: Int64, fileTime: Double, rate: Double, outputRate: Int) {
        state.withLock { s in
            s.outputRate = outputRate
            s.marks.append((output, fileTime, rate))
            if s.marks.count > 512 { s.marks.removeFirst(s.marks.count - 256) }
        }
    }

    /// Forgets the marks (after a seek, whose output is counted anew from `output`).
    func resetMarks() { state.withLock { $0.marks.removeAll(keepingCapacity: true) } }

    /// The file time that output frame `output` plays, from the last mark at or before it: a seek not
    /// yet taken by the engine is where playback is going; after a seek taken and before the engine's
    /// first buffer from there (a paused engine), the seek's target; before the first mark (a device's
    /// position can step back when a flush drops what it held), the first mark's time.
    func fileTime(atOutputFrame output: Int64) -> Double? {
        state.withLock { s in
            if let target = s.seekTo { return target }
            guard let first = s.marks.first else { return s.lastSeek }
            guard let mark = s.marks.last(where: { $0.output <= output }) else { return first.fileTime }
            return max(0, mark.fileTime + Double(output - mark.output) / Double(s.outputRate) * mark.rate)
        }
    }
}
