/// One unit of media flowing between stages: `CMSampleBuffer` as a Swift value.
///
/// A sample holds its ``format``, its bytes, its ``timing``, the number of audio frames it covers and
/// flags. Compressed media carries one packet (access unit) per sample; PCM carries any number of frames,
/// interleaved in one buffer or planar with one buffer per channel.
///
/// `MediaSample` has value semantics over copy-on-write storage: copying a sample is cheap (one reference
/// count), and mutating a copy never changes the original:
///
/// ```swift
/// var copy = sample
/// copy.trimAtStart = 1024       // copies the storage once, here
/// assert(sample.trimAtStart == 0)
/// ```
///
/// A sample that is uniquely referenced is mutated in place, without a copy.
public struct MediaSample: Sendable {
    @usableFromInline var storage: Storage

    /// A sample of one buffer: a compressed packet or interleaved PCM.
    ///
    /// - Parameters:
    ///   - format: what the bytes are.
    ///   - data: the bytes.
    ///   - timing: presentation and decode time and duration.
    ///   - frameCount: audio frames the sample covers (for a packet, the format's frames per packet).
    ///   - flags: keyframe, discontinuity.
    ///   - trimAtStart: frames at the start to drop on playback (encoder priming).
    ///   - trimAtEnd: frames at the end to drop on playback (padding of the last packet).
    public init(
        format: MediaFormat,
        data: [UInt8],
        timing: SampleTiming,
        frameCount: Int,
        flags: Flags = [.keyframe],
        trimAtStart: Int = 0,
        trimAtEnd: Int = 0
    ) {
        storage = Storage(
            format: format, bytes: SampleBytes([data]), timing: timing, frameCount: frameCount,
            flags: flags, trimAtStart: trimAtStart, trimAtEnd: trimAtEnd
        )
    }

    /// A sample of several buffers, one per plane (planar PCM: one per channel).
    public init(
        format: MediaFormat,
        planes: [[UInt8]],
        timing: SampleTiming,
        frameCount: Int,
        flags: Flags = [.keyframe],
        trimAtStart: Int = 0,
        trimAtEnd: Int = 0
    ) {
        storage = Storage(
            format: format, bytes: SampleBytes(planes), timing: timing, frameCount: frameCount,
            flags: flags, trimAtStart: trimAtStart, trimAtEnd: trimAtEnd
        )
    }

    /// A sample whose bytes are not copied: each plane borrows its bytes from memory that `owner` keeps
    /// alive (a decoder's frame, a pool's slot, a slice of a reader's buffer): `CMBlockBuffer` over a
    /// custom block source, or a `GstBuffer` wrapping foreign memory.
    ///
    /// The sample keeps `owner` until every copy of it has let go (the last one may be on another
    /// thread), and never writes the borrowed bytes: a mutation (``withUnsafeMutableBytes(plane:_:)``,
    /// setting ``planes``) first copies them into memory of the sample's own. So the bytes must stay
    /// unchanged for as long as `owner` lives; a type whose memory is reused (a pool) reuses it only
    /// once nothing refers to the owner any more (`isKnownUniquelyReferenced`).
    ///
    /// ```swift
    /// let sample = MediaSample(
    ///     format: format, borrowing: [UnsafeRawBufferPointer(start: base, count: size)], owner: slot,
    ///     timing: timing, frameCount: 1)
    /// ```
    public init(
        format: MediaFormat,
        borrowing planes: [UnsafeRawBufferPointer],
        owner: some AnyObject & Sendable,
        timing: SampleTiming,
        frameCount: Int,
        flags: Flags = [.keyframe],
        trimAtStart: Int = 0,
        trimAtEnd: Int = 0
    ) {
        storage = Storage(
            format: format, bytes: SampleBytes(borrowing: planes, owner: owner), timing: timing,
            frameCount: frameCount, flags: flags, trimAtStart: trimAtStart, trimAtEnd: trimAtEnd
        )
    }

