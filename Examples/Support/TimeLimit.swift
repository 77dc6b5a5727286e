public import MediaCore

/// Ends another source at a media time (ffmpeg's `-t`): samples that start at or after `limit` (measured
/// from the first sample's presentation time) are not handed out, and an interleaved PCM sample that
/// straddles it is cut to the frames before it.
public struct TimeLimit: MediaSource, WrappingComponent {
    private var base: any MediaSource
    private let limit: MediaTime
    private var start: MediaTime?
    private var isDone = false

    /// `base`, ending `limit` after its first sample.
    public init(_ base: any MediaSource, limit: MediaTime) {
        self.base = base
        self.limit = limit
    }

    /// The wrapped source's name.
    public var name: String { base.name }

    /// The wrapped source, so that a run's logger reaches it (see ``WrappingComponent``).
    public var wrappedComponent: Any { base }

    /// The next sample before the limit, or `nil`.
    public mutating func next() throws -> MediaSample? {
        guard !isDone, var sample = try base.next() else { return nil }
        let pts = sample.timing.presentationTime
        guard pts.isNumeric else { return sample }
        let first = start ?? pts
        start = first
        let offset = pts - first
        guard offset < limit else {
            isDone = true
            return nil
        }
        let end = offset + sample.timing.duration
        if end > limit, let audio = sample.format.audio, let pcm = audio.pcm, pcm.isInterleaved, sample.frameCount > 0 {
            let keep = Int((limit - offset).converted(to: Int32(audio.sampleRate), rounding: .down).value)
            sample.data = Array(sample.data.prefix(keep * audio.bytesPerFrame))
            sample.frameCount = keep
            sample.timing.duration = MediaTime(value: Int64(keep), timescale: Int32(audio.sampleRate))
            isDone = true
        }
        return sample
    }
}
