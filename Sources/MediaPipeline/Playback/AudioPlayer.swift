public import MediaCore
import MediaAudio

/// Plays an audio file with AVAudioPlayer's abilities: play, pause, stop, seek (sample-accurate),
/// volume, pan, rate with pitch kept, gapless loops, metering and events.
///
/// ```swift
/// let player = try AudioPlayer(path: "song.mp3", output: .device(nil))
/// player.numberOfLoops = 1          // play twice
/// player.volume = 0.5
/// try player.play()
/// for await event in player.events { if case .finished = event { break } }
/// ```
///
/// - Any file ``AudioFile`` reads (WAVE, AIFF, CAF, NeXT, ADTS, MP3; PCM, AAC, MP3, ALAC, IMA4, A-law,
///   µ-law) is decoded, converted to the output's rate and channels, then ``/MediaAudio/TimeStretch``
///   (``rate``), ``/MediaAudio/GainStage`` (``volume``), ``/MediaAudio/PanStage`` (``pan``) and a
///   ``/MediaAudio/LevelMeter``, on a playback thread of its own that also writes the output.
/// - ``currentTime`` is the file time being *heard*: the output's clock (for a device, the server's
///   timing, latency included) mapped back through the stretcher and the loops. Setting it seeks.
/// - ``stop()`` keeps ``currentTime``, as AVAudioPlayer's does; the end of the file sets it to 0.
/// - A file whose rate or channel count differs from the output's is converted as `ffmpeg -ar … -ac …`
///   converts it (a mono file on a stereo device: each channel at −3 dB, one centred source's
///   loudness; Core Audio would copy mono to both channels at full level).
/// - Volume and pan changes ramp over 20 ms (no click); a loop's seam has no gap: the file's last frame
///   is followed by its first.
///
/// The methods may be called from any thread; ``onEvent`` is called on the playback thread.
public final class AudioPlayer: Sendable {
    /// The file played.
    public let path: String
    /// The file's length in seconds (valid frames: priming and padding excluded).
    public let duration: Double
    /// The file's sample rate.
    public let fileSampleRate: Int
    /// The file's channel count.
    public let numberOfChannels: Int
    /// Every event, in order. One stream per player: iterate it once.
    public let events: AsyncStream<AudioPlayerEvent>

    private let output: AudioPlayerOutput
    private let meter: LevelMeter
    private let continuation: AsyncStream<AudioPlayerEvent>.Continuation
    private let volumeParameter = AudioParameter.volume(1)
    private let panParameter = AudioParameter.pan(0)
    private let rateParameter = AudioParameter.rate(1)
    private let state = Locked(State())

    private struct State {
        var run: MediaGraphRun?
        var control: PlayerControl?
        var clock: (any PlaybackClock)?
        var isPlaying = false
        var storedTime = 0.0
        var loops = 0
        var enableRate = false
        var rate: Float = 1
        var isMeteringEnabled = false
        var onEvent: (@Sendable (AudioPlayerEvent) -> Void)?
    }

    /// A player of `path` into `output`.
    ///
    /// - Throws: the reader's errors for a file it cannot read; ``/MediaCore/MediaError/Code/unsupportedFormat``
    ///   for a codec the decoder cannot decode.
    public init(path: String, output: AudioPlayerOutput) throws(MediaError) {
        let file = try AudioFile(path: path, outputFormat: PCMFormat(.f32))
        let info = try AudioFileSummary(path: path)
        self.path = path
        self.output = output
        fileSampleRate = file.fileFormat.sampleRate
        numberOfChannels = file.fileFormat.channelLayout.channelCount
        duration = fileSampleRate > 0 ? Double(info.validFrames) / Double(fileSampleRate) : 0
        meter = try LevelMeter()
        (events, continuation) = AsyncStream.makeStream(of: AudioPlayerEvent.self)
    }

    // MARK: - Properties

    /// Whether audio is playing (not paused, stopped or ended).
    public var isPlaying: Bool { state.withLock { $0.isPlaying } }

    /// Loops after the first play: 0 plays once, `n` plays `n` + 1 times, negative loops until ``stop()``.
    /// May change while playing.
    public var numberOfLoops: Int {
        get { state.withLock { $0.loops } }
        set {
            state.withLock { s in
                s.loops = newValue; s.control?.loops.value = newValue
            }
        }
    }

    /// Linear gain, 0…1 (clamped); changes ramp over 20 ms.
    public var volume: Float {
        get { Float(volumeParameter.value) }
        set { volumeParameter.value = Double(newValue) }
    }

    /// −1 (left) … 1 (right); for stereo a balance: the far channel fades out, the near one stays.
    public var pan: Float {
        get { Float(panParameter.value) }
        set { panParameter.value = Double(newValue) }
    }

    /// Whether ``rate`` applies (AVAudioPlayer's `enableRate`). Default `false`.
    public var enableRate: Bool {
        get { state.withLock { $0.enableRate } }
        set {
            state.withLock { $0.enableRate = newValue }
            applyRate()
        }
    }

    /// Playback speed 0.5…2 with the pitch kept, when ``enableRate`` is set.
    public var rate: Float {
        get { state.withLock { $0.rate } }
        set {
            state.withLock { $0.rate = min(2, max(0.5, newValue)) }
            applyRate()
        }
    }

    private func applyRate() {
        let (enabled, value) = state.withLock { ($0.enableRate, $0.rate) }
        rateParameter.value = enabled ? Double(value) : 1
    }

    /// The file time being heard, in seconds. Setting it moves there (sample-accurately), playing or not.
    public var currentTime: Double {
        get {
            state.withLock { s in
                guard let control = s.control, let clock = s.clock else { return s.storedTime }
                return control.fileTime(atOutputFrame: clock.playedFrames) ?? s.storedTime
            }
        }
        set {
            let time = min(max(0, newValue), duration)
            state.withLock { s in
                s.storedTime = time
                s.control?.requestSeek(to: time)
            }
        }
    }