    /// What the bytes are.
    public var format: MediaFormat {
        get { storage.format }
        set { makeUnique(); storage.format = newValue }
    }

    /// Presentation and decode time and duration.
    public var timing: SampleTiming {
        get { storage.timing }
        set { makeUnique(); storage.timing = newValue }
    }

    /// The audio frames this sample covers (for a compressed packet, its decoded frame count).
    public var frameCount: Int {
        get { storage.frameCount }
        set { makeUnique(); storage.frameCount = newValue }
    }

    /// Keyframe and discontinuity flags.
    public var flags: Flags {
        get { storage.flags }
        set { makeUnique(); storage.flags = newValue }
    }

    /// Frames at the start of this sample that playback drops: encoder priming
    /// (`kCMSampleBufferAttachmentKey_TrimDurationAtStart`).
    public var trimAtStart: Int {
        get { storage.trimAtStart }
        set { makeUnique(); storage.trimAtStart = newValue }
    }

    /// Frames at the end of this sample that playback drops: the padding of the last packet
    /// (`kCMSampleBufferAttachmentKey_TrimDurationAtEnd`).
    public var trimAtEnd: Int {
        get { storage.trimAtEnd }
        set { makeUnique(); storage.trimAtEnd = newValue }
    }

    /// The frames that remain after trimming.
    public var validFrameCount: Int { max(0, frameCount - trimAtStart - trimAtEnd) }

    /// All buffers: one for packets and interleaved PCM, one per channel for planar PCM.
    ///
    /// Borrowed bytes (``init(format:borrowing:owner:timing:frameCount:flags:trimAtStart:trimAtEnd:)``)
    /// are copied into the arrays returned: read them with ``withUnsafeBytes(plane:_:)`` to avoid that.
    public var planes: [[UInt8]] {
        get { storage.bytes.planes }
        set { makeUnique(); storage.bytes.replace(with: newValue) }
    }

    /// The first (for packets and interleaved PCM, the only) buffer; a copy when it is borrowed (see
    /// ``planes``).
    public var data: [UInt8] {
        get { storage.bytes.firstPlane }
        set {
            makeUnique()
            storage.bytes.replace(0, with: newValue)
        }
    }

    /// The total number of bytes in all planes.
    public var byteCount: Int { (0..<storage.bytes.planeCount).reduce(0) { $0 + storage.bytes.count($1) } }

    /// The number of bytes in plane `index` (0 when there is no such plane), without copying them.
    public func byteCount(plane index: Int) -> Int {
        (0..<storage.bytes.planeCount).contains(index) ? storage.bytes.count(index) : 0
    }

    /// Whether any plane borrows its bytes from an owner object instead of holding them (zero-copy;
    /// see ``init(format:borrowing:owner:timing:frameCount:flags:trimAtStart:trimAtEnd:)``).
    public var borrowsMemory: Bool { storage.bytes.isBorrowed }

    /// The owner object the planes borrow their bytes from (`nil` when the sample owns them), for this
    /// package's stages only: a muxer that recognises a demuxer's packet slot among them hands its
    /// buffer back to FFmpeg by reference instead of copying the bytes. Reading the owner changes
    /// nothing; the planes still borrow from it for as long as the sample lives.
    package var memoryOwner: (any AnyObject & Sendable)? { storage.bytes.lender }

    /// Calls `body` with the bytes of plane `index` (an empty buffer if there is no such plane), owned or
    /// borrowed, without copying them.
    public func withUnsafeBytes<R, E: Error>(
        plane index: Int = 0, _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        guard (0..<storage.bytes.planeCount).contains(index) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try storage.bytes.withUnsafeBytes(index, body)
    }

