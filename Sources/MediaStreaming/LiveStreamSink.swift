public import Logging
public import MediaCore

/// A bounded live queue in front of a network sink, with a sender thread of its own: what OBS's and
/// HaishinKit's output queues do, and GStreamer's `queue leaky=…` does for a whole stream, but dropping
/// video by whole GOPs and never audio.
///
/// ```swift
/// let clock = MediaClock()
/// let live = try LiveStreamSink(try ContainerMuxer(url: "rtmp://127.0.0.1/live/key"), clock: clock,
///                           maxQueueDuration: .seconds(2))
/// let stats = live.statsSource                 // poll `stats.current` from any thread
/// graph.addSink(live, tracks: [video, audio])  // branches paced with RealTimeSource(…, clock: clock)
/// ```
///
/// - Input: what the wrapped ``/MediaCore/MultiTrackSink`` accepts (encoded video and audio, interleaved by decode
///   time). ``begin(firstSamples:)`` begins the inner sink on the caller's thread (its errors are thrown
///   there), then hands the inner sink to the sender thread, which alone touches it from then on.
/// - Queue: bounded in **media time**: the span of decode times held (default 2 s). When a new sample
///   would make it longer, queued video is dropped from its oldest frame up to the next keyframe, and
///   the rest of a GOP whose frame was dropped is dropped as it arrives: a GOP is never resumed after a
///   hole, so the receiver sees whole GOPs (possibly cut short at the end) and no broken references.
///   **Audio is never dropped**: when only audio is left and it still exceeds the limit, ``write(_:track:)``
///   blocks until the sender has made room (waits of at most 100 ms, re-checked; counted in
///   ``Stats/writerWaits``). Every drop is counted (``Stats/droppedFrames``, ``Stats/droppedGOPs``).
/// - Latency: from a sample's capture time (its presentation time on `clock`, as ``/MediaCore/RealTimeSource`` or a
///   capture source stamps it) to the moment the sender hands it to the inner sink; p50/p99 over the
///   last 4096 samples.
/// - Errors: the inner sink's write error is thrown by the next ``write(_:track:)`` (the sender then
///   discards what comes, and ``finish()`` still finishes the inner sink); its begin error by
///   ``begin(firstSamples:)``; ``finish()`` throws the first error of the sender, else the inner
///   sink's `finish` error. ``/MediaCore/MediaError/Code/invalidArgument`` for a limit that is not a positive
///   time; ``/MediaCore/MediaError/Code/stageFinished`` after ``finish()`` or once the sender has ended.
/// - ``finish()`` drains the queue (it may take as long as the network needs for it), then finishes
///   the inner sink, and returns when the sender thread has ended.
///
/// Needs nothing but a ``/MediaCore/MultiTrackSink``: it wraps any network sink (an FFmpeg muxer, a
/// future HLS writer or WebRTC sender), and a reconnecting sink can slot in as the inner sink without
/// touching the queue.
public final class LiveStreamSink: MultiTrackSink, DiagnosticReporting {
    /// The queue's limit: the span of decode times it may hold.
    public let maxQueueDuration: MediaTime
    /// The clock samples' presentation times are on (for latency).
    public let clock: MediaClock
    /// `LiveStreamSink(<inner sink's name>)`.
    public let name: String
    private let queue: LiveQueue
    private var pending: Handoff<any MultiTrackSink>?
    private var started = false
    private var finished = false
    /// Where dropped video is reported: one warning at ``finish()`` (code `framesDropped`, with `stage`
    /// and `count`) when the queue dropped frames. Handed on, at `begin`, to the inner sink when it
    /// adopts ``/MediaCore/DiagnosticReporting`` and has no logger (a ``ReconnectingSink`` logs its outages).
    /// `nil` (the default) logs nothing.
    public var logger: Logger?
    /// Runs the adaptive bit rate policy, if any (writer's thread only).
    var bitRateDriver: AdaptiveBitRateDriver?

    /// A live queue of at most `maxQueueDuration` (default 2 s) of media in front of `inner`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when `maxQueueDuration` is not a positive time.
    public convenience init(
        _ inner: sending any MultiTrackSink, clock: MediaClock, maxQueueDuration: MediaTime = .seconds(2)
    ) throws(MediaError) {
        try self.init(inner, clock: clock, maxQueueDuration: maxQueueDuration, adaptiveBitRate: nil)
    }

    /// A live queue of at most `maxQueueDuration` (default 2 s) of media in front of `inner`, whose
    /// `adaptiveBitRate` policy lowers and raises the video encoder's bit rate from the queue's state
    /// (``AdaptiveBitRate``; `nil`: off, as the initializer without it).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when `maxQueueDuration` is not a positive time.
    public init(
        _ inner: sending any MultiTrackSink, clock: MediaClock, maxQueueDuration: MediaTime = .seconds(2),
        adaptiveBitRate: AdaptiveBitRate?
    ) throws(MediaError) {
        guard maxQueueDuration.isNumeric, maxQueueDuration > .zero else {
            throw MediaError(
                .invalidArgument, "the live queue's limit must be a positive time, not \(maxQueueDuration)")
        }
        name = "LiveStreamSink(\(inner.name))"
        self.maxQueueDuration = maxQueueDuration
        self.clock = clock
        queue = LiveQueue(limit: maxQueueDuration)
        pending = Handoff(inner)
        bitRateDriver = adaptiveBitRate.map { AdaptiveBitRateDriver($0, queueLimit: maxQueueDuration) }
    }

