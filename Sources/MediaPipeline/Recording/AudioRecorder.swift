#if canImport(Glibc)
    import Glibc
#endif
import Dispatch
public import MediaCore
internal import MediaFFmpeg
import MediaAudio

/// Records audio to a file with AVAudioRecorder's abilities: settings, a container chosen by the
/// path's extension, pause and resume without a gap or click, a duration limit, the time recorded,
/// and events.
///
/// ```swift
/// let recorder = try AudioRecorder(path: "take.m4a", settings: .init(format: .aac, sampleRate: 48_000, channels: 2),
///                                  input: .device(nil))
/// try recorder.record(forDuration: 30)
/// for await event in recorder.events { if case .finished = event { break } }
/// ```
///
/// - The audio runs input → `RecordingGate` (pauses, limit, continuous time stamps) → level meter → converter
///   (linear PCM other than float) or ``/MediaFFmpeg/AACEncoder`` → the container's sink, on a
///   ``/MediaCore/MediaGraph`` of its own threads; the calling thread never blocks except in ``stop()``,
///   which returns once the file is finished.
/// - ``currentTime`` is the audio written so far, in seconds (AVAudioRecorder's), frames exact.
/// - An error (the device lost, a full disk) ends the recording: the file is finished up to there,
///   ``AudioRecorderEvent/error(_:)`` then ``AudioRecorderEvent/finished(successfully:)`` `false`.
///
/// The methods may be called from any thread. `AVAudioRecorder`'s `record(atTime:)` and its delegate
/// object are not here; ``events`` and ``onEvent`` take the delegate's place.
public final class AudioRecorder: Sendable {
    /// The file recorded to.
    public let path: String
    /// What is recorded.
    public let settings: AudioRecorderSettings
    /// The container, from the path's extension.
    public let container: AudioRecordingContainer
    /// Every event, in order (finished, errors, lost input). One stream per recorder: iterate it once.
    public let events: AsyncStream<AudioRecorderEvent>

    private let input: AudioRecorderInput
    private let meter: LevelMeter
    private let continuation: AsyncStream<AudioRecorderEvent>.Continuation
    private let state = Locked(State())

    private struct State {
        var control: RecordingControl?
        var done: DispatchSemaphore?
        var isRecording = false
        /// Whether the last recording has ended and its file is finished.
        var isFinished = false
        var isMeteringEnabled = false
        var onEvent: (@Sendable (AudioRecorderEvent) -> Void)?
    }

    /// A recorder of `path` (its extension chooses the container) with `settings`, from `input`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for an unknown extension, a container
    ///   that cannot hold the format (AAC in WAV, PCM in `.aac`), or settings out of range.
    public init(path: String, settings: AudioRecorderSettings, input: AudioRecorderInput) throws(MediaError) {
        guard let container = AudioRecordingContainer(path: path) else {
            throw MediaError(
                .invalidArgument,
                "cannot tell the container of '\(path)' from its extension; use .caf .m4a .aac .wav .aif or .aiff")
        }
        guard container.holds(settings.format) else {
            throw MediaError(
                .invalidArgument,
                "a .\(container.rawValue) file cannot hold \(settings.format == .aac ? "AAC" : "linear PCM")")
        }
        try settings.validate()
        self.path = path
        self.settings = settings
        self.container = container
        self.input = input
        meter = try LevelMeter()
        (events, continuation) = AsyncStream.makeStream(of: AudioRecorderEvent.self)
    }

    /// Called with every event too, on the recording's thread (the delegate's place).
    public var onEvent: (@Sendable (AudioRecorderEvent) -> Void)? {
        get { state.withLock { $0.onEvent } }
        set { state.withLock { $0.onEvent = newValue } }
    }

    /// Whether audio is being written (not before ``record()``, while paused or after the end).
    public var isRecording: Bool { state.withLock { $0.isRecording } }

    /// The audio written so far, in seconds: it holds still while paused (pauses are not counted), and
    /// is 0 before the first ``record()`` and after ``stop()``.
    public var currentTime: Double {
        state.withLock { s in
            guard let control = s.control, !s.isFinished else { return 0 }
            return Double(control.framesWritten) / Double(settings.sampleRate)
        }
    }

    /// The input's latency now, from capture to the recorder (for a device, what the server measures:
    /// the device, the server and the fragment); `nil` when the input cannot say or before it has.
    public var inputLatency: MediaTime? { input.latency() }

    /// Whether ``updateMeters()`` reads the levels (AVAudioRecorder's `isMeteringEnabled`). Default
    /// `false`. The meter always runs (a few nanoseconds a sample), so it may be turned on at any time.
    public var isMeteringEnabled: Bool {
        get { state.withLock { $0.isMeteringEnabled } }
        set { state.withLock { $0.isMeteringEnabled = newValue } }
    }

