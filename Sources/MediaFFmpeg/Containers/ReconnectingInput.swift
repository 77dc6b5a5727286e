import Glibc
public import MediaCore

/// A live network input that comes back after a drop: a camera's RTSP feed, an RTMP or SRT stream.
/// Its audio and video are sources for a graph (each may be read on a thread of its own); when the
/// input fails or ends, it is opened again with backoff, and the samples go on as if nothing but time
/// had been lost.
///
/// ```swift
/// let input = try ReconnectingInput(url: "rtsp://127.0.0.1:8554/cam") { event in print(event) }
/// var graph = MediaGraph()
/// let video = graph.addBranch("video", source: input.videoSource()!)
/// let audio = graph.addBranch("audio", source: input.audioSource()!)
/// graph.addSink(try SegmentedRecorder(directory: "rec/cam"), tracks: [video, audio])
/// try graph.runThreaded(stop: stop)   // input.stop() ends it
/// ```
///
/// The contract:
/// - The first open happens in the initializer and throws as ``ContainerDemuxer/init(url:options:)``
///   does; the input's first video stream and first audio stream are its tracks.
/// - **A drop** is a read that fails, or the input's end (a live input has none), unless ``stop()``
///   was called. It is reported (``Event/disconnected(_:)``), then the URL is opened again after 0.5 s,
///   1 s, 2 s … up to ``Backoff/maxDelay`` between attempts (``Event/attemptFailed(attempt:error:retryIn:)``),
///   at most ``Backoff/maxAttempts`` times per drop (then the sources throw the last error).
/// - **After a reconnection** the timestamps go on monotonic: the new input's first sample is placed
///   the wall time the drop lasted after the end of the last sample before it, and every later sample
///   of both tracks keeps its distance from it (so audio and video stay together). The first sample of
///   each track after the drop carries ``/MediaCore/MediaSample/Flags/discontinuity``; video starts
///   again at a keyframe (the frames before it are dropped and counted), as it starts at one after the
///   first open. ``Event/reconnected(attempt:lost:)``
///   and ``Statistics`` say how long it lasted.
/// - ``stop()``, from any thread, ends a blocked read or a wait between attempts within about 0.1 s;
///   the sources then end.
public final class ReconnectingInput: Sendable {
    /// How often and how soon to try again.
    public struct Backoff: Sendable, Hashable {
        /// Attempts per drop before giving up; `nil` for ever (default).
        public var maxAttempts: Int?
        /// The wait before the first attempt (default 0.5 s); it doubles after each failed attempt.
        public var initialDelay: Duration
        /// The longest wait between attempts (default 8 s).
        public var maxDelay: Duration

        /// Waits of `initialDelay` doubling to `maxDelay`, `maxAttempts` times per drop (`nil`: for ever).
        public init(
            maxAttempts: Int? = nil, initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(8)
        ) {
            self.maxAttempts = maxAttempts
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
        }
    }

    /// What happened to the connection.
    public enum Event: Sendable, CustomStringConvertible {
        /// The input failed (or ended): `error` says how.
        case disconnected(MediaError)
        /// Attempt `attempt` to open it again failed; the next comes after `retryIn` (`nil`: no more).
        case attemptFailed(attempt: Int, error: MediaError, retryIn: Duration?)
        /// Open again on attempt `attempt`, `lost` after the drop (the gap in the timestamps).
        case reconnected(attempt: Int, lost: Duration)

        /// One line, as media-relay prints it.
        public var description: String {
            switch self {
            case .disconnected(let error): return "disconnected (\(error.message))"
            case .attemptFailed(let attempt, let error, let retryIn?):
                return "reconnection attempt \(attempt) failed (\(error.message)); next in \(retryIn)"
            case .attemptFailed(let attempt, let error, nil):
                return "reconnection attempt \(attempt) failed (\(error.message)); giving up"
            case .reconnected(let attempt, let lost): return "reconnected on attempt \(attempt), \(lost) lost"
            }
        }
    }

    /// What the input has delivered and lost.
    public struct Statistics: Sendable, Hashable {
        /// Samples handed out.
        public var samples = 0
        /// Bytes of the samples handed out.
        public var bytes: Int64 = 0
        /// Reconnections that succeeded.
        public var reconnects = 0
        /// Wall time between each drop and its reconnection, added up.
        public var timeLost: Duration = .zero
        /// Video frames dropped after reconnections while waiting for a keyframe.
        public var framesSkipped = 0
    }

