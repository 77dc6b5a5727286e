/// Lets a source hand out one-buffer samples without a heap allocation per sample in steady state.
///
/// A reader that makes a new ``MediaSample`` for every packet pays for a storage object and a payload
/// buffer each time. A recycler keeps the sample it made last; when it is asked for the next one and
/// every consumer has let go of the previous sample (the usual case in a pipeline: the muxer has written
/// it), that sample's storage and payload buffer are reused in place, capacity included. When the
/// previous sample is still held somewhere, a fresh one is made, so value semantics are never broken:
/// a sample a consumer kept is never changed behind its back.
///
/// ```swift
/// var recycler = SampleRecycler()
/// let packet = try recycler.make(format: format, timing: timing, frameCount: 1024) { payload in
///     payload.append(contentsOf: bytes[start..<end])      // payload arrives empty
/// }
/// ```
///
/// This is the one-slot version of a buffer pool: `CMMemoryPool` or GStreamer's `GstBufferPool`.
public struct SampleRecycler: Sendable {
    private var last: MediaSample?

    /// A recycler holding nothing yet.
    public init() {}

    /// A one-buffer sample with the given fields, whose bytes `fill` appends to the empty buffer it is
    /// given. Reuses the previous sample's storage and buffer when nothing else refers to them.
    public mutating func make<E: Error>(
        format: MediaFormat,
        timing: SampleTiming,
        frameCount: Int,
        flags: MediaSample.Flags = [.keyframe],
        trimAtStart: Int = 0,
        trimAtEnd: Int = 0,
        fill: (inout [UInt8]) throws(E) -> Void
    ) throws(E) -> MediaSample {
        try make(
            format: format, timing: timing, frameCount: frameCount, flags: flags, trimAtStart: trimAtStart,
            trimAtEnd: trimAtEnd, planeCount: 1
        ) { (_, bytes) throws(E) in try fill(&bytes) }
    }

    /// A sample of `planeCount` buffers (planar PCM, raw video), whose bytes `fill` appends to each empty
    /// buffer in turn, given the plane's index. Reuses the previous sample's storage and buffers when
    /// nothing else refers to them.
    public mutating func make<E: Error>(
        format: MediaFormat,
        timing: SampleTiming,
        frameCount: Int,
        flags: MediaSample.Flags = [.keyframe],
        trimAtStart: Int = 0,
        trimAtEnd: Int = 0,
        planeCount: Int,
        fill: (Int, inout [UInt8]) throws(E) -> Void
    ) throws(E) -> MediaSample {
        var sample = takeLast(format: format, timing: timing, frameCount: frameCount)
        try sample.refill(
            format: format, timing: timing, frameCount: frameCount, flags: flags,
            trimAtStart: trimAtStart, trimAtEnd: trimAtEnd, planeCount: planeCount, fill: fill)
        last = sample
        return sample
    }

    /// A sample of `planeCount` planes that borrow their bytes, `plane(index)`, from `owner` (zero-copy:
    /// see ``MediaSample/init(format:borrowing:owner:timing:frameCount:flags:trimAtStart:trimAtEnd:)``).
    /// Reuses the previous sample's storage when nothing else refers to it, letting go of the owner it
    /// borrowed from; an owner that is a pool's slot can then check with `isKnownUniquelyReferenced`
    /// that no sample refers to it any more.
    public mutating func make(
        format: MediaFormat,
        timing: SampleTiming,
        frameCount: Int,
        flags: MediaSample.Flags = [.keyframe],
        trimAtStart: Int = 0,
        trimAtEnd: Int = 0,
        planeCount: Int,
        owner: some AnyObject & Sendable,
        borrowing plane: (Int) -> UnsafeRawBufferPointer
    ) -> MediaSample {
        var sample = takeLast(format: format, timing: timing, frameCount: frameCount)
        sample.refill(
            format: format, timing: timing, frameCount: frameCount, flags: flags, trimAtStart: trimAtStart,
            trimAtEnd: trimAtEnd, planeCount: planeCount, owner: owner, borrowing: plane)
        last = sample
        return sample
    }

    /// The sample kept for reuse, no longer kept (so that it is the only reference once its consumers
    /// have let go), or a new one.
    private mutating func takeLast(format: MediaFormat, timing: SampleTiming, frameCount: Int) -> MediaSample {
        guard let previous = last else {
            return MediaSample(format: format, data: [], timing: timing, frameCount: frameCount)
        }
        last = nil
        return previous
    }

    /// Lets go of the sample kept for reuse (its memory is freed once consumers let go too).
    public mutating func removeAll() { last = nil }
}
