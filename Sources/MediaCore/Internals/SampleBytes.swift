import Glibc

/// The buffers of a ``MediaSample``: arrays the sample owns, or bytes it borrows from one owner object
/// that keeps them alive (a decoder's frame, a pool's slot, a reader's chunk).
///
/// Owned planes are kept as the `[[UInt8]]` that ``MediaSample/planes`` returns, so reading them
/// costs no allocation. Borrowed bytes are never written: a mutation first copies them into owned
/// arrays and lets go of the owner. That is what makes borrowing safe to share between threads (see
/// ``MediaSample/Storage``).
@usableFromInline struct SampleBytes {
    /// The planes, when the sample owns them. While borrowing, emptied arrays whose capacity a later
    /// refill with owned bytes reuses.
    private(set) var arrays: [[UInt8]]
    /// The planes, when they are borrowed; empty otherwise.
    private var borrowed: [UnsafeRawBufferPointer] = []
    /// What keeps ``borrowed`` alive; `nil` when the sample owns its bytes.
    private var owner: (any AnyObject & Sendable)?

    /// Planes that own `arrays`.
    init(_ arrays: [[UInt8]]) {
        self.arrays = arrays
    }

    /// Planes that borrow `planes` from `owner`.
    init(borrowing planes: [UnsafeRawBufferPointer], owner: any AnyObject & Sendable) {
        arrays = []
        borrowed = planes
        self.owner = owner
    }

    /// Whether the bytes are borrowed rather than owned.
    var isBorrowed: Bool { owner != nil }

    /// What the borrowed bytes are borrowed from; `nil` when the sample owns its bytes.
    var lender: (any AnyObject & Sendable)? { owner }

    /// The number of planes.
    var planeCount: Int { isBorrowed ? borrowed.count : arrays.count }

    /// The number of bytes in plane `index`, which must exist.
    func count(_ index: Int) -> Int { isBorrowed ? borrowed[index].count : arrays[index].count }

    /// The planes as arrays: the owned ones, or copies of the borrowed ones.
    var planes: [[UInt8]] { isBorrowed ? borrowed.map { Array($0) } : arrays }

    /// The first plane as an array: the owned one, a copy of the borrowed one, or empty when there is none.
    var firstPlane: [UInt8] {
        guard planeCount > 0 else { return [] }
        return isBorrowed ? Array(borrowed[0]) : arrays[0]
    }

    /// A copy of the bytes in `range` of plane `index`.
    func copy(_ index: Int, _ range: Range<Int>) -> [UInt8] {
        isBorrowed ? Array(borrowed[index][range]) : Array(arrays[index][range])
    }

    /// Calls `body` with the bytes of plane `index` (which must exist), without copying them.
    func withUnsafeBytes<R, E: Error>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        if isBorrowed { return try body(borrowed[index]) }
        return try arrays[index].withUnsafeBytes { bytes in Result { () throws(E) in try body(bytes) } }.get()
    }

    /// Calls `body` with the bytes of plane `index` to change, copying borrowed bytes into owned arrays
    /// first.
    mutating func withUnsafeMutableBytes<R>(_ index: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> R)
        rethrows -> R
    {
        makeOwned()
        return try arrays[index].withUnsafeMutableBytes(body)
    }

    /// Replaces the planes with owned `arrays`, letting go of any owner.
    mutating func replace(with arrays: [[UInt8]]) {
        self.arrays = arrays
        borrowed = []
        owner = nil
    }

    /// Replaces plane `index` with the owned `array` (copying the other planes first if borrowed).
    mutating func replace(_ index: Int, with array: [UInt8]) {
        makeOwned()
        if arrays.isEmpty { arrays = [array] } else { arrays[index] = array }
    }

    /// Turns borrowed bytes into owned arrays (one copy each) and lets go of their owner.
    mutating func makeOwned() {
        guard isBorrowed else { return }
        arrays = borrowed.map { Array($0) }
        borrowed = []
        owner = nil
    }

    /// Refills `planeCount` owned planes in place: each emptied (keeping its capacity) and given to
    /// `fill` with its index, in order. Lets go of any owner.
    mutating func refill<E: Error>(planeCount: Int, _ fill: (Int, inout [UInt8]) throws(E) -> Void) throws(E) {
        borrowed.removeAll(keepingCapacity: true)
        owner = nil
        if arrays.count != planeCount { arrays = Array(repeating: [], count: max(0, planeCount)) }
        for index in arrays.indices {
            arrays[index].removeAll(keepingCapacity: true)  // allocates only if a consumer kept the bytes
            try fill(index, &arrays[index])
        }
    }

    /// Makes `planeCount` planes borrow `plane(index)` from `owner`, in place, letting go of the owner
    /// borrowed from before.
    mutating func refill(
        planeCount: Int, owner: any AnyObject & Sendable, borrowing plane: (Int) -> UnsafeRawBufferPointer
    ) {
        borrowed.removeAll(keepingCapacity: true)
        for index in 0..<max(0, planeCount) { borrowed.append(plane(index)) }
        self.owner = owner
        for index in arrays.indices { arrays[index].removeAll(keepingCapacity: true) }
    }
}

extension SampleBytes: Hashable {
    /// Equal when the planes hold the same bytes, owned or borrowed.
    @usableFromInline static func == (lhs: SampleBytes, rhs: SampleBytes) -> Bool {
        if !lhs.isBorrowed && !rhs.isBorrowed { return lhs.arrays == rhs.arrays }
        guard lhs.planeCount == rhs.planeCount else { return false }
        for index in 0..<lhs.planeCount {
            guard lhs.count(index) == rhs.count(index) else { return false }
            let same = lhs.withUnsafeBytes(index) { a in
                rhs.withUnsafeBytes(index) { b in a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
            }
            if !same { return false }
        }
        return true
    }

    /// Hashes the bytes of every plane.
    @usableFromInline func hash(into hasher: inout Hasher) {
        hasher.combine(planeCount)
        for index in 0..<planeCount {
            hasher.combine(count(index))
            withUnsafeBytes(index) { hasher.combine(bytes: $0) }
        }
    }
}
