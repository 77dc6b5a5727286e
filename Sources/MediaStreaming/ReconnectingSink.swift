public import Logging
public import MediaCore

/// A multi-track sink that survives its connection: when a write fails (the server restarted, the
/// link dropped), it closes the broken connection, reconnects with exponential backoff, and resumes at
/// the next video keyframe with a fresh header (so the server gets the parameter sets and the AAC
/// configuration again) and the timestamps the samples carry (continuous and monotonic for the
/// server: no reset to zero). What OBS's and HaishinKit's reconnect loops do, and what
/// `ffmpeg -f flv rtmp://…` does not (it stops).
///
/// ```swift
/// let url = "rtmp://127.0.0.1/live/key"
/// let output = ReconnectingSink(name: url) { try ContainerMuxer(url: url) }
/// let live = try LiveStreamSink(output, clock: clock)   // the queue keeps the encoder going meanwhile
/// graph.addSink(live, tracks: [video, audio])
/// graph.addSink(try ContainerMuxer(path: "local.mp4"), tracks: [video, audio])  // untouched by outages
/// ```
///
/// - Input: what the connections accept (encoded video and audio, interleaved by decode time).
/// - `connect` makes a new, unbegun sink (it connects); it is called on ``begin(tracks:)`` and on every
///   reconnection attempt, from the thread that writes (a graph's thread), hence `@Sendable`: it may
///   capture constants and `Sendable` values, not the caller's mutable state, and each sink it made is finished once (a broken one as it is dropped, its
///   error ignored).
/// - While disconnected, samples are discarded and counted (``discardedSamples``), and an attempt is
///   made when a sample arrives after the backoff delay (``Backoff``: 0.5 s, doubling up to 8 s). A
///   new connection is begun with the formats of the first, then everything is discarded up to the
///   next video keyframe (with no video track: nothing), so the receiver's stream after the restart
///   decodes from its first frame and audio starts with video. A ``/MediaCore/KeyframeRequest`` shared with the
///   encoder makes that keyframe come at once.
/// - Errors: the first connection's errors are thrown by ``begin(tracks:)`` (no retry: a wrong URL is
///   reported at once); after ``Backoff/maxAttempts`` failed attempts in one outage, ``write(_:track:)``
///   throws ``/MediaCore/MediaError/Code/io`` naming the sink, the attempts and the last error. ``finish()``
///   finishes the live connection and throws its error.
///
/// Needs only a ``/MediaCore/MultiTrackSink``, as ``LiveStreamSink`` does: it wraps an FFmpeg muxer to
/// a URL as well as any other network sink.
public final class ReconnectingSink: MultiTrackSink, ReconnectCounting, DiagnosticReporting {
    /// How reconnection attempts are spaced and bounded.
    public struct Backoff: Sendable, Hashable {
        /// Attempts per outage before the sink gives up (0: never reconnect, fail on the first error).
        public var maxAttempts: Int
        /// The delay before the first attempt after a connection broke.
        public var initialDelay: Duration
        /// The longest delay between two attempts.
        public var maxDelay: Duration

        /// `maxAttempts` attempts (default 5), the first after `initialDelay` (0.5 s), each delay
        /// double the one before, at most `maxDelay` (8 s): 5 attempts span about 15 s.
        public init(maxAttempts: Int = 5, initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(8))
        {
            self.maxAttempts = max(0, maxAttempts)
            self.initialDelay = max(.zero, initialDelay)
            self.maxDelay = max(self.initialDelay, maxDelay)
        }

        /// The delay before attempt `attempt` (1-based) of an outage.
        public func delay(beforeAttempt attempt: Int) -> Duration {
            var delay = initialDelay
            for _ in 1..<max(1, attempt) where delay < maxDelay { delay = delay * 2 }
            return min(delay, maxDelay)
        }
    }

