/// Paces any source at real time on a ``MediaClock``: each sample is handed out once the clock has
/// reached its end (presentation time plus duration, counted from the first sample's presentation
/// time), as a microphone or a camera delivers a buffer once it has been captured. For streaming a file
/// or a generator live (`--realtime`), or for testing live behaviour.
///
/// The samples keep their own timestamps; the source only waits. When the consumer is slower than real
/// time, samples are handed out at once, never dropped.
public struct RealTimeSource: MediaSource {
    private var base: any MediaSource
    private let clock: MediaClock?
    /// The first sample's presentation time, and the clock's time when it was handed out.
    private var start: (pts: MediaTime, clockTime: MediaTime, clock: MediaClock)?
    /// The wrapped source's name.
    public let name: String

    /// `base`, paced on `clock` (default: a clock anchored when the first sample is read).
    public init(_ base: any MediaSource, clock: MediaClock? = nil) {
        self.base = base
        self.clock = clock
        name = base.name
    }

    /// The next sample of the wrapped source, once its time has come.
    public mutating func next() throws -> MediaSample? {
        guard let sample = try base.next() else { return nil }
        let pts = sample.timing.presentationTime
        guard pts.isNumeric else { return sample }
        if start == nil {
            let clock = self.clock ?? MediaClock()
            start = (pts, clock.now, clock)
        }
        if let start {
            let end = pts + sample.timing.duration
            start.clock.sleep(until: start.clockTime + ((end.isNumeric ? end : pts) - start.pts))
        }
        return sample
    }
}