    /// A live queue of at most `maxQueueDuration`, given as a Swift `Duration` (`.milliseconds(500)`,
    /// converted by ``/MediaCore/MediaTime/init(_:)``), in front of `inner`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when `maxQueueDuration` is not positive.
    @_disfavoredOverload
    public convenience init(
        _ inner: sending any MultiTrackSink, clock: MediaClock, maxQueueDuration: Duration
    ) throws(MediaError) {
        try self.init(inner, clock: clock, maxQueueDuration: MediaTime(maxQueueDuration), adaptiveBitRate: nil)
    }

    /// A live queue of at most `maxQueueDuration`, given as a Swift `Duration`, in front of `inner`, with an
    /// `adaptiveBitRate` policy (see ``AdaptiveBitRate``).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when `maxQueueDuration` is not positive.
    @_disfavoredOverload
    public convenience init(
        _ inner: sending any MultiTrackSink, clock: MediaClock, maxQueueDuration: Duration,
        adaptiveBitRate: AdaptiveBitRate?
    ) throws(MediaError) {
        try self.init(
            inner, clock: clock, maxQueueDuration: MediaTime(maxQueueDuration), adaptiveBitRate: adaptiveBitRate)
    }

    deinit {
        // Abandoned without finish: the sender drains what is queued, finishes the inner sink and ends.
        queue.finish()
    }

    /// A handle to poll the stats from any thread while the graph owns the sink.
    public var statsSource: StatsSource { StatsSource(queue: queue, control: bitRateControl, clock: clock) }

    /// The stats now.
    public var stats: Stats { statsSource.current }

    /// Begins the inner sink with the formats, then starts the sender.
    public func begin(tracks: [MediaFormat?]) throws {
        try start { sink throws in try sink.begin(tracks: tracks) }
    }

    /// Begins the inner sink with the first samples, then starts the sender.
    public func begin(firstSamples: [MediaSample?]) throws {
        try start { sink throws in try sink.begin(firstSamples: firstSamples) }
    }

    private func start(_ begin: (inout any MultiTrackSink) throws -> Void) throws {
        guard !finished, !started, let handoff = pending, var sink = handoff.take() else {
            throw MediaError.stageFinished(name)
        }
        Self.hand(logger, to: &sink)
        do {
            try begin(&sink)
        } catch {
            pending = Handoff(sink)  // finish() still closes the inner sink
            throw error
        }
        pending = nil
        started = true
        let queue = self.queue
        let clock = self.clock
        do {
            try StageThread.detach {
                var sender = LiveStreamSender(sink: sink, queue: queue, clock: clock)
                sender.run()
            }
        } catch {
            // No sender: writes and finish throw this instead of waiting for one.
            queue.fail(error)
            queue.senderEnded(bytes: nil)
            throw error
        }
    }

    /// Queues `sample` (or drops it, video only, by the policy above); blocks only while audio would
    /// exceed the limit.
    public func write(_ sample: MediaSample, track: Int) throws {
        guard started, !finished else { throw MediaError.stageFinished(name) }
        let isVideo = sample.format.video != nil
        try queue.put(
            LiveQueueState.Entry(
                sample: sample, track: track, isVideo: isVideo, isKeyframe: sample.flags.contains(.keyframe),
                decodeTime: sample.timing.effectiveDecodeTime))
        bitRateDriver?.tick { queue.stats(at: clock.now) }
    }

    /// Gives `logger` to `sink` if it reports diagnostics and has no logger of its own.
    private static func hand(_ logger: Logger?, to sink: inout any MultiTrackSink) {
        guard let logger, let reporter = sink as? any DiagnosticReporting, reporter.logger == nil else { return }
        reporter.logger = logger
    }

    /// Drains the queue, finishes the inner sink and waits for the sender to end.
    public func finish() throws {
        guard !finished else { throw MediaError.stageFinished(name) }
        finished = true
        if !started {
            // Never begun: the inner sink closes its output here.
            if let handoff = pending, var sink = handoff.take() { try sink.finish() }
            return
        }
        queue.finish()
        let failure = queue.waitForSender()
        let stats = self.stats
        if stats.droppedFrames > 0 {
            MediaDiagnostic(
                .warning,
                "Dropped \(stats.droppedFrames) video \(stats.droppedFrames == 1 ? "frame" : "frames") in \(stats.droppedGOPs) "
                    + "\(stats.droppedGOPs == 1 ? "GOP" : "GOPs") to keep the live queue under \(maxQueueDuration).",
                metadata: [
                    DiagnosticKey.stage: name, DiagnosticKey.code: "framesDropped",
                    DiagnosticKey.count: String(stats.droppedFrames)
                ]
            ).log(to: logger)
        }
        if let failure { throw failure }
    }
}

@available(*, unavailable) extension LiveStreamSink: Sendable {}