    /// What happened to the connection, for an app to show (called on the thread that writes).
    public enum Event: Sendable, Hashable {
        /// A write failed: the connection is dropped; the first attempt follows after `retryIn`.
        case disconnected(MediaError, retryIn: Duration)
        /// Attempt `attempt` failed; the next one follows after `retryIn` (`nil`: it was the last).
        case attemptFailed(attempt: Int, MediaError, retryIn: Duration?)
        /// Attempt `attempt` connected, `downtime` after the connection broke; samples flow again from
        /// the next video keyframe.
        case reconnected(attempt: Int, downtime: Duration)
        /// The stream resumed with the keyframe (or, with no video, the sample) at `decodeTime`.
        case resumed(decodeTime: MediaTime)
    }

    /// The name given (the URL, typically), in errors and progress.
    public let name: String
    /// The reconnection policy.
    public let backoff: Backoff
    /// Successful reconnections so far.
    public private(set) var reconnects = 0
    /// Samples discarded because no connection took them (while disconnected or waiting for a
    /// keyframe after a reconnection).
    public private(set) var discardedSamples = 0
    /// Bytes sent over every connection so far (the closed ones and the live one), when the
    /// connections say (``SentByteCounting``).
    public var bytesWritten: Int64 { closedBytes + ((connection as? any SentByteCounting)?.bytesWritten ?? 0) }

    private let connect: @Sendable () throws -> any MultiTrackSink
    private let keyframeRequest: KeyframeRequest?
    let onEvent: (@Sendable (Event) -> Void)?
    /// Where outages and reconnections are logged as they happen (see
    /// ``ReconnectingSink/Event/mediaDiagnostic(stage:discardedSamples:)`` for levels and metadata), as
    /// well as told to `onEvent`; `nil` (the default) logs nothing.
    public var logger: Logger?
    private var connection: (any MultiTrackSink)?
    private var state = State.idle
    private var begin: BeginArguments?
    private var videoTracks: Set<Int> = []
    private var closedBytes: Int64 = 0
    private let clock = ContinuousClock()

    private enum State {
        case idle
        case connected
        case awaitingKeyframe
        case disconnected(since: ContinuousClock.Instant, attempt: Int, next: ContinuousClock.Instant)
        /// Gave up (or failed with reconnection off): writes throw, ``finish()`` has nothing to close.
        case failed
        case finished
    }

    private enum BeginArguments {
        case formats([MediaFormat?])
        case firstSamples([MediaSample?])
    }

    /// A sink that connects with `connect` now (at ``begin(tracks:)``) and again after each outage, as
    /// `backoff` says; `onEvent` hears about outages and reconnections. With a `keyframeRequest` shared
    /// with the video encoder, a reconnection asks it for a keyframe, so the stream resumes at once
    /// instead of at the next scheduled keyframe.
    public init(
        name: String, backoff: Backoff = Backoff(), keyframeRequest: KeyframeRequest? = nil,
        onEvent: (@Sendable (Event) -> Void)? = nil, connect: @escaping @Sendable () throws -> any MultiTrackSink
    ) {
        self.name = "ReconnectingSink(\(name))"
        self.backoff = backoff
        self.keyframeRequest = keyframeRequest
        self.onEvent = onEvent
        self.connect = connect
    }

    /// Connects and begins the first connection with `formats`.
    public func begin(tracks formats: [MediaFormat?]) throws {
        try start(.formats(formats), formats: formats)
    }

    /// Connects and begins the first connection with the first samples (their timescales kept).
    public func begin(firstSamples: [MediaSample?]) throws {
        try start(.firstSamples(firstSamples), formats: firstSamples.map { $0?.format })
    }

    private func start(_ arguments: BeginArguments, formats: [MediaFormat?]) throws {
        guard case .idle = state else { throw MediaError.stageFinished(name) }
        videoTracks = Set(formats.indices.filter { formats[$0]?.video != nil })
        begin = arguments
        connection = try open()
        state = .connected
    }

