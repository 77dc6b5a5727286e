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
    public var events: AsyncStream<AudioPlayerEvent> { transport.events }

    private let transport: PlayerTransport
    private let settings = Locked((enableRate: false, rate: Float(1), isMeteringEnabled: false))

    /// A player of `path` into `output`.
    ///
    /// - Throws: the reader's errors for a file it cannot read; ``/MediaCore/MediaError/Code/unsupportedFormat``
    ///   for a codec the decoder cannot decode.
    public init(path: String, output: AudioPlayerOutput) throws(MediaError) {
        let file = try AudioFile(path: path, outputFormat: PCMFormat(.f32))
        let info = try AudioFileSummary(path: path)
        self.path = path
        fileSampleRate = file.fileFormat.sampleRate
        numberOfChannels = file.fileFormat.channelLayout.channelCount
        duration = fileSampleRate > 0 ? Double(info.validFrames) / Double(fileSampleRate) : 0
        transport = try PlayerTransport(output: output)
    }

    // MARK: - Properties

    /// Whether audio is playing (not paused, stopped or ended).
    public var isPlaying: Bool { transport.isPlaying }

    /// Loops after the first play: 0 plays once, `n` plays `n` + 1 times, negative loops until ``stop()``.
    /// May change while playing.
    public var numberOfLoops: Int {
        get { transport.loops }
        set { transport.loops = newValue }
    }

    /// Linear gain, 0…1 (clamped); changes ramp over 20 ms.
    public var volume: Float {
        get { Float(transport.volume.value) }
        set { transport.volume.value = Double(newValue) }
    }

    /// −1 (left) … 1 (right); for stereo a balance: the far channel fades out, the near one stays.
    public var pan: Float {
        get { Float(transport.pan.value) }
        set { transport.pan.value = Double(newValue) }
    }

    /// Whether ``rate`` applies (AVAudioPlayer's `enableRate`). Default `false`.
    public var enableRate: Bool {
        get { settings.withLock { $0.enableRate } }
        set {
            settings.withLock { $0.enableRate = newValue }
            applyRate()
        }
    }

    /// Playback speed 0.5…2 with the pitch kept, when ``enableRate`` is set.
    public var rate: Float {
        get { settings.withLock { $0.rate } }
        set {
            settings.withLock { $0.rate = min(2, max(0.5, newValue)) }
            applyRate()
        }
    }

    private func applyRate() {
        let (enabled, value) = settings.withLock { ($0.enableRate, $0.rate) }
        transport.rate.value = enabled ? Double(value) : 1
    }

    /// The file time being heard, in seconds. Setting it moves there (sample-accurately), playing or not.
    public var currentTime: Double {
        get { transport.currentTime }
        set { transport.seek(to: min(max(0, newValue), duration)) }
    }

    /// The host clock in seconds (monotonic), the time base of ``play(atTime:)``.
    public var deviceCurrentTime: Double { MediaClock.hostTime.seconds ?? 0 }

    /// Called with every event too, on the playback thread (the delegate's place). The player keeps the
    /// closure, as it would keep a strong delegate: capture the player itself `[weak player]` in it, or
    /// the two keep each other alive (AVAudioPlayer's delegate is weak for the same reason).
    public var onEvent: (@Sendable (AudioPlayerEvent) -> Void)? {
        get { transport.onEvent }
        set { transport.onEvent = newValue }
    }

    // MARK: - Metering

    /// Whether ``updateMeters()`` reads the levels. Default `false`.
    public var isMeteringEnabled: Bool {
        get { settings.withLock { $0.isMeteringEnabled } }
        set { settings.withLock { $0.isMeteringEnabled = newValue } }
    }

    /// Takes the levels of the audio played up to now (as ``AudioRecorder/updateMeters()``).
    public func updateMeters() { if isMeteringEnabled { transport.meter.updateMeters() } }

    /// The RMS level of `channel` in dBFS at the last ``updateMeters()``; −160 when off or unknown.
    public func averagePower(forChannel channel: Int) -> Float {
        isMeteringEnabled ? transport.meter.averagePower(forChannel: channel) : -160
    }

    /// The held peak of `channel` in dBFS at the last ``updateMeters()``; −160 when off or unknown.
    public func peakPower(forChannel channel: Int) -> Float {
        isMeteringEnabled ? transport.meter.peakPower(forChannel: channel) : -160
    }

    // MARK: - Transport

    /// Checks that the file can be played (decoder and output format), as AVAudioPlayer's does.
    ///
    /// - Throws: the decoder's and the output's errors.
    public func prepareToPlay() throws(MediaError) {
        let file = try AudioFile(path: path, outputFormat: PCMFormat(.f32))
        do { _ = try PlayerEngine.converter(from: file, to: transport.outputFormat(for: file.fileFormat)) } catch {
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
    public func pause() { transport.pause() }

    /// Stops and lets go of the output; ``currentTime`` stays where playback was.
    public func stop() { transport.stop() }

    private func start(at hostTime: MediaTime?) throws(MediaError) {
        if transport.resume() { return }
        try transport.start(AudioFile(path: path, outputFormat: PCMFormat(.f32)), at: hostTime)
    }
}

/// What an ``AudioPlayer`` tells its observers: `AVAudioPlayerDelegate`'s messages.
public enum AudioPlayerEvent: Sendable, Hashable {
    /// Playback reached the end (all loops) or was stopped; `successfully` is `false` after an error.
    case finished(successfully: Bool)
    /// Decoding or the output failed (`audioPlayerDecodeErrorDidOccur`); playback ended there.
    case decodeError(MediaError)
}
