import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The hand-over between PulseAudio's mainloop thread (the producer, in the read callback) and the
/// thread calling ``AudioCaptureSource/next()`` (the consumer): a single-producer single-consumer
/// ring of preallocated slots, each holding up to one fragment of interleaved frames and where they
/// sit on the stream's timeline.
///
/// **Cost.** All memory is allocated once, when the stream opens: `slotCount × slotFrames` frames
/// plus one small record per slot. The producer does one `memcpy` per slot it fills and two atomic
/// operations (an acquire load of the consumer's index, a release store of its own); it never
/// allocates, never locks and never waits. When every slot is full it drops what arrives, counts the
/// frames and moves its timeline on by them, so the next slot it fills is flagged as a discontinuity
/// whose time is still exact. The consumer copies a slot's bytes into the sample it returns (that
/// allocation is on its side) and frees the slot with a release store.
///
/// Slots are published as soon as they are written (no waiting for a slot to fill), so a chunk
/// smaller than a fragment still takes a whole slot: the ring holds at least `slotCount` chunks.
final class CaptureRing: @unchecked Sendable {
    // Sendable by the single-producer single-consumer protocol: slot `i` (bytes and record) is written
    // only by the producer while `i` lies in [tail, tail + slotCount) and beyond `head`, then published
    // by the release store of `head`; it is read only by the consumer after an acquire load of `head`
    // shows it, and handed back by the release store of `tail`. The producer-only fields are touched
    // only on the mainloop thread (callbacks are serialised by its lock). One `AudioCaptureSource` is
    // the only consumer: its `next()` runs under a mutex.

    /// Where a slot's frames sit and what came before them.
    struct Slot {
        /// Frames in the slot.
        var frames = 0
        /// The timeline position (in frames at the stream's rate) of the first frame.
        var startFrame: Int64 = 0
        /// Frames dropped just before this slot because the ring was full.
        var lostFrames: Int64 = 0
        /// Frames of holes in the server's stream just before this slot.
        var holeFrames: Int64 = 0
    }

    let slotCount: Int
    let slotFrames: Int
    let frameBytes: Int
    private let bytes: UnsafeMutableRawPointer
    private let slots: UnsafeMutablePointer<Slot>
    /// Slots published by the producer (a running count; slot index = count % slotCount).
    private let head = Atomic<Int>(0)
    /// Slots given back by the consumer.
    private let tail = Atomic<Int>(0)
    /// All frames dropped because the ring was full, for statistics (relaxed: a counter).
    let lostFrames = Atomic<Int64>(0)
    /// All frames of holes, for statistics.
    let holeFrames = Atomic<Int64>(0)

    // Producer-only state.
    /// The timeline position of the next frame to arrive, once ``start(at:)`` has set it.
    private var nextFrame: Int64 = 0
    private(set) var isStarted = false
    private var pendingLost: Int64 = 0
    private var pendingHole: Int64 = 0

    /// A ring of `slotCount` slots of `slotFrames` frames of `frameBytes` bytes each.
    init(slotCount: Int, slotFrames: Int, frameBytes: Int) {
        self.slotCount = max(2, slotCount)
        self.slotFrames = max(1, slotFrames)
        self.frameBytes = max(1, frameBytes)
        bytes = .allocate(byteCount: self.slotCount * self.slotFrames * self.frameBytes, alignment: 16)
        slots = .allocate(capacity: self.slotCount)
        slots.initialize(repeating: Slot(), count: self.slotCount)
    }

    deinit {
        bytes.deallocate()
        slots.deinitialize(count: slotCount)
        slots.deallocate()
    }

    // MARK: Producer (mainloop thread)

    /// Sets the timeline position of the first frame (from its capture time).
    func start(at frame: Int64) {
        nextFrame = frame
        isStarted = true
    }

    /// Copies `frames` frames from `data` into free slots; drops (and counts) what does not fit.
    func write(_ data: UnsafeRawPointer, frames: Int) {
        var done = 0
        while done < frames {
            let published = head.load(ordering: .relaxed)
            guard published - tail.load(ordering: .acquiring) < slotCount else {
                drop(frames - done, asHole: false)
                return
            }
            let count = min(slotFrames, frames - done)
            let index = published % slotCount
            (bytes + index * slotFrames * frameBytes).copyMemory(
                from: data + done * frameBytes, byteCount: count * frameBytes)
            slots[index] = Slot(frames: count, startFrame: nextFrame, lostFrames: pendingLost, holeFrames: pendingHole)
            pendingLost = 0
            pendingHole = 0
            nextFrame += Int64(count)
            done += count
            head.store(published + 1, ordering: .releasing)
        }
    }

    /// Moves the timeline on by `frames` that will never arrive: dropped for lack of room, or a hole
    /// in the server's stream. The next slot is flagged.
    func drop(_ frames: Int, asHole: Bool) {
        guard frames > 0 else { return }
        if asHole {
            pendingHole += Int64(frames)
            holeFrames.add(Int64(frames), ordering: .relaxed)
        } else {
            pendingLost += Int64(frames)
            lostFrames.add(Int64(frames), ordering: .relaxed)
        }
        nextFrame += Int64(frames)
    }

    // MARK: Consumer (the thread in `next()`)

    /// The oldest published slot's record and bytes, freeing the slot; `nil` when none is waiting.
    func read() -> (slot: Slot, bytes: [UInt8])? {
        let taken = tail.load(ordering: .relaxed)
        guard taken < head.load(ordering: .acquiring) else { return nil }
        let index = taken % slotCount
        let slot = slots[index]
        let copy = [UInt8](
            UnsafeRawBufferPointer(start: bytes + index * slotFrames * frameBytes, count: slot.frames * frameBytes))
        tail.store(taken + 1, ordering: .releasing)
        return (slot, copy)
    }
}
