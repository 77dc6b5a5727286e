import MediaAudio
import MediaCore

/// What ``AudioPlayer`` and ``AudioStreamPlayer`` share: the output, the parameters the controls set
/// (volume, pan, rate, loops), the playback graph (a ``PlayerEngine`` into the output's sink) and its
/// run, the transport (play, pause, stop, seek), the position and the events. The players differ in
/// where the decoded audio comes from: a file, or bytes pushed as they arrive.
///
/// The methods may be called from any thread; events are sent on the playback thread.
final class PlayerTransport: Sendable {
    let output: AudioPlayerOutput
    let meter: LevelMeter
    let events: AsyncStream<AudioPlayerEvent>
    let volume = AudioParameter.volume(1)
    let pan = AudioParameter.pan(0)
    let rate = AudioParameter.rate(1)
    private let continuation: AsyncStream<AudioPlayerEvent>.Continuation
    private let state = Locked(State())

    private struct State {
        var run: MediaGraphRun?
        var control: PlayerControl?
        var clock: (any PlaybackClock)?
        var isPlaying = false
        var storedTime = 0.0
        var loops = 0
        var onEvent: (@Sendable (AudioPlayerEvent) -> Void)?
        /// Counts ``stop()``s: a start begun before the last one does not play.
        var stops = 0
        /// Whether a start is under way (its input being opened) and should begin paused.
        var starting: (stops: Int, paused: Bool)?
    }

    /// A transport into `output`.
    ///
    /// - Throws: the meter's errors.
    init(output: AudioPlayerOutput) throws(MediaError) {
        self.output = output
        meter = try LevelMeter()
        (events, continuation) = AsyncStream.makeStream(of: AudioPlayerEvent.self)
    }

    /// Whether audio is playing (not paused, stopped or ended).
    var isPlaying: Bool { state.withLock { $0.isPlaying } }

    /// Loops after the first play (``AudioPlayer/numberOfLoops``).
    var loops: Int {
        get { state.withLock { $0.loops } }
        set {
            state.withLock { s in
                s.loops = newValue
                s.control?.loops.value = newValue
            }
        }
    }

    /// Called with every event, on the playback thread.
    var onEvent: (@Sendable (AudioPlayerEvent) -> Void)? {
        get { state.withLock { $0.onEvent } }
        set { state.withLock { $0.onEvent = newValue } }
    }

    /// The time being heard, in seconds of the input; where playback rests when it is not running.
    var currentTime: Double {
        state.withLock { s in
            guard let control = s.control, let clock = s.clock else { return s.storedTime }
            return control.fileTime(atOutputFrame: clock.playedFrames) ?? s.storedTime
        }
    }

    /// Moves to `time` (seconds of the input), playing or not.
    func seek(to time: Double) {
        state.withLock { s in
            s.storedTime = time
            s.control?.requestSeek(to: time)
        }
    }

    /// Resumes a paused run, or takes back a pause asked for while the input was being opened; `false`
    /// when there is neither (a new run must start).
    func resume() -> Bool {
        state.withLock { s in
            if s.starting != nil {
                s.starting?.paused = false
                s.isPlaying = true
                return true
            }
            guard let control = s.control, s.run != nil else { return false }
            control.setPaused(false)
            s.clock?.resume()
            s.isPlaying = true
            return true
        }
    }

    /// Pauses: the output's clock stops where it is.
    func pause() {
        state.withLock { s in
            if s.starting != nil { s.starting?.paused = true }
            s.isPlaying = false
            guard let control = s.control else { return }
            control.setPaused(true)
            s.clock?.pause()
        }
    }

    /// Stops the run and lets go of the output; ``currentTime`` stays where playback was. A start
    /// under way does not play. `interrupt` runs once the stop is asked for and before it is waited
    /// for: what wakes an engine waiting for its input.
    func stop(interrupting interrupt: () -> Void = {}) {
        let time = currentTime
        let (run, control, clock) = state.withLock { s in
            s.stops += 1
            s.isPlaying = false
            return (s.run, s.control, s.clock)
        }
        control?.requestStop()
        interrupt()
        guard let run else { return }
        clock?.flush()  // a write blocked on a full (or paused) device returns
        clock?.resume()
        run.stop()
        run.wait()
        state.withLock { $0.storedTime = time }
    }

