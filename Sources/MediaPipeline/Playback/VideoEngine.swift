#if canImport(Glibc)
    import Glibc
#endif
import MediaCore
import MediaFFmpeg

/// The source of a ``MediaPlayer``'s video branch: one video stream of the file, demuxed on its own
/// (``/MediaFFmpeg/ContainerDemuxer/streamSource(path:stream:)``), decoded by
/// ``/MediaFFmpeg/H264Decoder`` and converted to `yuv420p` unless it is `yuv420p` or `nv12` already,
/// each frame timed on the player's timeline: its presentation time less the container's start,
/// plus the loops played before (``VideoControl``).
///
/// - Seek: taken from ``VideoControl`` before each frame; the demuxer moves to the keyframe at or
///   before the target, the decoder starts afresh, the output is flushed, and the frames that end at
///   or before the target are decoded but not handed on: the first frame out is the one on screen at
///   the target (exact seeking).
/// - Loops: at the end, if loops are left, the stream starts again at its start, its times one
///   loop length later.
/// - End: when the player has audio, the engine holds its end (its last frame stays on screen, a seek
///   still starts it again) until the audio has ended too (``VideoControl/markAudioEnded()``), as a
///   window of `AVPlayer` or ffplay keeps a short video's last picture while the sound goes on.
/// - Stop: ``next()`` returns `nil`.
struct VideoEngine: MediaSource {
    private let source: ContainerDemuxer.StreamSource
    private let control: VideoControl
    private let output: any PresentingSink
    private let start: MediaTime
    private let loopLength: MediaTime
    private var loopOffset = MediaTime.zero
    private var decoder = CheckedStage(H264Decoder())
    private var converter: CheckedStage?
    private var ready: [MediaSample] = []
    /// After a seek: frames ending at or before it are dropped (timeline time).
    private var target: MediaTime?
    private var drained = false

    var name: String { "MediaPlayer video" }

    init(
        input: PlayerInput, stream: Int, start: MediaTime, startTime: Double, loopLength: Double, control: VideoControl,
        output: any PresentingSink
    ) throws(MediaError) {
        source = try input.streamSource(stream)
        self.start = start
        self.loopLength = Self.time(loopLength)
        self.control = control
        self.output = output
        if startTime > 0 { try seek(to: startTime) }
    }

    /// `seconds` as a time in microseconds.
    static func time(_ seconds: Double) -> MediaTime {
        MediaTime(value: Int64((seconds * 1_000_000).rounded()), timescale: 1_000_000)
    }

    mutating func next() throws -> MediaSample? {
        while ready.isEmpty {
            if control.isStopRequested { return nil }
            if let seconds = control.takeSeek() {
                try seek(to: seconds)
                continue
            }
            if drained {
                guard control.followsAudio, !control.isAudioEnded else { return nil }
                usleep(5_000)
                continue
            }
            try pump()
        }
        return ready.removeFirst()
    }

    /// Reads and decodes until a frame is ready or the end (or a loop's start).
    private mutating func pump() throws {
        guard let packet = try source.next() else {
            try decoder.finish { try convert($0) }
            if control.loops.take() {
                try source.demuxer.seek(to: start)
                decoder = CheckedStage(H264Decoder())
                loopOffset = loopOffset + loopLength
            } else {
                drained = true
            }
            return
        }
        try decoder.process(packet) { try convert($0) }
    }

    /// Converts a decoded frame if the output needs it, times it on the timeline, and keeps it unless a
    /// seek's target is after it.
    private mutating func convert(_ frame: MediaSample) throws {
        var frame = frame
        var timing = frame.timing
        timing.presentationTime = timing.presentationTime - start + loopOffset
        timing.decodeTime = .invalid
        frame.timing = timing
        if let target {
            let end = timing.duration.isValid ? timing.presentationTime + timing.duration : timing.presentationTime
            if end <= target { return }
            self.target = nil
        }
        guard case .video(let format) = frame.format, let pixels = format.pixelFormat,
            pixels != .yuv420p && pixels != .nv12
        else {
            ready.append(frame)
            return
        }
        if converter == nil { converter = CheckedStage(try VideoConverter(to: .yuv420p)) }
        try converter?.process(frame) { ready.append($0) }
    }

    private mutating func seek(to seconds: Double) throws(MediaError) {
        let time = Self.time(seconds)
        try source.demuxer.seek(to: start + time)
        decoder = CheckedStage(H264Decoder())
        ready.removeAll()
        loopOffset = .zero
        target = time
        drained = false
        output.flush()
    }
}

/// What a ``MediaPlayer``'s controls (any thread) tell its video engine: seeks, loops, the stop, and
/// the end of the audio it follows.
final class VideoControl: Sendable {
    private struct State: Sendable {
        var stopRequested = false
        var seekTo: Double?
        var audioEnded = false
    }
    private let state = Locked(State())

    /// Loops still to play.
    let loops: LoopsLeft
    /// Whether the player has audio: the video's end waits for the audio's.
    let followsAudio: Bool

    init(loops: Int, followsAudio: Bool) {
        self.loops = LoopsLeft(loops)
        self.followsAudio = followsAudio
    }

    /// Whether the audio has ended (its output finished or failed).
    var isAudioEnded: Bool { state.withLock { $0.audioEnded } }
    func markAudioEnded() { state.withLock { $0.audioEnded = true } }

    var isStopRequested: Bool { state.withLock { $0.stopRequested } }
    func requestStop() { state.withLock { $0.stopRequested = true } }

    /// Whether a seek waits to be taken (frames decoded before it are stale).
    var hasPendingSeek: Bool { state.withLock { $0.seekTo != nil } }
    func requestSeek(to seconds: Double) { state.withLock { $0.seekTo = seconds } }
    func takeSeek() -> Double? {
        state.withLock { s in
            defer { s.seekTo = nil }
            return s.seekTo
        }
    }
}

/// The sink of a ``MediaPlayer``'s video branch: writes each frame to the presenting sink once it has
/// room, waiting (2 ms at a time) while it has none, so that decoding stays a few frames ahead of
/// the clock and no frame is pushed out. A frame waiting when a seek or the stop comes is dropped
/// (stale). At the end the sink shows what it holds; after a stop it is flushed first.
struct PresentingWriter: MediaSink {
    let output: any PresentingSink
    let control: VideoControl
    var name: String { output.name }

    mutating func write(_ sample: MediaSample) throws {
        var sink = output
        while !sink.isReadyForMoreMediaData {
            if control.isStopRequested || control.hasPendingSeek { return }
            usleep(2_000)
        }
        if control.hasPendingSeek { return }
        try sink.write(sample)
    }

    mutating func finish() throws {
        if control.isStopRequested { output.flush() }
        var sink = output
        try sink.finish()
    }
}
