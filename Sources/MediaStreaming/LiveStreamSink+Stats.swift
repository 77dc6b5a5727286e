import MediaCore

extension LiveStreamSink {
    /// What a ``LiveStreamSink`` has done so far, for an app to poll (``StatsSource/current``).
    public struct Stats: Sendable, Hashable {
        /// Bytes the inner sink has sent, when it says (``SentByteCounting``); `nil` otherwise.
        public var sentBytes: Int64?
        /// Samples handed to the inner sink (all tracks).
        public var sentFrames = 0
        /// Video samples handed to the inner sink.
        public var sentVideoFrames = 0
        /// Audio samples handed to the inner sink.
        public var sentAudioFrames = 0
        /// The bit rate sent over about the last second, in bits per second: it falls while nothing is
        /// sent and is 0 after a second without sending (an outage); `nil` before a second of sending (or
        /// when the inner sink does not count its bytes).
        public var sentBitRate: Double?
        /// Video samples dropped by the queue (audio never is). Samples lost while the connection was
        /// down are not here but in ``droppedWhileReconnecting``; live-streamer's `--stats-json` keys
        /// `droppedFrames` and `droppedWhileReconnecting` are these two.
        public var droppedFrames = 0
        /// Samples (video and audio) the inner sink discarded because its connection was down or
        /// waiting for a keyframe after a reconnection (``ReconnectCounting``).
        public var droppedWhileReconnecting = 0
        /// Times the inner sink reconnected (``ReconnectCounting``).
        public var reconnects = 0
        /// The video encoder's target bit rate now, with adaptive bit rate on (the
        /// ``LiveStreamSink/bitRateControl``'s); `nil` without it.
        public var targetBitRate: Int?
        /// GOPs dropped from their keyframe on (a GOP cut short after some frames were sent is not
        /// counted here; its frames are in ``droppedFrames``).
        public var droppedGOPs = 0
        /// The span of decode times queued now, in seconds.
        public var queueSeconds = 0.0
        /// The longest span the queue has held, in seconds.
        public var maxQueueSeconds = 0.0
        /// How many audio samples had to wait for room (the writer blocked).
        public var writerWaits = 0
        /// Latency from capture (presentation time on the clock) to the hand-off to the inner sink,
        /// in seconds: median and 99th percentile over the last 4096 samples; `nil` before any.
        public var latencyP50: Double?
        /// See ``latencyP50``.
        public var latencyP99: Double?

        /// No samples yet.
        public init() {}
    }

    /// A `Sendable` handle to a ``LiveStreamSink``'s stats, to poll from another thread or task while
    /// the graph owns the sink.
    public struct StatsSource: Sendable {
        let queue: LiveQueue
        let control: BitRateControl?
        let clock: MediaClock
        init(queue: LiveQueue, control: BitRateControl?, clock: MediaClock) {
            self.queue = queue
            self.control = control
            self.clock = clock
        }

        /// The stats now.
        public var current: Stats {
            var stats = queue.stats(at: clock.now)
            stats.targetBitRate = control?.bitRate
            return stats
        }

        /// The stats every `interval` (default: each second) until the sink's sender has ended (the
        /// last element is the final stats), or the consuming task is cancelled. Polls: a slow
        /// consumer sees fewer, later snapshots, never a backlog.
        public func updates(every interval: Duration = .seconds(1)) -> AsyncStream<Stats> {
            let source = self
            let ended = Locked(false)
            return AsyncStream(unfolding: {
                guard !ended.withLock({ $0 }), !Task.isCancelled else { return nil }
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return nil }
                if source.queue.senderHasEnded { ended.withLock { $0 = true } }
                return source.current
            })
        }
    }
}
