/// A source that skips the beginning of another: what `start(at:)` returns. ffmpeg's
/// `-ss` after the input, or `AVAssetReader.timeRange`'s start, exact to the frame.
///
/// ```swift
/// var fromTwoSeconds = try reader.start(at: .seconds(2))
/// var window = try reader.start(at: .seconds(2)).prefix(duration: .seconds(3))   // 2 s to 5 s
/// ```
///
/// What it guarantees (`at` is measured from the source's first sample, as ``PrefixSource`` measures):
/// - **Audio**: the ⌈`at` × sample rate⌉ frames that start before `at` are dropped, counted in frames
///   that play (``MediaSample/validFrameCount``). **PCM**: the buffer that straddles `at` is cut
///   there: its first sample starts exactly at the first sample's presentation time plus `at` (when
///   `at` is a whole number of frames; else at the first frame after it), with its bytes, frame count
///   and duration to match. A **compressed packet** (AAC) is kept whole with the frames before `at`
///   marked ``MediaSample/trimAtStart``, and the packet before it is handed out first with all its
///   frames so marked: a decoder needs the previous packet to rebuild the first one's samples (AAC
///   overlaps consecutive packets), and plays none of it. A decoder (`AACDecoder`, `AudioDecoder`)
///   then delivers exactly the frames from `at` on, starting at that time.
/// - **Video**: frames that start (presentation time, measured from the first frame's) before `at`
///   are dropped; frames are never cut. Compressed video dropped this way leaves frames whose
///   reference frames are gone: a decoder needs the keyframe before them. So skip raw video, or skip
///   before an encoder, not between a compressed reader and its decoder.
/// - Times stay the source's own, as `AVAssetReader`'s time range keeps the asset's: nothing is
///   re-stamped.
/// - The wrapped source is never read again once it has ended or thrown.
///
/// Errors: as ``PrefixSource``: the wrapped source's pass through, the wrapper reports the source's
/// ``name``, and a sample that cannot be counted throws ``MediaError/Code/invalidData``; after an
/// error, ``next()`` returns `nil`. An invalid start is refused by `start(at:)`.
///
/// `Sendable` when the wrapped source is; handed to a ``MediaGraph`` (`sending`) like any source.
public struct SkippingSource<Base: MediaSource>: MediaSource, WrappingComponent {
    private var base: Base
    /// Where the samples handed out begin, from the first sample.
    private let start: MediaTime
    /// Still dropping: `start` not reached yet.
    private var isSkipping: Bool
    /// The time of the audio frames dropped.
    private var skipped = MediaTime.zero
    /// The first video frame's presentation time.
    private var origin: MediaTime?
    /// The last compressed audio packet dropped whole, to hand out (all trimmed) before the first kept.
    private var preRoll: MediaSample?
    /// The first sample kept, held while its pre-roll is handed out.
    private var pending: MediaSample?
    /// The wrapped source ended or threw: it is not read again.
    private var isDone = false

    /// `base` from `start` on (checked by the caller: a numeric time of zero or more).
    init(_ base: Base, start: MediaTime) {
        self.base = base
        self.start = start
        isSkipping = start > .zero
    }

    /// The wrapped source's name, so that errors name the real source.
    public var name: String { base.name }

    /// The wrapped source, so that a run's logger reaches it (see ``WrappingComponent``).
    public var wrappedComponent: Any { base }

    /// The wrapped source's next sample from the start on, the first one cut there; `nil` at its end
    /// and after an error.
    public mutating func next() throws -> MediaSample? {
        if let pending {
            self.pending = nil
            return pending
        }
        guard !isDone else { return nil }
        do {
            while let sample = try base.next() {
                guard let kept = try isSkipping ? admit(sample) : sample else { continue }
                guard let preRoll else { return kept }
                self.preRoll = nil
                pending = kept
                return preRoll
            }
            isDone = true
            return nil
        } catch {
            isDone = true
            throw error
        }
    }

    /// The part of `sample` from the start on, or `nil`; notes when skipping is over.
    private mutating func admit(_ sample: MediaSample) throws(MediaError) -> MediaSample? {
        guard case .audio(let audio) = sample.format else { return try admitVideo(sample) }
        let frames = Int64(try sample.playingFrames(of: audio))
        let toSkip = try audio.framesStarting(within: start - skipped)
        guard frames > toSkip else {
            skipped += audio.time(ofFrames: Int(frames))
            if frames == toSkip { isSkipping = false }
            if audio.pcm == nil { preRoll = sample.preRoll }
            return nil
        }
        isSkipping = false
        return toSkip == 0 ? sample : try sample.droppingPlayingFrames(Int(toSkip), of: audio)
    }

    /// Video `sample` if it starts at or after the start; notes when no later frame can start before.
    private mutating func admitVideo(_ sample: MediaSample) throws(MediaError) -> MediaSample? {
        let timing = sample.timing
        guard timing.presentationTime.isNumeric else {
            throw MediaError(
                .invalidData, "a video frame with presentation time \(timing.presentationTime) cannot be placed in time"
            )
        }
        let first = origin ?? timing.presentationTime
        origin = first
        guard timing.presentationTime - first >= start else { return nil }
        // Frames are decoded in order and presented no earlier than decoded, so once one is decoded at
        // or after the start, every later one starts after it.
        if timing.effectiveDecodeTime - first >= start { isSkipping = false }
        return sample
    }
}

extension SkippingSource: Sendable where Base: Sendable {}
