/// Makes any source a live one on a ``MediaClock``: its samples are stamped with the clock's media time
/// and each is handed out once the clock has reached its end (stamped presentation time plus
/// duration), as a microphone or a camera delivers a buffer once it has been captured. For streaming a
/// file or a generator live (`--realtime`), or for testing live behaviour.
///
/// - Stamping: the wrapped source's first sample is stamped `start` (default zero: the clock's
///   anchor), and every sample keeps its distance from the first: a sample `d` after the first (by
///   presentation time, else decode time) is stamped `start + d`, its decode time shifted alike;
///   durations, trims and everything else stay as they are. So sources that **start together** on
///   one clock, such as an audio and a video branch of one ``MediaGraph`` given the same clock, start
///   at the same media time, whatever times their samples had: a camera's uptime, a file's start
///   time. (Their own first times are not kept: each live source is a device started at `start`. A
///   source that joins a recording later passes `start: clock.now`.)
/// - Pacing: from the clock's anchor, not from when the source happens to be read first: a sample
///   stamped `t` is handed out once the clock reads `t` plus its duration. Sources sharing a clock so
///   stay in step in wall time too; a branch whose thread starts late catches up at once instead of
///   running late for the rest of the run. When the consumer is slower than real time, samples are
///   handed out at once, never dropped. Make the clock just before the run: samples due before the
///   source is first read (a clock anchored long ago) are handed out at once.
/// - Without a clock, the source uses a clock of its own anchored when its first sample is read.
///
/// A sample with neither a numeric presentation nor decode time is handed out at once, as it is.
public struct RealTimeSource: MediaSource, WrappingComponent {
    private var base: any MediaSource
    private let clock: MediaClock?
    private let start: MediaTime
    /// Fixed at the first sample: what is added to every time (`start` minus the first sample's
    /// time), and the clock paced on.
    private var stamping: (shift: MediaTime, clock: MediaClock)?
    /// The wrapped source's name.
    public let name: String

    /// `base`, live on `clock` (default: a clock anchored when the first sample is read), its first
    /// sample stamped `start` (default: zero, the clock's anchor).
    public init(_ base: any MediaSource, clock: MediaClock? = nil, start: MediaTime = .zero) {
        self.base = base
        self.clock = clock
        self.start = start
        name = base.name
    }

    /// `base`, live on `clock`, its first sample stamped `start` given as a Swift `Duration` after the
    /// clock's anchor (`.milliseconds(200)`), converted by ``MediaTime/init(_:)``.
    @_disfavoredOverload
    public init(_ base: any MediaSource, clock: MediaClock? = nil, start: Duration) {
        self.init(base, clock: clock, start: MediaTime(start))
    }

    /// The wrapped source, so that a run's logger reaches it (see ``WrappingComponent``).
    public var wrappedComponent: Any { base }

    /// The next sample of the wrapped source, stamped on the clock, once its time has come.
    public mutating func next() throws -> MediaSample? {
        guard var sample = try base.next() else { return nil }
        let timing = sample.timing
        let own = timing.presentationTime.isNumeric ? timing.presentationTime : timing.decodeTime
        guard own.isNumeric else { return sample }
        if stamping == nil {
            stamping = (start - own, clock ?? MediaClock())
        }
        guard let (shift, clock) = stamping else { return sample }
        var stamped = timing
        if timing.presentationTime.isNumeric { stamped.presentationTime = timing.presentationTime + shift }
        if timing.decodeTime.isNumeric { stamped.decodeTime = timing.decodeTime + shift }
        sample.timing = stamped
        let at = own + shift
        let end = at + timing.duration
        clock.sleep(until: end.isNumeric ? end : at)
        return sample
    }
}
