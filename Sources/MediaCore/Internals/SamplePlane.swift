import Glibc

/// One buffer of a ``MediaSample``: a Swift array the sample owns, or bytes it borrows from an owner
/// object that keeps them alive (a decoder's frame, a pool's slot, a reader's chunk).
///
/// Borrowed bytes are never written: a mutation first copies them into ``array`` and lets go of the
/// owner. That is what makes borrowing safe to share between threads (see ``MediaSample/Storage``).
@usableFromInline struct SamplePlane {
    /// The bytes, when the sample owns them; empty (possibly with capacity kept) while borrowing.
    var array: [UInt8]
    /// The bytes, when they are borrowed; `nil` when ``array`` holds them.
    private(set) var borrowed: UnsafeRawBufferPointer?
    /// What keeps ``borrowed`` alive: released with the plane.
    private(set) var owner: (any AnyObject & Sendable)?

    /// A plane that owns `array`.
    init(_ array: [UInt8]) {
        self.array = array
    }

    /// A plane that borrows `bytes` from `owner`.
    init(borrowing bytes: UnsafeRawBufferPointer, owner: any AnyObject & Sendable) {
        array = []
        borrowed = bytes
        self.owner = owner
    }

    /// Whether the bytes are borrowed rather than owned.
    var isBorrowed: Bool { borrowed != nil }

    /// The number of bytes.
    var count: Int { borrowed?.count ?? array.count }

    /// The bytes as an array: the owned one, or a copy of the borrowed ones.
    var bytes: [UInt8] { borrowed.map { Array($0) } ?? array }

    /// A copy of the bytes in `range`.
    func copy(_ range: Range<Int>) -> [UInt8] {
        if let borrowed { return Array(borrowed[range]) }
        return Array(array[range])
    }

    /// Calls `body` with the bytes, without copying them.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        if let borrowed { return try body(borrowed) }
        return try array.withUnsafeBytes { bytes in Result { () throws(E) in try body(bytes) } }.get()
    }

    /// Calls `body` with the bytes to change, copying borrowed bytes into an owned array first.
    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        makeOwned()
        return try array.withUnsafeMutableBytes(body)
    }

    /// Turns borrowed bytes into an owned array (one copy) and lets go of their owner.
    mutating func makeOwned() {
        guard let borrowed else { return }
        array = Array(borrowed)
        self.borrowed = nil
        owner = nil
    }

    /// Empties the plane for a refill, keeping the owned array's capacity and letting go of any owner.
    mutating func removeAllKeepingCapacity() {
        array.removeAll(keepingCapacity: true)  // allocates only if a consumer kept the bytes
        borrowed = nil
        owner = nil
    }

    /// Makes the plane borrow `bytes` from `owner`, keeping the owned array's (emptied) capacity for a
    /// later refill with owned bytes.
    mutating func borrow(_ bytes: UnsafeRawBufferPointer, from owner: any AnyObject & Sendable) {
        array.removeAll(keepingCapacity: true)
        borrowed = bytes
        self.owner = owner
    }
}

extension SamplePlane: Hashable {
    /// Planes are equal when their bytes are, owned or borrowed.
    @usableFromInline static func == (lhs: SamplePlane, rhs: SamplePlane) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    /// Hashes the bytes.
    @usableFromInline func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