    /// Writes `sample` to the connection; on its failure, drops the connection and reconnects as the
    /// type's contract says.
    public func write(_ sample: MediaSample, track: Int) throws {
        switch state {
        case .idle, .finished, .failed:
            throw MediaError.stageFinished(name)
        case .disconnected(let since, let attempt, let next):
            let now = clock.now
            guard now >= next else { discardedSamples += 1; return }
            do {
                connection = try open()
                reconnects += 1
                state = .awaitingKeyframe
                if !videoTracks.isEmpty { keyframeRequest?.request() }
                report(.reconnected(attempt: attempt, downtime: now - since))
            } catch {
                let failure = Self.mediaError(error)
                guard attempt < backoff.maxAttempts else {
                    state = .failed
                    report(.attemptFailed(attempt: attempt, failure, retryIn: nil))
                    throw MediaError(
                        .io, "\(name) gave up after \(count: attempt, "reconnection attempt"): \(failure.message)")
                }
                let delay = backoff.delay(beforeAttempt: attempt + 1)
                state = .disconnected(since: since, attempt: attempt + 1, next: clock.now + delay)
                report(.attemptFailed(attempt: attempt, failure, retryIn: delay))
                discardedSamples += 1
                return
            }
            try resumeOrDiscard(sample, track: track)
        case .awaitingKeyframe:
            try resumeOrDiscard(sample, track: track)
        case .connected:
            try send(sample, track: track)
        }
    }

    /// After a reconnection: discards up to the next video keyframe, which (or, with no video track,
    /// the first sample) resumes the stream.
    private func resumeOrDiscard(_ sample: MediaSample, track: Int) throws {
        let resumes = videoTracks.isEmpty || (videoTracks.contains(track) && sample.flags.contains(.keyframe))
        guard resumes else { discardedSamples += 1; return }
        state = .connected
        report(.resumed(decodeTime: sample.timing.effectiveDecodeTime))
        try send(sample, track: track)
    }

    private func send(_ sample: MediaSample, track: Int) throws {
        guard var live = connection else { throw MediaError.stageFinished(name) }
        do {
            try live.write(sample, track: track)
            connection = live
        } catch {
            let failure = Self.mediaError(error)
            guard backoff.maxAttempts > 0 else {
                state = .failed
                drop(live)
                throw failure
            }
            drop(live)
            discardedSamples += 1
            let delay = backoff.delay(beforeAttempt: 1)
            let now = clock.now
            state = .disconnected(since: now, attempt: 1, next: now + delay)
            report(.disconnected(failure, retryIn: delay))
        }
    }

    /// Finishes a broken connection (its error is the outage's, already reported) and keeps its count.
    private func drop(_ broken: any MultiTrackSink) {
        var broken = broken
        try? broken.finish()
        closedBytes += (broken as? any SentByteCounting)?.bytesWritten ?? 0
        connection = nil
    }

    /// A new connection, begun.
    private func open() throws -> any MultiTrackSink {
        var sink = try connect()
        do {
            switch begin {
            case .formats(let formats)?: try sink.begin(tracks: formats)
            case .firstSamples(let samples)?: try sink.begin(firstSamples: samples)
            case nil: throw MediaError(.invalidArgument, "\(name) was not begun")
            }
        } catch {
            try? sink.finish()
            throw error
        }
        return sink
    }

    /// Finishes the live connection (none while disconnected).
    public func finish() throws {
        if case .finished = state { throw MediaError.stageFinished(name) }
        state = .finished
        guard var live = connection else { return }
        connection = nil
        defer { closedBytes += (live as? any SentByteCounting)?.bytesWritten ?? 0 }
        try live.finish()
    }

    private static func mediaError(_ error: any Error) -> MediaError {
        (error as? MediaError) ?? MediaError(.io, "\(error)")
    }
}

@available(*, unavailable) extension ReconnectingSink: Sendable {}