    /// The URL, without secrets (``ContainerDemuxer/redacted(_:)``).
    public let name: String
    /// The streams the first open found.
    public let streams: [ContainerDemuxer.Stream]
    private let state: InputState
    private let stopSignal: StopSignal

    /// Opens `url` (see ``ContainerDemuxer/init(url:options:)``); `onEvent` is told of drops and
    /// reconnections, on the thread that found them.
    public init(
        url: String, options: ContainerDemuxer.NetworkOptions = ContainerDemuxer.NetworkOptions(),
        backoff: Backoff = Backoff(), onEvent: (@Sendable (Event) -> Void)? = nil
    ) throws(MediaError) {
        var options = options
        let stop = options.stop ?? StopSignal()
        options.stop = stop
        stopSignal = stop
        name = ContainerDemuxer.redacted(url)
        let demuxer = try ContainerDemuxer(url: url, options: options)
        streams = demuxer.streams
        state = try InputState(
            url: url, options: options, backoff: backoff, demuxer: demuxer, onEvent: onEvent)
    }

    /// The first video stream's samples, `nil` when the input has no video.
    public func videoSource() -> (any MediaSource)? {
        state.has(.video) ? Source(input: self, track: .video) : nil
    }

    /// The first audio stream's samples, `nil` when the input has no audio.
    public func audioSource() -> (any MediaSource)? {
        state.has(.audio) ? Source(input: self, track: .audio) : nil
    }

    /// What has been delivered and lost so far.
    public var statistics: Statistics { state.statistics }

    /// Ends the input from any thread: a blocked read or a wait between attempts returns, and the
    /// sources end.
    public func stop() { stopSignal.request() }

    /// One track, as a source.
    private struct Source: MediaSource {
        let input: ReconnectingInput
        let track: InputState.Track
        var name: String { "\(input.name) \(track)" }
        func next() throws(MediaError) -> MediaSample? { try input.state.next(track, stop: input.stopSignal) }
    }
}

/// The demuxer of the connection now and what carries over between connections, behind one lock.
final class InputState: @unchecked Sendable {
    // Sendable by construction: every stored var (and the demuxer's sources, which are used on one
    // thread at a time as ContainerDemuxer requires) is touched only between `mutex.lock()` and
    // `mutex.unlock()`, in `next`, `has` and `statistics`.
    enum Track: Int, CaseIterable, CustomStringConvertible {
        case video, audio
        var description: String { self == .video ? "video" : "audio" }
    }

    private let mutex = PthreadMutex()
    private let url: String
    private let options: ContainerDemuxer.NetworkOptions
    private let backoff: ReconnectingInput.Backoff
    private let onEvent: (@Sendable (ReconnectingInput.Event) -> Void)?
    private var sources: [ContainerDemuxer.StreamSource?] = [nil, nil]
    private var present: [Bool] = [false, false]
    private var lastEnd: [MediaTime] = [.invalid, .invalid]
    private var offset = MediaTime.zero
    private var rebaseTarget: MediaTime?
    private var needsKeyframe = false
    private var discontinuity: [Bool] = [false, false]
    private var failure: MediaError?
    private var counts = ReconnectingInput.Statistics()

    init(
        url: String, options: ContainerDemuxer.NetworkOptions, backoff: ReconnectingInput.Backoff,
        demuxer: ContainerDemuxer, onEvent: (@Sendable (ReconnectingInput.Event) -> Void)?
    ) throws(MediaError) {
        self.url = url
        self.options = options
        self.backoff = backoff
        self.onEvent = onEvent
        try attach(demuxer)
        present = sources.map { $0 != nil }
        needsKeyframe = present[Track.video.rawValue]  // a live input may start mid-GOP too
    }

    func has(_ track: Track) -> Bool {
        mutex.lock()
        defer { mutex.unlock() }
        return present[track.rawValue]
    }

    var statistics: ReconnectingInput.Statistics {
        mutex.lock()
        defer { mutex.unlock() }
        return counts
    }

    /// Makes sources for the demuxer's first video and first audio stream.
    private func attach(_ demuxer: ContainerDemuxer) throws(MediaError) {
        let video = demuxer.streams.first { $0.isVideo }
        let audio = demuxer.streams.first { $0.isAudio }
        sources = [
            try video.map { s throws(MediaError) in try demuxer.source(stream: s.index) },
            try audio.map { s throws(MediaError) in try demuxer.source(stream: s.index) }
        ]
    }

