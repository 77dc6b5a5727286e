#if canImport(Glibc)
    import Glibc
#endif

/// Starts several live sources together: what `AVCaptureSession` does for a camera and a microphone, or
/// a GStreamer pipeline going to PLAYING at one base time. A camera and a microphone opened one after
/// the other, on one ``MediaClock``, deliver their first samples at different times (a PulseAudio
/// monitor can take a second); a recording that started each track at its own first sample would begin
/// with one track alone, and a branch held up waiting for the other would lose frames.
///
/// ```swift
/// let start = SynchronizedStart(sources: 2)
/// let video = graph.addBranch(source: start.source(camera, index: 0), stages: [h264])
/// let audio = graph.addBranch(source: start.source(microphone, index: 1), stages: [aac])
/// ```
///
/// The start is the latest of the sources' first presentation times. Until every source has read its
/// first sample (or ended), at most `timeout`, each wrapped source keeps reading its own and holds the
/// last `window` of it (a live device must be read on time, or it drops or bunches up what it captures),
/// so that what it hands out first is what it captured nearest the start, not what it captured once the
/// wait was over. From the start on each source hands out what plays from it: a PCM buffer that
/// straddles it is cut there (its first frame the first one at or after the start, its time moved on to
/// match), earlier buffers dropped; a video frame whose presentation time is before it is dropped unless
/// it is on screen at the start and nearer to it than the next frame (it began less than half its
/// duration before); any other sample before it is dropped. So the audio begins at the start, and the
/// picture within half a frame of it, before or after (a camera's or a screen grabber's frame times
/// wander by a few milliseconds under load: with "the first frame at or after the start" alone, the
/// picture once began 39 ms after the sound at 30 fps). Times are not re-stamped.
///
/// A source that has given no sample when `timeout` runs out makes the waiting ones throw
/// ``MediaError/Code/stalled`` naming it; a source that ends before its first sample is left out of the
/// start. Errors of the wrapped sources pass through.
public final class SynchronizedStart: Sendable {
    /// How many sources start together.
    public let count: Int
    /// How long a source waits for the others' first samples.
    public let timeout: Duration
    /// How much of its latest samples a source holds while it waits.
    public let window: MediaTime
    /// Per source: `nil` before its first sample, then its first presentation time, or `.invalid` once it
    /// ended without one.
    private let firsts: Locked<[MediaTime?]>

    /// A start for `count` sources (each wrapped once with ``source(_:index:)``), each waiting at most
    /// `timeout` for the others while holding its last `window` of samples (1 s by default: more than a
    /// PulseAudio capture's latency, the most a first sample's time lies before its arrival).
    public init(sources count: Int, timeout: Duration = .seconds(10), window: Duration = .seconds(1)) {
        self.count = max(1, count)
        self.timeout = timeout
        self.window = MediaTime(window)
        firsts = Locked(Array(repeating: nil, count: max(1, count)))
    }

    /// When the sources start: the latest first sample's presentation time, once every source has read
    /// its first sample (or ended); `nil` before.
    public var startTime: MediaTime? { firsts.withLock { Self.start(of: $0) } }

    /// `base` as source `index` (0 to `count` - 1) of this start.
    public func source(_ base: any MediaSource, index: Int) -> Source {
        Source(base: base, start: self, index: min(max(0, index), count - 1))
    }

    /// The start, once every entry is known.
    private static func start(of firsts: [MediaTime?]) -> MediaTime? {
        guard !firsts.contains(where: { $0 == nil }) else { return nil }
        return firsts.compactMap { $0 }.filter(\.isNumeric).max() ?? .zero
    }

    /// Records source `index`'s first time (`.invalid`: it ended first) and returns the start if every
    /// source's is known.
    fileprivate func record(_ time: MediaTime, index: Int) -> MediaTime? {
        firsts.withLock {
            if $0[index] == nil { $0[index] = time }
            return Self.start(of: $0)
        }
    }

    /// ``MediaError/Code/stalled`` naming the sources that have given no sample.
    fileprivate func stalledError() -> MediaError {
        let missing = firsts.withLock { firsts in firsts.indices.filter { firsts[$0] == nil } }
        return MediaError(
            .stalled,
            "source \(missing.map(String.init).joined(separator: ", ")) of a synchronized start gave no sample "
                + "within \(MediaTime(timeout))")
    }

    /// One source of a ``SynchronizedStart``.
    public struct Source: MediaSource {
        private var base: any MediaSource
        private let start: SynchronizedStart
        private let index: Int
        private var startTime: MediaTime?
        /// What was read while waiting for the start (the last ``SynchronizedStart/window`` of it), then
        /// what of it plays from the start, handed out first.
        private var held: [MediaSample] = []
        private var ended = false

        fileprivate init(base: any MediaSource, start: SynchronizedStart, index: Int) {
            (self.base, self.start, self.index) = (base, start, index)
        }

        /// The wrapped source's name.
        public var name: String { base.name }

        /// The next sample that plays from the start (the first call reads until the start is known).
        public mutating func next() throws -> MediaSample? {
            if startTime == nil { try waitForStart() }
            guard let time = startTime else { return nil }
            while !held.isEmpty {
                if let kept = try Self.fromStart(held.removeFirst(), time) { return kept }
            }
            while !ended, let sample = try base.next() {
                if let kept = try Self.fromStart(sample, time) { return kept }
            }
            ended = true
            return nil
        }

        /// Reads and holds samples until every source's first time is known; then sets ``startTime``.
        private mutating func waitForStart() throws {
            let deadline = MediaClock.hostTime + MediaTime(start.timeout)
            var reported = false
            while true {
                if !ended, let sample = try base.next() {
                    let time = sample.timing.presentationTime
                    held.append(sample)
                    if let latest = held.last?.timing.presentationTime, latest.isNumeric {
                        let oldest = latest - start.window
                        held.removeAll { $0.timing.presentationTime.isNumeric && $0.timing.presentationTime < oldest }
                    }
                    if !reported {
                        reported = true
                        if let known = start.record(time, index: index) {
                            startTime = known
                            return
                        }
                    }
                } else {
                    ended = true
                    if !reported {
                        reported = true
                        _ = start.record(.invalid, index: index)
                    }
                    usleep(1_000)
                }
                if let known = start.startTime {
                    startTime = known
                    return
                }
                guard MediaClock.hostTime < deadline else { throw start.stalledError() }
            }
        }

        /// What of `sample` plays from `start`: all of it, a PCM buffer's frames from the start on, or
        /// nothing.
        private static func fromStart(_ sample: MediaSample, _ start: MediaTime) throws(MediaError) -> MediaSample? {
            let time = sample.timing.presentationTime
            guard time.isNumeric, time < start else { return sample }
            guard case .audio(let audio) = sample.format, audio.pcm != nil else {
                // A frame on screen at the start, nearer to it than the next frame: the picture's start.
                let duration = sample.timing.duration
                guard case .video = sample.format, duration.isNumeric, start - time < duration - (start - time) else {
                    return nil
                }
                return sample
            }
            let before = try audio.framesStarting(within: start - time)
            let playing = try sample.playingFrames(of: audio)
            guard before < Int64(playing) else { return nil }
            return try sample.droppingPlayingFrames(Int(before), of: audio)
        }
    }
}