    /// Calls `body` with the mutable bytes of plane `index`, copying the storage first if it is shared,
    /// and the plane's bytes into the sample's own memory if they are borrowed.
    public mutating func withUnsafeMutableBytes<R>(
        plane index: Int = 0,
        _ body: (UnsafeMutableRawBufferPointer) throws -> R
    ) rethrows -> R {
        makeUnique()
        guard (0..<storage.bytes.planeCount).contains(index) else {
            return try body(UnsafeMutableRawBufferPointer(start: nil, count: 0))
        }
        return try storage.bytes.withUnsafeMutableBytes(index, body)
    }

    /// How many buffers the sample holds: 1 for packets and interleaved PCM, the plane count otherwise.
    public var planeCount: Int { storage.bytes.planeCount }

    /// Whether two samples share one storage (for tests of copy-on-write).
    public func sharesStorage(with other: MediaSample) -> Bool { storage === other.storage }

    /// Replaces every field, and the bytes of each of `planeCount` buffers with what `fill` appends to
    /// it (emptied first; called with each plane's index in order). When this value holds the only
    /// reference to its storage and buffers, they are reused in place (each buffer keeps its
    /// capacity); otherwise fresh ones are made. See ``SampleRecycler``.
    mutating func refill<E: Error>(
        format: MediaFormat, timing: SampleTiming, frameCount: Int, flags: Flags,
        trimAtStart: Int, trimAtEnd: Int, planeCount: Int, fill: (Int, inout [UInt8]) throws(E) -> Void
    ) throws(E) {
        try refill(
            format: format, timing: timing, frameCount: frameCount, flags: flags, trimAtStart: trimAtStart,
            trimAtEnd: trimAtEnd
        ) { (bytes) throws(E) in try bytes.refill(planeCount: planeCount, fill) }
    }

    /// ``refill(format:timing:frameCount:flags:trimAtStart:trimAtEnd:planeCount:fill:)`` with borrowed
    /// bytes: plane `index` borrows `plane(index)` from `owner`. Reuses the storage in place when this
    /// value holds the only reference to it (the owner it borrowed from before is let go).
    mutating func refill(
        format: MediaFormat, timing: SampleTiming, frameCount: Int, flags: Flags,
        trimAtStart: Int, trimAtEnd: Int, planeCount: Int, owner: some AnyObject & Sendable,
        borrowing plane: (Int) -> UnsafeRawBufferPointer
    ) {
        refill(
            format: format, timing: timing, frameCount: frameCount, flags: flags, trimAtStart: trimAtStart,
            trimAtEnd: trimAtEnd
        ) { bytes in bytes.refill(planeCount: planeCount, owner: owner, borrowing: plane) }
    }

    /// Replaces every field and the bytes with what `set` makes of them, in place when this value holds
    /// the only reference to its storage (`set` is then given the old bytes, to reuse their capacity),
    /// else in fresh storage.
    private mutating func refill<E: Error>(
        format: MediaFormat, timing: SampleTiming, frameCount: Int, flags: Flags,
        trimAtStart: Int, trimAtEnd: Int, set: (inout SampleBytes) throws(E) -> Void
    ) throws(E) {
        if isKnownUniquelyReferenced(&storage) {
            try refillInPlace(
                format: format, timing: timing, frameCount: frameCount, flags: flags,
                trimAtStart: trimAtStart, trimAtEnd: trimAtEnd, set: set)
        } else {
            var bytes = SampleBytes([])
            try set(&bytes)
            storage = Storage(
                format: format, bytes: bytes, timing: timing, frameCount: frameCount,
                flags: flags, trimAtStart: trimAtStart, trimAtEnd: trimAtEnd)
        }
    }