    /// Marks a start as under way (its input is being opened elsewhere); `false` when one already is.
    func beginStarting() -> Bool {
        state.withLock { s in
            guard s.starting == nil, s.run == nil else { return false }
            s.starting = (s.stops, false)
            s.isPlaying = true
            return true
        }
    }

    /// The PCM format the output plays `file` in: the output's rate and channels, else the file's.
    func outputFormat(for file: AudioFormat) -> AudioFormat {
        .pcm(
            .f32, sampleRate: output.sampleRate ?? file.sampleRate,
            channels: output.channels ?? file.channelLayout.channelCount)
    }

    /// Plays `file` from ``currentTime`` (at host time `hostTime`, or at once): opens the output, starts
    /// the graph, and sends ``AudioPlayerEvent/finished(successfully:)`` (after
    /// ``AudioPlayerEvent/decodeError(_:)`` on an error) when it ends.
    ///
    /// - Throws: the output's and the engine's errors.
    func start(_ file: sending AudioFile, at hostTime: MediaTime?) throws(MediaError) {
        let (time, loops, startsPaused) = state.withLock { s in (s.storedTime, s.loops, s.starting?.paused ?? false) }
        let format = outputFormat(for: file.fileFormat)
        let opened: OpenedPlayerOutput
        do { opened = try output.open(format) } catch { throw PlayerEngine.mediaError(error) }
        let control = PlayerControl(volume: volume, pan: pan, rate: rate, loops: loops)
        control.setPaused(startsPaused)
        let engine: PlayerEngine
        do {
            let rate = Double(file.fileFormat.sampleRate)
            engine = try PlayerEngine(
                file: file, startFrame: Int64((time * rate).rounded()), control: control, clock: opened.clock,
                outputFormat: format, meter: meter, startHostTime: hostTime)
        } catch { throw PlayerEngine.mediaError(error) }
        let clock = opened.clock
        if startsPaused { clock.pause() }
        var graph = MediaGraph()
        let branch = graph.addBranch("playback", source: engine)
        graph.addSink(opened.sink, input: branch)
        state.withLock { s in
            s.control = control
            s.clock = clock
            // A pause or a play asked for since the start read `startsPaused` applies now.
            let paused = s.starting?.paused ?? startsPaused
            if paused != startsPaused {
                control.setPaused(paused)
                if paused { clock.pause() } else { clock.resume() }
            }
            s.isPlaying = !paused
        }
        let run = graph.start { [self] result in
            let error: MediaError? =
                switch result {
                case .success: nil
                case .failure(let failure): control.isStopRequested ? nil : PlayerEngine.mediaError(failure)
                }
            let stopped = control.isStopRequested
            state.withLock { s in
                s.isPlaying = false
                s.run = nil
                s.control = nil
                s.clock = nil
                if !stopped { s.storedTime = 0 }
            }
            if let error { emit(.decodeError(error)) }
            emit(.finished(successfully: error == nil))
        }
        let stoppedMeanwhile = state.withLock { s -> Bool in
            let stopped = s.starting.map { $0.stops != s.stops } ?? false
            s.starting = nil
            if s.control === control { s.run = run }
            return stopped
        }
        if stoppedMeanwhile {
            control.requestStop()
            clock.flush()
            clock.resume()
            run.stop()
        }
    }

    /// Ends a start whose input could not be opened: the error's events, or (after ``stop()``) a
    /// finish.
    func failedToStart(_ error: MediaError) {
        let stopped = state.withLock { s -> Bool in
            let stopped = s.starting.map { $0.stops != s.stops } ?? false
            s.starting = nil
            s.isPlaying = false
            return stopped
        }
        if !stopped { emit(.decodeError(error)) }
        emit(.finished(successfully: stopped))
    }

    /// Sends `event` to the stream and the closure.
    func emit(_ event: AudioPlayerEvent) {
        continuation.yield(event)
        state.withLock { $0.onEvent }?(event)
    }
}
