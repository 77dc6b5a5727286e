public import MediaCore
import MediaAudio
import MediaFFmpeg

/// Plays a movie's audio and video together (a file, or one held in memory), as `AVPlayer` (and
/// ffplay) do: play, pause, seek (exact or to a keyframe), rate with the pitch kept, volume, loops, a
/// periodic time observer and events.
///
/// ```swift
/// import MediaDisplay
/// let player = try MediaPlayer(
///     path: "movie.mp4", audio: .device(nil),
///     video: .presenting { clock in try VideoPreviewSink(title: "movie.mp4", pacing: .custom(now: clock)) })
/// let ticks = player.addPeriodicTimeObserver(forInterval: .seconds(1)) { time in print(time) }
/// try player.play()
/// for await event in player.events { if event == .ended { break } }
/// ```
///
/// - Streams: the first audio stream any ``/MediaFFmpeg/AudioDecoder`` codec holds (AAC, MP3, ALAC,
///   PCM...) and the first video stream, H.264 (``/MediaFFmpeg/H264Decoder``), of anything
///   ``/MediaFFmpeg/ContainerDemuxer`` opens. Either may be missing, or left out by giving no output
///   for it (ffplay's `-nodisp`, `-an`).
/// - Graph: one ``/MediaCore/MediaGraph`` with a branch per stream, each on its own thread with a
///   demuxer of its own: audio decoded, converted to the output's rate and channels,
///   time-stretched (``rate``) and given its ``volume``, into an ``AudioPlayerOutput``; video decoded
///   (converted to `yuv420p` unless it is `yuv420p` or `nv12`) into the ``VideoOutput``'s
///   ``/MediaCore/PresentingSink``, a few frames ahead of their time (the sink's back-pressure).
/// - Timing: the video is slaved to the audio, as ffplay's default: the clock handed to the video
///   output is the time being *heard* (the output's clock, latency included, mapped back through the
///   stretcher), so a frame appears when its sound is heard. Without audio, a host clock at ``rate``.
///   Times are the file's, from its start (0); loops continue the timeline (the second play of a 10-s
///   file runs from 10 to 20 s on it) and ``currentTime`` folds it back into the file.
/// - Seek: ``seek(to:mode:)``; the video output is flushed and both streams start afresh at the target.
///   While paused, the frame at the target is shown.
/// - Streams of different lengths: a video shorter than its audio holds its last frame until the audio
///   ends (and still seeks); after an audio shorter than its video, the host clock takes over from the
///   last time heard, at ``rate``.
/// - End: all loops played, the output shows its last frames, the run ends with ``Event/ended`` and
///   ``currentTime`` goes back to 0; ``stop()`` ends it at once and keeps ``currentTime``.
///
/// The methods may be called from any thread; ``onEvent`` and the time observers are called on
/// threads of the player's.
public final class MediaPlayer: Sendable {
    /// The file played; `nil` for an in-memory input (``init(bytes:formatName:audio:video:)``).
    public let path: String?
    /// The file's length in seconds (the container's duration).
    public let duration: Double
    /// The format of the audio stream played, `nil` when none is (none in the file, or no output).
    public let audioFormat: AudioFormat?
    /// The format of the video stream played, `nil` when none is.
    public let videoFormat: VideoFormat?
    /// Every event, in order; ``Event/ready`` first. One stream per player: iterate it once.
    public let events: AsyncStream<Event>

    private let input: PlayerInput
    private let audioOutput: AudioPlayerOutput?
    private let videoOutput: VideoOutput?
    private let audioStream: Int?
    private let videoStream: Int?
    /// The container's start time: timeline time 0.
    private let start: MediaTime
    private let meter: LevelMeter
    private let continuation: AsyncStream<Event>.Continuation
    private let volumeParameter = AudioParameter.volume(1)
    private let panParameter = AudioParameter.pan(0)
    private let rateParameter = AudioParameter.rate(1)
    private let state = Locked(State())