    /// ``refill(format:timing:frameCount:flags:trimAtStart:trimAtEnd:planeCount:fill:)`` when this value
    /// holds the only reference to its storage: rewrites the storage and its buffers in place.
    ///
    /// Its own function, never inlined, so that `Tests/Sanitizers/tsan.supp` can name it. A consumer on
    /// another thread that read this sample and then let go of it is ordered before these writes by the
    /// reference count alone: its release is a releasing decrement and `isKnownUniquelyReferenced` an
    /// acquiring load, both inside the Swift runtime, which ThreadSanitizer does not instrument (it is the
    /// hand-off every copy-on-write type, `Array` included, relies on). ThreadSanitizer therefore reports
    /// the consumer's reads and these writes as a race that cannot happen: a consumer still holding the
    /// sample makes the count 2, and then the `else` branch makes fresh storage.
    @inline(never)
    private mutating func refillInPlace<E: Error>(
        format: MediaFormat, timing: SampleTiming, frameCount: Int, flags: Flags,
        trimAtStart: Int, trimAtEnd: Int, set: (inout SampleBytes) throws(E) -> Void
    ) throws(E) {
        storage.format = format
        storage.timing = timing
        storage.frameCount = frameCount
        storage.flags = flags
        storage.trimAtStart = trimAtStart
        storage.trimAtEnd = trimAtEnd
        try set(&storage.bytes)
    }

    @inlinable mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { makeUniqueCopy() }
    }

    @inline(never) @usableFromInline mutating func makeUniqueCopy() {
        storage = storage.copy()
    }
}

extension MediaSample {
    /// Flags a sample carries.
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt32
        /// Flags from raw bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// A sync sample: decoding can start here (every audio packet, an IDR frame).
        public static let keyframe = Flags(rawValue: 1 << 0)
        /// Something before this sample is missing or was skipped (after a resynchronisation).
        public static let discontinuity = Flags(rawValue: 1 << 1)
    }

    // The storage is mutated only through `makeUnique()`, i.e. when this struct holds the only
    // reference. A storage that two values (and so possibly two tasks) can see is never mutated,
    // only copied, so sharing it across concurrency domains is race-free. This is the argument
    // swift-nio makes for `ByteBuffer: @unchecked Sendable`. Borrowed planes hold only `Sendable`
    // owners and are never written through (a mutation copies them first), so they add no race.
    @usableFromInline final class Storage: @unchecked Sendable {
        var format: MediaFormat
        var bytes: SampleBytes
        var timing: SampleTiming
        var frameCount: Int
        var flags: Flags
        var trimAtStart: Int
        var trimAtEnd: Int

        init(
            format: MediaFormat, bytes: SampleBytes, timing: SampleTiming, frameCount: Int,
            flags: Flags, trimAtStart: Int, trimAtEnd: Int
        ) {
            self.format = format
            self.bytes = bytes
            self.timing = timing
            self.frameCount = frameCount
            self.flags = flags
            self.trimAtStart = trimAtStart
            self.trimAtEnd = trimAtEnd
        }

        @usableFromInline func copy() -> Storage {
            Storage(
                format: format, bytes: bytes, timing: timing, frameCount: frameCount,
                flags: flags, trimAtStart: trimAtStart, trimAtEnd: trimAtEnd
            )
        }
    }
}

extension MediaSample: Hashable {
    /// Samples are equal when their format, bytes, timing, frame count, flags and trims are equal.
    public static func == (lhs: MediaSample, rhs: MediaSample) -> Bool {
        if lhs.storage === rhs.storage { return true }
        let a = lhs.storage
        let b = rhs.storage
        return a.format == b.format && a.timing == b.timing && a.frameCount == b.frameCount && a.flags == b.flags
            && a.trimAtStart == b.trimAtStart && a.trimAtEnd == b.trimAtEnd && a.bytes == b.bytes
    }

    /// Hashes the content.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.format)
        hasher.combine(storage.timing)
        hasher.combine(storage.frameCount)
        hasher.combine(storage.bytes)
    }
}

extension MediaSample: CustomStringConvertible {
    /// E.g. `MediaSample(aac 48000 Hz stereo, 371 bytes, pts 1024/48000, 1024 frames, trim 0/0)`.
    public var description: String {
        "MediaSample(\(format), \(count: byteCount, "byte"), pts \(timing.presentationTime), \(count: frameCount, "frame"), trim \(trimAtStart)/\(trimAtEnd))"
    }
}