    /// The host clock in seconds (monotonic), the time base of ``play(atTime:)``.
    public var deviceCurrentTime: Double { MediaClock.hostTime.seconds ?? 0 }

    /// Called with every event too, on the playback thread (the delegate's place). The player keeps the
    /// closure, as it would keep a strong delegate: capture the player itself `[weak player]` in it, or
    /// the two keep each other alive (AVAudioPlayer's delegate is weak for the same reason).
    public var onEvent: (@Sendable (AudioPlayerEvent) -> Void)? {
        get { state.withLock { $0.onEvent } }
        set { state.withLock { $0.onEvent = newValue } }
    }

    // MARK: - Metering

    /// Whether ``updateMeters()`` reads the levels. Default `false`.
    public var isMeteringEnabled: Bool {
        get { state.withLock { $0.isMeteringEnabled } }
        set { state.withLock { $0.isMeteringEnabled = newValue } }
    }

    /// Takes the levels of the audio played up to now (as ``AudioRecorder/updateMeters()``).
    public func updateMeters() { if isMeteringEnabled { meter.updateMeters() } }

    /// The RMS level of `channel` in dBFS at the last ``updateMeters()``; −160 when off or unknown.
    public func averagePower(forChannel channel: Int) -> Float {
        isMeteringEnabled ? meter.averagePower(forChannel: channel) : -160
    }

    /// The held peak of `channel` in dBFS at the last ``updateMeters()``; −160 when off or unknown.
    public func peakPower(forChannel channel: Int) -> Float {
        isMeteringEnabled ? meter.peakPower(forChannel: channel) : -160
    }

    // MARK: - Transport

    /// Checks that the file can be played (decoder and output format), as AVAudioPlayer's does.
    ///
    /// - Throws: the decoder's and the output's errors.
    public func prepareToPlay() throws(MediaError) {
        let file = try AudioFile(path: path, outputFormat: PCMFormat(.f32))
        do { _ = try PlayerEngine.converter(from: file, to: outputFormat()) } catch {
            throw PlayerEngine.mediaError(error)
        }
    }

    /// Plays from ``currentTime``, or resumes after ``pause()``.
    ///
    /// - Throws: the file's and the output's errors when starting.
    public func play() throws(MediaError) { try start(at: nil) }

    /// Starts playing when ``deviceCurrentTime`` reaches `time`.
    public func play(atTime time: Double) throws(MediaError) {
        try start(at: MediaTime(value: Int64((time * 1e9).rounded()), timescale: 1_000_000_000))
    }

    /// Pauses: the output's clock stops where it is; ``play()`` resumes from there.
    public func pause() {
        state.withLock { s in
            guard s.isPlaying, let control = s.control else { return }
            control.setPaused(true)
            s.clock?.pause()
            s.isPlaying = false
        }
    }

    /// Stops and lets go of the output; ``currentTime`` stays where playback was.
    public func stop() {
        let time = currentTime
        let (run, control, clock) = state.withLock { s in (s.run, s.control, s.clock) }
        guard let run else { return }
        control?.requestStop()
        clock?.flush()  // a write blocked on a full (or paused) device returns
        clock?.resume()
        run.stop()
        run.wait()
        state.withLock { $0.storedTime = time }
    }

    private func outputFormat() -> AudioFormat {
        .pcm(.f32, sampleRate: output.sampleRate ?? fileSampleRate, channels: output.channels ?? numberOfChannels)
    }

    private func start(at hostTime: MediaTime?) throws(MediaError) {
        let resumed = state.withLock { s -> Bool in
            guard let control = s.control, s.run != nil else { return false }
            control.setPaused(false)
            s.clock?.resume()
            s.isPlaying = true
            return true
        }
        if resumed { return }
        let (time, loops) = state.withLock { ($0.storedTime, $0.loops) }
        let format = outputFormat()
        let file = try AudioFile(path: path, outputFormat: PCMFormat(.f32))
        let opened: OpenedPlayerOutput
        do { opened = try output.open(format) } catch { throw PlayerEngine.mediaError(error) }
        let control = PlayerControl(volume: volumeParameter, pan: panParameter, rate: rateParameter, loops: loops)
        let engine: PlayerEngine
        do {
            engine = try PlayerEngine(
                file: file, startFrame: Int64((time * Double(fileSampleRate)).rounded()), control: control,
                clock: opened.clock,
                outputFormat: format, meter: meter, startHostTime: hostTime)
        } catch { throw PlayerEngine.mediaError(error) }
        let clock = opened.clock
        var graph = MediaGraph()
        let branch = graph.addBranch("playback", source: engine)
        graph.addSink(opened.sink, input: branch)
        state.withLock { s in
            s.control = control
            s.clock = clock
            s.isPlaying = true
        }
        let run = graph.start { [self] result in
            let error: MediaError? =
                switch result {
                case .success: nil
                case .failure(let failure): PlayerEngine.mediaError(failure)
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
        state.withLock { s in if s.control === control { s.run = run } }
    }

    private func emit(_ event: AudioPlayerEvent) {
        continuation.yield(event)
        state.withLock { $0.onEvent }?(event)
    }
}

/// What an ``AudioPlayer`` tells its observers: `AVAudioPlayerDelegate`'s messages.
public enum AudioPlayerEvent: Sendable, Hashable {
    /// Playback reached the end (all loops) or was stopped; `successfully` is `false` after an error.
    case finished(successfully: Bool)
    /// Decoding or the output failed (`audioPlayerDecodeErrorDidOccur`); playback ended there.
    case decodeError(MediaError)
}
