internal import CMediaFFmpeg
import MediaCore

/// Demuxed packets that samples borrow their bytes from, reused once no sample refers to them: how
/// ``ContainerDemuxer`` hands out libavformat's packet buffers without copying them, and without a
/// heap allocation of its own per packet in steady state (`CMBlockBuffer`s over the reader's memory).
///
/// Each ``PacketSlot`` owns one `AVPacket`. The demuxer moves each packet it keeps unchanged into a
/// free slot (``adopt(_:)``, `av_packet_move_ref`: no copy, no allocation); the sample borrows the
/// packet's payload with the slot as its owner, so the buffer (refcounted) stays alive for as long as
/// any sample does, on whichever thread. A slot is free again when the pool holds the only reference
/// to it (``BorrowedSlots``); it is then unreferenced (the buffer freed) before it is reused. The pool
/// is ``FramePool``'s twin for packets.
final class PacketSlotPool {
    private var slots = BorrowedSlots<PacketSlot>()

    /// Moves `packet`'s reference into a free slot, leaving `packet` blank; returns the slot.
    func adopt(_ packet: UnsafeMutablePointer<AVPacket>) throws(MediaError) -> PacketSlot {
        let slot = try slots.free()
        av_packet_move_ref(slot.packet.raw, packet)
        return slot
    }
}

@available(*, unavailable) extension PacketSlotPool: Sendable {}

/// One demuxed `AVPacket` of a ``PacketSlotPool``: the owner samples borrow its payload from.
///
/// `@unchecked Sendable` because a sample that borrows from it may be released on another thread:
/// the packet is written (moved into, unreferenced) only by the pool, and only while the pool holds
/// the only reference to the slot, i.e. while no sample on any thread can read it; samples only read
/// the payload's bytes, through a pointer taken when they were made, which stays valid and unchanged
/// for as long as the packet references its buffer.
final class PacketSlot: BorrowedSlot, @unchecked Sendable {
    let packet: Packet

    init() throws(MediaError) {
        packet = try Packet()
    }

    /// Frees the packet's buffer, once no sample refers to the slot.
    ///
    /// Its own function, never inlined, so that a ThreadSanitizer report names it. A consumer on another
    /// thread that read a sample borrowing from this slot and then let go of it is ordered before this
    /// free by the reference count alone (a releasing decrement, and the acquiring load in
    /// `isKnownUniquelyReferenced`, inside the uninstrumented Swift runtime), as for
    /// `MediaSample.refillInPlace`; unlike a ``FrameSlot``'s frame, whose buffers go back to libavcodec's
    /// pool, a packet's buffer is freed here (`free`, which ThreadSanitizer intercepts). So
    /// `Tests/Sanitizers/tsan.supp` names this function, with this argument.
    @inline(never)
    func unreference() {
        av_packet_unref(packet.raw)
    }

    /// A new reference to the packet's buffer when `bytes` are its whole payload (a sample that borrows
    /// them unchanged), so that a muxer passes the bytes on without copying them; `nil` otherwise, or
    /// when `av_buffer_ref` cannot allocate (the caller copies instead).
    ///
    /// Safe on any thread while a sample borrowing from this slot is alive: the packet is then not
    /// written (see the type's comment), and `av_buffer_ref` only increments the buffer's atomic count.
    /// The buffer then lives until both the slot and the new reference let go of it.
    func sharedBuffer(for bytes: UnsafeRawBufferPointer) -> UnsafeMutablePointer<AVBufferRef>? {
        let p = packet.raw.pointee
        guard let buffer = p.buf, let data = p.data, bytes.baseAddress == UnsafeRawPointer(data),
            bytes.count == Int(p.size)
        else { return nil }
        return av_buffer_ref(buffer)
    }

    /// The packet's payload.
    var payload: UnsafeRawBufferPointer {
        guard let data = packet.raw.pointee.data, packet.raw.pointee.size > 0 else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: data, count: Int(packet.raw.pointee.size))
    }
}
