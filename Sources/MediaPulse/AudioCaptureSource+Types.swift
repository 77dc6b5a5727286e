public import MediaCore

extension AudioCaptureSource {
    /// A gap in the captured audio: the sample at ``time`` follows audio that never arrived.
    public struct Discontinuity: Sendable, Hashable {
        /// The presentation time of the first sample after the gap.
        public var time: MediaTime
        /// Frames dropped because the consumer fell behind by more than the buffer (an overrun).
        public var lostFrames: Int64
        /// Frames of a hole in the server's stream.
        public var holeFrames: Int64
    }

    /// What a capture has counted so far.
    public struct Statistics: Sendable, Hashable {
        /// Frames handed out by ``AudioCaptureSource/next()``.
        public var framesDelivered: Int64
        /// Frames dropped because the consumer fell behind (overruns).
        public var lostFrames: Int64
        /// Frames of holes in the server's stream.
        public var holeFrames: Int64
        /// Samples handed out flagged as discontinuities.
        public var discontinuities: Int64
        /// The latest latency the server reported (capture to hand-over: device, server and our
        /// fragment), or ``/MediaCore/MediaTime/invalid`` before the first report.
        public var latency: MediaTime
        /// The largest latency reported.
        public var maximumLatency: MediaTime
    }
}