    func next(_ track: Track, stop: StopSignal) throws(MediaError) -> MediaSample? {
        mutex.lock()
        defer { mutex.unlock() }
        while true {
            if let failure { throw failure }
            if stop.isRequested { return nil }
            guard let source = sources[track.rawValue] else {
                // The new connection lacks this track: it has ended for this run.
                return nil
            }
            var cause: MediaError
            do throws(MediaError) {
                if let sample = try source.next() {
                    if let out = place(sample, track) { return out }
                    continue
                }
                cause = MediaError(.io, "\(ContainerDemuxer.redacted(url)) ended")
            } catch {
                cause = error
            }
            if stop.isRequested { return nil }
            try reconnect(after: cause, stop: stop)
        }
    }

    /// The sample moved to the output timeline, or `nil` when it is dropped (video before the keyframe
    /// after a reconnection).
    private func place(_ sample: MediaSample, _ track: Track) -> MediaSample? {
        var sample = sample
        let start = sample.timing.effectiveDecodeTime
        if let target = rebaseTarget, start.isNumeric {
            offset = target - start
            rebaseTarget = nil
        }
        if track == .video, needsKeyframe {
            guard sample.flags.contains(.keyframe) else {
                counts.framesSkipped += 1
                return nil
            }
            needsKeyframe = false
        }
        if offset != .zero {
            var timing = sample.timing
            if timing.presentationTime.isNumeric { timing.presentationTime = timing.presentationTime + offset }
            if timing.decodeTime.isNumeric { timing.decodeTime = timing.decodeTime + offset }
            sample.timing = timing
        }
        if discontinuity[track.rawValue] {
            sample.flags.insert(.discontinuity)
            discontinuity[track.rawValue] = false
        }
        let end =
            sample.timing.duration.isNumeric
            ? sample.timing.presentationTime + sample.timing.duration : sample.timing.presentationTime
        if end.isNumeric, !lastEnd[track.rawValue].isNumeric || end > lastEnd[track.rawValue] {
            lastEnd[track.rawValue] = end
        }
        counts.samples += 1
        counts.bytes += Int64(sample.byteCount)
        return sample
    }

    /// Drops the connection and opens the URL again with backoff; throws (and fails every later read)
    /// after the last attempt.
    private func reconnect(after cause: MediaError, stop: StopSignal) throws(MediaError) {
        let dropped = MediaClock.hostTime
        sources = [nil, nil]  // the old demuxer goes with its sources
        onEvent?(.disconnected(cause))
        var delay = backoff.initialDelay
        var attempt = 0
        while true {
            attempt += 1
            if !Self.sleep(delay, unless: stop) { return }
            do throws(MediaError) {
                let demuxer = try ContainerDemuxer(url: url, options: options)
                try attach(demuxer)
                let lost = MediaClock.hostTime - dropped
                let last = lastEnd.filter(\.isNumeric).max() ?? .zero
                rebaseTarget = last + lost
                needsKeyframe = sources[Track.video.rawValue] != nil
                discontinuity = [true, true]
                let duration = Duration.nanoseconds(Int64((lost.seconds ?? 0) * 1e9))
                counts.reconnects += 1
                counts.timeLost += duration
                onEvent?(.reconnected(attempt: attempt, lost: duration))
                return
            } catch {
                if stop.isRequested { return }
                let more = backoff.maxAttempts.map { attempt < $0 } ?? true
                delay = min(delay * 2, backoff.maxDelay)
                onEvent?(.attemptFailed(attempt: attempt, error: error, retryIn: more ? delay : nil))
                if !more {
                    failure = error
                    throw error
                }
            }
        }
    }

    /// Sleeps `duration` in steps of 50 ms; `false` when `stop` was requested meanwhile.
    private static func sleep(_ duration: Duration, unless stop: StopSignal) -> Bool {
        var left = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        while left > 0 {
            if stop.isRequested { return false }
            let step = min(left, 0.05)
            var pause = timespec(tv_sec: 0, tv_nsec: Int(step * 1e9))
            nanosleep(&pause, nil)
            left -= step
        }
        return !stop.isRequested
    }
}
