extension LevelMeter {
    /// How a ``LevelMeter`` measures: the block its readings advance by, the averaging window, and the
    /// peak's hold time and decay rate. Every duration is media time, turned into a whole number of
    /// frames at the input's sample rate (rounded to the nearest frame), never wall-clock time.
    ///
    /// The defaults: readings advance every 10 ms block; the average is the RMS of the last 300 ms (30
    /// blocks, the integration time of a VU meter); the peak holds for 500 ms, then falls 20 dB in
    /// 1.7 s (about 11.8 dB/s, the fall time of an IEC 60268-10 type I peak programme meter).
    public struct Configuration: Sendable, Hashable {
        /// How much audio one block covers; readings change once per block. Default 10 ms. Must lie in
        /// 1 ms...1 s.
        public var block: Duration
        /// How much audio the average covers: the RMS is taken over the last
        /// `round(averagingWindow / block)` blocks. Default 300 ms. Must lie in `block`...60 s.
        public var averagingWindow: Duration
        /// How long the peak reading stays at a new peak before it starts to fall. Default 500 ms. Must
        /// lie in 0...3600 s.
        public var peakHold: Duration
        /// How fast the peak reading falls once its hold time is over, in dB per second of audio.
        /// Default 20 / 1.7 (20 dB in 1.7 s). 0 keeps a peak for ever (a "max peak" reading). Must lie
        /// in 0...10 000.
        public var peakDecayRate: Double

        /// A configuration; every argument has the default described on the type.
        public init(
            block: Duration = .milliseconds(10),
            averagingWindow: Duration = .milliseconds(300),
            peakHold: Duration = .milliseconds(500),
            peakDecayRate: Double = 20 / 1.7
        ) {
            self.block = block
            self.averagingWindow = averagingWindow
            self.peakHold = peakHold
            self.peakDecayRate = peakDecayRate
        }

        /// Throws ``/MediaCore/MediaError/Code/invalidArgument`` naming the first setting out of range.
        func validate() throws(MediaError) {
            guard block >= .milliseconds(1), block <= .seconds(1) else {
                throw MediaError(.invalidArgument, "a meter block of \(block) is outside 1 ms...1 s")
            }
            guard averagingWindow >= block, averagingWindow <= .seconds(60) else {
                throw MediaError(
                    .invalidArgument, "an averaging window of \(averagingWindow) is outside the block (\(block))...60 s"
                )
            }
            guard peakHold >= .zero, peakHold <= .seconds(3600) else {
                throw MediaError(.invalidArgument, "a peak hold of \(peakHold) is outside 0...3600 s")
            }
            guard peakDecayRate.isFinite, (0...10_000).contains(peakDecayRate) else {
                throw MediaError(.invalidArgument, "a peak decay rate of \(peakDecayRate) dB/s is outside 0...10000")
            }
        }

        /// `duration` in frames at `sampleRate`, rounded to the nearest frame.
        static func frames(_ duration: Duration, sampleRate: Int) -> Int {
            let (seconds, attoseconds) = duration.components
            let exact = (Double(seconds) + Double(attoseconds) * 1e-18) * Double(sampleRate)
            return Int(exact.rounded())
        }
    }
}