    /// Takes the levels of the audio recorded up to now, for ``averagePower(forChannel:)`` and
    /// ``peakPower(forChannel:)``; does nothing unless ``isMeteringEnabled``. See ``/MediaAudio/LevelMeter``
    /// for the window (300 ms RMS), the peak hold (500 ms) and decay (20 dB in 1.7 s).
    public func updateMeters() {
        if isMeteringEnabled { meter.updateMeters() }
    }

    /// The RMS level of `channel` (from 0) in dBFS at the last ``updateMeters()``: 0 full scale, −160
    /// for silence, an unknown channel or metering off.
    public func averagePower(forChannel channel: Int) -> Float {
        isMeteringEnabled ? meter.averagePower(forChannel: channel) : -160
    }

    /// The held peak of `channel` (from 0) in dBFS at the last ``updateMeters()``.
    public func peakPower(forChannel channel: Int) -> Float {
        isMeteringEnabled ? meter.peakPower(forChannel: channel) : -160
    }

    /// Creates the file, so that a path that cannot be written fails here rather than in ``record()``.
    ///
    /// Unlike AVAudioRecorder's, it does not open the input ahead of time: the device (or the input
    /// source) starts at ``record()``, with the latency ``inputLatency`` reports from then on.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/io`` naming the path.
    public func prepareToRecord() throws(MediaError) {
        let output = try FileOutput(path: path)
        try output.close()
    }

    /// Starts recording, or resumes after ``pause()`` (fading in, no gap in the file).
    ///
    /// - Throws: what ``prepareToRecord()`` throws.
    public func record() throws(MediaError) { try start(limit: nil) }

    /// Records `seconds` of audio (exactly `seconds` × rate frames, pauses not counted), then stops.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a duration that is not positive.
    public func record(forDuration seconds: Double) throws(MediaError) {
        guard seconds > 0, seconds.isFinite else {
            throw MediaError(.invalidArgument, "cannot record for \(seconds) seconds")
        }
        try start(limit: Int64((seconds * Double(settings.sampleRate)).rounded()))
    }

    /// Records `duration` of audio, given as a Swift `Duration` (`.seconds(5)`): exactly `duration` × rate
    /// frames, rounded to the nearest frame (halves away from zero), pauses not counted; then stops.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a duration that is not at least one frame.
    public func record(for duration: Duration) throws(MediaError) {
        let frames = MediaTime(duration, timescale: Int32(clamping: settings.sampleRate))
        guard frames.isNumeric, frames.value > 0 else {
            throw MediaError(.invalidArgument, "cannot record for \(duration): not at least one frame")
        }
        try start(limit: frames.value)
    }

    /// Pauses: the audio fades out over 10 ms and nothing more is written until ``record()``.
    public func pause() {
        state.withLock { s in
            guard s.isRecording, let control = s.control else { return }
            control.setPaused(true)
            s.isRecording = false
        }
    }

    /// Stops and finishes the file (the encoder drained, sizes and packet table written), then returns.
    /// Does nothing when not recording or paused.
    public func stop() {
        let (control, done) = state.withLock { s in (s.control, s.done) }
        guard let control, let done else { return }
        control.requestStop()
        input.interrupt()
        done.wait()
        done.signal()  // a second stop() returns at once
    }

    /// Deletes the file. Stop first.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` while recording; ``/MediaCore/MediaError/Code/io``
    ///   when the file cannot be removed.
    public func deleteRecording() throws(MediaError) {
        let running = state.withLock { s in s.control != nil && !s.isFinished }
        guard !running else {
            throw MediaError(.invalidArgument, "cannot delete '\(path)' while it is being recorded; stop() first")
        }
        guard unlink(path) == 0 else {
            throw MediaError(.io, "cannot delete '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    private func start(limit: Int64?) throws(MediaError) {
        let resumed = state.withLock { s -> Bool in
            guard let control = s.control, !s.isFinished, !control.isStopRequested else { return false }
            control.setPaused(false)
            s.isRecording = true
            return true
        }
        if resumed { return }
        try prepareToRecord()
        let control = RecordingControl()
        let done = DispatchSemaphore(value: 0)
        state.withLock { s in
            s.control = control
            s.done = done
            s.isRecording = true
            s.isFinished = false
        }
        let job = RecordingJob(
            path: path, settings: settings, container: container, input: input, limit: limit, control: control,
            meter: meter)
        control.onInputLost = { [weak self] count in self?.emit(.inputLost(count: count)) }
        _ = job.start { [self] error in
            state.withLock { s in
                s.isRecording = false
                s.isFinished = true
            }
            if let error { emit(.error(error)) }
            emit(.finished(successfully: error == nil))
            done.signal()
        }
    }

    private func emit(_ event: AudioRecorderEvent) {
        continuation.yield(event)
        state.withLock { $0.onEvent }?(event)
    }
}
