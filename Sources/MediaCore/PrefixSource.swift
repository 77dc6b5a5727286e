/// A source that ends after exactly so much of another: what `prefix(duration:)` and
/// `prefix(frames:)` return. "Record exactly 5 s" on a live capture, ffmpeg's `-t` on a
/// file, exact to the frame.
///
/// ```swift
/// var fiveSeconds = try capture.prefix(duration: .seconds(5))   // 240 000 frames at 48 kHz
/// var firstThousand = try reader.prefix(frames: 1000)
/// ```
///
/// What it guarantees:
/// - **Audio** is counted in the frames that play (``MediaSample/validFrameCount``: frame count less
///   the trims), from the source's first sample on. `prefix(frames: n)` hands out exactly `n` of them;
///   `prefix(duration: d)` the ⌈`d` × sample rate⌉ frames that start within `d` of where the source's
///   audio begins (its first sample's presentation time plus its ``MediaSample/trimAtStart``): 220 500
///   frames for 5 s at 44.1 kHz, whatever the buffer sizes. Time is counted in delivered frames, not
///   read from timestamps, so a gap in a capture's timeline (an overrun) does not shorten it.
/// - The last buffer is cut there. **PCM** (interleaved or planar) keeps the bytes of its first whole
///   frames, with its frame count and duration to match (the presentation time stays). A **compressed
///   packet** (AAC) cannot be cut: it is kept whole, with frame count and duration as they were, and
///   its ``MediaSample/trimAtEnd`` set to the frames past the limit, so that a decoder (`AACDecoder`,
///   `AudioDecoder`) or a container writer (CAF's packet table, MP4's edit list) delivers exactly the
///   limit.
/// - **Video** frames are never cut: a frame is kept when it starts (presentation time, measured from
///   the first frame's) before the end, and the source ends at the first frame, in the order it
///   delivers them, that starts at or after it. `prefix(frames: n)` counts pictures: the first `n`.
/// - Times stay the source's own: a live source on a ``MediaClock`` keeps its clock's times, which
///   start at the clock's anchor, not at zero.
/// - The wrapped source is never read again once the limit is reached, once it has ended, or once it
///   has thrown: a live capture is not read one buffer too far. Where the end can be known from what
///   was handed out (audio always; video whose frames are decoded when presented, from the last
///   frame's duration), the limit is reached without reading another sample. A zero limit reads
///   nothing.
/// - A source that ends before the limit is handed out whole.
///
/// Errors: the wrapped source's errors pass through unchanged, and the wrapper reports the source's
/// ``name``, so a driver stamps them with the real source's name. A sample that cannot be counted
/// throws ``MediaError/Code/invalidData``: PCM whose planes do not hold exactly its frame count, trims
/// that do not fit, a compressed packet without a frame count, a video frame without a presentation
/// time (for a duration), a sample rate that cannot time frames. After an error, ``next()`` returns
/// `nil`. An invalid limit is refused by the methods that make this source.
///
/// A source of one medium, as every source here is: audio and video samples mixed in one source
/// would be counted together.
///
/// `Sendable` when the wrapped source is; handed to a ``MediaGraph`` (`sending`) like any source.
public struct PrefixSource<Base: MediaSource>: MediaSource, WrappingComponent {
    /// How much of the wrapped source is handed out.
    enum Limit: Sendable, Hashable {
        /// Audio frames that play, or video pictures.
        case frames(Int64)
        /// Time from the first sample.
        case duration(MediaTime)
    }

    private var base: Base
    private let limit: Limit
    /// Audio frames (that play) or pictures handed out, for a limit in frames.
    private var taken: Int64 = 0
    /// The time of the audio frames handed out, for a limit in time.
    private var elapsed = MediaTime.zero
    /// The first video frame's presentation time, for a limit in time.
    private var origin: MediaTime?
    /// The limit is reached, or the wrapped source ended or threw: it is not read again.
    private var isDone: Bool

    /// `base`, ending at `limit` (checked by the caller: zero or more, a numeric time).
    init(_ base: Base, limit: Limit) {
        self.base = base
        self.limit = limit
        switch limit {
        case .frames(let count): isDone = count <= 0
        case .duration(let duration): isDone = duration <= .zero
        }
    }

    /// The wrapped source's name, so that errors name the real source.
    public var name: String { base.name }

    /// The wrapped source, so that a run's logger reaches it (see ``WrappingComponent``).
    public var wrappedComponent: Any { base }

    /// The wrapped source's next sample, the last one cut at the limit; `nil` once the limit is
    /// reached (without reading the wrapped source again), at its end, and after an error.
    public mutating func next() throws -> MediaSample? {
        guard !isDone else { return nil }
        do {
            guard let sample = try base.next() else {
                isDone = true
                return nil
            }
            switch sample.format {
            case .audio(let audio): return try admit(sample, audio)
            case .video: return try admitVideo(sample)
            }
        } catch {
            isDone = true
            throw error
        }
    }

    /// The part of audio `sample` within the limit; notes when the limit is reached.
    private mutating func admit(_ sample: MediaSample, _ audio: AudioFormat) throws(MediaError) -> MediaSample? {
        let frames = try sample.playingFrames(of: audio)
        let allowed: Int64
        switch limit {
        case .frames(let count): allowed = count - taken
        case .duration(let duration): allowed = try audio.framesStarting(within: duration - elapsed)
        }
        guard Int64(frames) >= allowed else {
            taken += Int64(frames)
            elapsed += audio.time(ofFrames: frames)
            return sample
        }
        isDone = true
        guard allowed > 0 else { return nil }
        return Int64(frames) == allowed ? sample : try sample.keepingPlayingFrames(Int(allowed), of: audio)
    }

    /// Video `sample` if it starts within the limit; notes when the limit is reached.
    private mutating func admitVideo(_ sample: MediaSample) throws(MediaError) -> MediaSample? {
        switch limit {
        case .frames(let count):
            taken += 1
            if taken >= count { isDone = true }
            return sample
        case .duration(let duration):
            let timing = sample.timing
            guard timing.presentationTime.isNumeric else {
                throw MediaError(
                    .invalidData,
                    "a video frame with presentation time \(timing.presentationTime) cannot be placed within a duration"
                )
            }
            let first = origin ?? timing.presentationTime
            origin = first
            let start = timing.presentationTime - first
            guard start < duration else {
                isDone = true
                return nil
            }
            // Decoded when presented (no reordering), so no later frame starts before this one ends:
            // when it ends at or after the limit, end now instead of waiting for one more frame.
            if timing.effectiveDecodeTime == timing.presentationTime, timing.duration.isNumeric,
                start + timing.duration >= duration
            {
                isDone = true
            }
            return sample
        }
    }
}

extension PrefixSource: Sendable where Base: Sendable {}