    private struct State {
        var run: MediaGraphRun?
        var audio: PlayerControl?
        var video: VideoControl?
        var presenting: (any PresentingSink)?
        var clock: (any PlaybackClock)?
        var timeline: TimelineClock?
        var monitor: Task<Void, Never>?
        var isPlaying = false
        /// The audio branch has ended while the video plays on: the timeline is the clock.
        var audioEnded = false
        var storedTime = 0.0
        var loops = 0
        var rate: Float = 1
        var onEvent: (@Sendable (Event) -> Void)?
        var observers: [Int: Task<Void, Never>] = [:]
        var nextObserver = 0
    }

    /// A player of `path`'s first audio stream into `audio` and first video stream into `video`; a
    /// `nil` output leaves that stream out.
    ///
    /// - Throws: the demuxer's errors for a file it cannot open;
    ///   ``/MediaCore/MediaError/Code/unsupportedFormat`` for a video codec other than H.264 or an audio
    ///   codec ``/MediaFFmpeg/AudioDecoder`` cannot decode, when an output for it is given;
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` when nothing would be played.
    public convenience init(path: String, audio: AudioPlayerOutput?, video: VideoOutput?) throws(MediaError) {
        try self.init(input: .path(path), audio: audio, video: video)
    }

    /// A player of a container held in memory (a download, a resource), as
    /// ``/MediaFFmpeg/ContainerDemuxer/init(bytes:formatName:)`` reads it: probed unless `formatName`
    /// names its libavformat format (`mp4`, `matroska`, `mpegts`...). Otherwise as
    /// ``init(path:audio:video:)``; errors name the input "in-memory input (N bytes)".
    public convenience init(
        bytes: [UInt8], formatName: String? = nil, audio: AudioPlayerOutput?, video: VideoOutput?
    ) throws(MediaError) {
        try self.init(input: .bytes(bytes, formatName: formatName), audio: audio, video: video)
    }

    private init(input: PlayerInput, audio: AudioPlayerOutput?, video: VideoOutput?) throws(MediaError) {
        let name = input.name
        let demuxer = try input.open()
        let streams = demuxer.streams
        var audioStream: Int?
        var audioFormat: AudioFormat?
        if audio != nil, let stream = streams.first(where: { $0.isAudio }) {
            guard case .audio(let format) = stream.format, AudioDecoder.canDecode(.audio(format)) else {
                throw MediaError(
                    .unsupportedFormat,
                    "MediaPlayer: \(name)'s audio (stream \(stream.index)) is \(stream.codecName), "
                        + "which AudioDecoder does not decode; play it without audio output")
            }
            (audioStream, audioFormat) = (stream.index, format)
        }
        var videoStream: Int?
        var videoFormat: VideoFormat?
        if video != nil, let stream = streams.first(where: { $0.isVideo }) {
            guard case .video(let format) = stream.format, format.codec == .h264 else {
                throw MediaError(
                    .unsupportedFormat,
                    "MediaPlayer: \(name)'s video (stream \(stream.index)) is \(stream.codecName); "
                        + "it plays H.264 video (play it with no video output for its audio alone)")
            }
            (videoStream, videoFormat) = (stream.index, format)
        }
        guard audioStream != nil || videoStream != nil else {
            throw MediaError(
                .invalidArgument,
                "MediaPlayer: nothing to play in \(name): it has \(count: streams.filter(\.isAudio).count, "audio stream") "
                    + "and \(count: streams.filter(\.isVideo).count, "video stream"), and the player was given "
                    + "\(audio == nil ? "no" : "an") audio output and \(video == nil ? "no" : "a") video output")
        }
        self.input = input
        if case .path(let path) = input { self.path = path } else { self.path = nil }
        self.audioOutput = audio
        self.videoOutput = video
        (self.audioStream, self.audioFormat, self.videoStream, self.videoFormat) =
            (audioStream, audioFormat, videoStream, videoFormat)
        start = demuxer.startTime.isNumeric ? demuxer.startTime : .zero
        let longest = streams.compactMap { $0.duration.seconds }.max() ?? 0
        duration = demuxer.duration.seconds ?? longest
        meter = try LevelMeter()
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
        continuation.yield(.ready)
    }

    deinit {
        let observers = state.withLock { $0.observers.values }
        for task in observers { task.cancel() }
        stop()
    }

    // MARK: - Properties

    /// Whether the player is playing (not paused, stopped or ended).
    public var isPlaying: Bool { state.withLock { $0.isPlaying } }

    /// The file time being heard (or, without audio, shown), in seconds. Setting it seeks exactly.
    public var currentTime: Double {
        get {
            let raw = state.withLock { s -> Double in
                if let audio = s.audio, let clock = s.clock, !s.audioEnded {
                    return audio.fileTime(atOutputFrame: clock.playedFrames) ?? s.storedTime
                }
                return s.timeline?.now ?? s.storedTime
            }
            // Loops continue the timeline: fold it back into the file.
            return duration > 0 && raw > duration ? raw.truncatingRemainder(dividingBy: duration) : max(0, raw)
        }
        set { try? seek(to: newValue) }
    }

    /// Linear gain of the audio, 0…1 (clamped); changes ramp over 20 ms.
    public var volume: Float {
        get { Float(volumeParameter.value) }
        set { volumeParameter.value = Double(newValue) }
    }

    /// The playback speed, 0.5…2 (clamped), audio pitch kept (``/MediaAudio/TimeStretch``); the video
    /// follows. `AVPlayer`'s `defaultRate`: ``play()`` plays at it, ``pause()`` does not change it.
    public var rate: Float {
        get { state.withLock { $0.rate } }
        set {
            let rate = min(2, max(0.5, newValue))
            let timeline = state.withLock { s in
                s.rate = rate
                return s.timeline
            }
            rateParameter.value = Double(rate)
            timeline?.setRate(Double(rate))
        }
    }

    /// Loops after the first play: 0 plays once, `n` plays `n` + 1 times, negative loops until
    /// ``stop()``. May change while playing.
    public var numberOfLoops: Int {
        get { state.withLock { $0.loops } }
        set {
            state.withLock { s in
                s.loops = newValue
                s.audio?.loops.value = newValue
                s.video?.loops.value = newValue
            }
        }
    }

    /// Called with every event too, on a thread of the player's. Capture the player `[weak player]`
    /// in it, or the two keep each other alive.
    public var onEvent: (@Sendable (Event) -> Void)? {
        get { state.withLock { $0.onEvent } }
        set { state.withLock { $0.onEvent = newValue } }
    }

    // MARK: - Transport

    /// Plays from ``currentTime``, or resumes after ``pause()``.
    ///
    /// - Throws: the outputs' errors when they cannot be opened (no audio device, no display), and
    ///   the file's when its streams cannot be read.
    public func play() throws(MediaError) {
        let resumed = state.withLock { s -> Bool in
            guard s.run != nil else { return false }
            if !s.isPlaying {
                s.audio?.setPaused(false)
                s.clock?.resume()
                s.timeline?.resume()
                s.isPlaying = true
            }
            return true
        }
        if !resumed { try startRun() }
        emit(.playing)
    }

    /// Pauses: audio and video stop where they are; ``play()`` resumes from there.
    public func pause() {
        if hold() { emit(.paused) }
    }

    /// Holds audio and video where they are; whether they were playing.
    private func hold() -> Bool {
        state.withLock { s -> Bool in
            guard s.isPlaying else { return false }
            s.audio?.setPaused(true)
            s.clock?.pause()
            s.timeline?.pause()
            s.isPlaying = false
            return true
        }
    }

    /// Moves to `seconds` of the file (clamped to 0…``duration``), playing or not.
    ///
    /// After the audio has ended while the video plays on, the run starts afresh at the target (the
    /// window closes and opens again).
    ///
    /// - Throws: the demuxer's errors when looking for the keyframe (``SeekMode/keyframe``); the
    ///   outputs' and the file's, as ``play()``, when the run starts afresh.
    public func seek(to seconds: Double, mode: SeekMode = .exact) throws(MediaError) {
        var target = min(max(0, seconds), duration)
        if mode == .keyframe, let videoStream { target = try keyframeTime(at: target, stream: videoStream) }
        if state.withLock({ $0.run != nil && $0.audioEnded }) {
            let playing = isPlaying
            stop()
            state.withLock { $0.storedTime = target }
            try startRun()
            if !playing { _ = hold() }
            return
        }
        let presenting = state.withLock { s in
            s.storedTime = target
            s.audio?.requestSeek(to: target)
            s.video?.requestSeek(to: target)
            s.timeline?.set(target)
            return s.presenting
        }
        presenting?.flush()
    }

    /// Stops and lets go of the outputs (the window closes); ``currentTime`` stays where playback was.
    public func stop() {
        let time = currentTime
        let (run, audio, video, clock, monitor) = state.withLock { s in (s.run, s.audio, s.video, s.clock, s.monitor) }
        guard let run else { return }
        audio?.requestStop()
        video?.requestStop()
        clock?.flush()  // a write blocked on a full (or paused) device returns
        clock?.resume()
        monitor?.cancel()
        run.stop()
        run.wait()
        state.withLock { $0.storedTime = time }
    }

    // MARK: - Observing

    /// Calls `body` with ``currentTime`` every `interval` while playing, on a task of the player's,
    /// until ``removeTimeObserver(_:)`` (`AVPlayer.addPeriodicTimeObserver(forInterval:queue:using:)`).
    public func addPeriodicTimeObserver(
        forInterval interval: Duration, using body: @escaping @Sendable (Double) -> Void
    ) -> TimeObserver {
        let id = state.withLock { s in
            defer { s.nextObserver += 1 }
            return s.nextObserver
        }
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                if self.isPlaying { body(self.currentTime) }
            }
        }
        state.withLock { $0.observers[id] = task }
        return TimeObserver(id: id)
    }

    /// Stops a periodic time observer.
    public func removeTimeObserver(_ observer: TimeObserver) {
        state.withLock { $0.observers.removeValue(forKey: observer.id) }?.cancel()
    }

    // MARK: - Running

    private func startRun() throws(MediaError) {
        let (time, loops, rate) = state.withLock { ($0.storedTime, $0.loops, $0.rate) }
        rateParameter.value = Double(rate)
        // The branches are not paced against each other in media time (the graph's default keeps them
        // within a second): the video follows the audio through its clock, and after a seek taken by the
        // video first, the audio, held by a paused device, must not hold the video's first frame back.
        var graph = MediaGraph(interleaving: Interleaving(maxQueuedDuration: .seconds(1_000_000)))
        let playsAudio = audioStream != nil && audioOutput != nil
        let videoControl =
            videoStream != nil && videoOutput != nil ? VideoControl(loops: loops, followsAudio: playsAudio) : nil
        // The clock of the video without audio, and after the audio has ended.
        let timeline = TimelineClock(position: time)
        timeline.setRate(Double(rate))
        var audio: (control: PlayerControl, clock: any PlaybackClock)?
        if let audioStream, let audioOutput, let audioFormat {
            let format = AudioFormat.pcm(
                .f32, sampleRate: audioOutput.sampleRate ?? audioFormat.sampleRate,
                channels: audioOutput.channels ?? audioFormat.channelLayout.channelCount)
            let track = try DemuxedAudioTrack(input: input, stream: audioStream, format: audioFormat, start: start)
            let opened: OpenedPlayerOutput
            do { opened = try audioOutput.open(format) } catch { throw PlayerEngine.mediaError(error) }
            let control = PlayerControl(volume: volumeParameter, pan: panParameter, rate: rateParameter, loops: loops)
            let engine: PlayerEngine
            do {
                engine = try PlayerEngine(
                    file: track, startFrame: Int64((time * Double(audioFormat.sampleRate)).rounded()),
                    control: control, clock: opened.clock, outputFormat: format, meter: meter, startHostTime: nil,
                    loopLength: duration)
            } catch { throw PlayerEngine.mediaError(error) }
            audio = (control, opened.clock)
            let branch = graph.addBranch("audio", source: engine)
            let heard = opened.clock
            let ends = AudioEndSink(output: opened.sink) { [weak self] in
                self?.audioEnded(control: control, clock: heard, timeline: timeline, video: videoControl)
            }
            graph.addSink(ends, input: branch)
        }
        var video: (control: VideoControl, output: any PresentingSink)?
        if let videoStream, let videoOutput, let videoControl {
            let clock: @Sendable () -> MediaTime?
            if let (control, output) = audio {
                clock = {
                    if videoControl.isAudioEnded { return VideoEngine.time(timeline.now) }
                    return control.fileTime(atOutputFrame: output.playedFrames).map(VideoEngine.time)
                }
            } else {
                clock = { VideoEngine.time(timeline.now) }
            }
            let output: any PresentingSink
            do { output = try videoOutput.make(clock) } catch { throw PlayerEngine.mediaError(error) }
            let engine = try VideoEngine(
                input: input, stream: videoStream, start: start, startTime: time, loopLength: duration,
                control: videoControl, output: output)
            video = (videoControl, output)
            let branch = graph.addBranch("video", source: engine)
            graph.addSink(PresentingWriter(output: output, control: videoControl), input: branch)
        }
        let monitor = audio.map { watchUnderruns(of: $0.clock, control: $0.control) }
        let audioControl = audio?.control
        state.withLock { s in
            s.audio = audio?.control
            s.clock = audio?.clock
            s.video = video?.control
            s.presenting = video?.output
            s.timeline = timeline
            s.monitor = monitor
            s.isPlaying = true
            s.audioEnded = false
        }
        timeline.resume()
        let run = graph.start { [self] result in ended(result, audio: audioControl, video: videoControl) }
        state.withLock { s in if s.video === videoControl && s.audio === audioControl { s.run = run } }
    }

    /// The end of a run: the state cleared, and the event that says why.
    private func ended(
        _ result: Result<MediaGraph.Progress, any Error>, audio: PlayerControl?, video: VideoControl?
    ) {
        let error: MediaError? =
            switch result {
            case .success: nil
            case .failure(let failure): PlayerEngine.mediaError(failure)
            }
        let stopped = audio?.isStopRequested ?? video?.isStopRequested ?? false
        let monitor = state.withLock { s in
            defer {
                s.isPlaying = false
                (s.run, s.audio, s.video, s.presenting, s.clock, s.timeline, s.monitor) =
                    (nil, nil, nil, nil, nil, nil, nil)
                s.audioEnded = false
                if !stopped { s.storedTime = 0 }
            }
            return s.monitor
        }
        monitor?.cancel()
        if let error {
            emit(.failed(error))
        } else if !stopped {
            emit(.ended)
        }
    }

    /// The audio branch's output has finished (or failed): the timeline takes over as the clock from the
    /// last time heard, and the video, holding its end for the audio, may end.
    private func audioEnded(
        control: PlayerControl, clock: any PlaybackClock, timeline: TimelineClock, video: VideoControl?
    ) {
        if let heard = control.fileTime(atOutputFrame: clock.playedFrames) { timeline.set(heard) }
        state.withLock { s in if s.audio === control { s.audioEnded = true } }
        video?.markAudioEnded()
    }

    /// A task that emits ``Event/stalled`` each time the audio output reports a new underrun before the
    /// engine has handed it the last of the audio.
    private func watchUnderruns(of clock: any PlaybackClock, control: PlayerControl) -> Task<Void, Never> {
        Task.detached { [weak self] in
            var seen = clock.underruns
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                let now = clock.underruns
                if now > seen, !control.isFedToTheEnd, let self, self.isPlaying { self.emit(.stalled) }
                seen = now
            }
        }
    }

    /// The presentation time, on the timeline, of the keyframe at or before `target`.
    private func keyframeTime(at target: Double, stream: Int) throws(MediaError) -> Double {
        let source = try input.streamSource(stream)
        try source.demuxer.seek(to: start + VideoEngine.time(target))
        guard let keyframe = try source.next(), let seconds = (keyframe.timing.presentationTime - start).seconds else {
            return target
        }
        return min(max(0, seconds), target)
    }

    private func emit(_ event: Event) {
        continuation.yield(event)
        state.withLock { $0.onEvent }?(event)
    }
}
