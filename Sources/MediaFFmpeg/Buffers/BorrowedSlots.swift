import MediaCore

/// An FFmpeg object that samples borrow bytes from (``FrameSlot``, ``PacketSlot``), kept in a
/// ``BorrowedSlots`` list and reused once no sample refers to it.
protocol BorrowedSlot: AnyObject {
    /// An empty slot.
    init() throws(MediaError)
    /// Lets go of what the slot holds (its buffers), once no sample refers to it.
    func unreference()
}

/// The slots of a pool whose samples borrow from them: the one place that decides when a slot is free.
///
/// A slot is free when the list holds the only reference to it (`isKnownUniquelyReferenced`): every
/// sample that borrowed from it, on whichever thread, has let go. Taking a free slot unreferences every
/// free slot, so that what nobody reads any more gives its buffers back; when no slot is free a new
/// one is made, so the list grows to the most slots borrowed from at once and allocates nothing after.
struct BorrowedSlots<Slot: BorrowedSlot> {
    private var slots: [Slot] = []

    /// A slot no sample refers to, unreferenced; a new one when every slot is borrowed from.
    mutating func free() throws(MediaError) -> Slot {
        var found: Int?
        for index in slots.indices where isKnownUniquelyReferenced(&slots[index]) {
            slots[index].unreference()
            if found == nil { found = index }
        }
        if let found { return slots[found] }
        let slot = try Slot()
        slots.append(slot)
        return slot
    }
}
