import Dispatch

/// A bounded first-in first-out queue of samples between two threads of a concurrent ``Pipeline``.
///
/// `put` blocks while the queue holds `capacity` items, `take` while it is empty: so a fast stage waits
/// for a slow one and memory stays bounded. The end of the stream travels as an item too.
final class SampleQueue: Sendable {
    enum Item: Sendable {
        case sample(MediaSample)
        case end
    }

    private let items = Locked(Ring())
    private let free: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        free = DispatchSemaphore(value: max(1, capacity))
    }

    /// Appends `item`, waiting for room.
    func put(_ item: Item) {
        free.wait()
        items.withLock { $0.append(item) }
        filled.signal()
    }

    /// Removes the oldest item, waiting for one.
    func take() -> Item {
        filled.wait()
        let item = items.withLock { $0.removeFirst() }
        free.signal()
        return item ?? .end
    }

    /// A growable ring buffer; `removeFirst` is O(1), unlike `Array`'s.
    struct Ring {
        private var storage: [Item?] = Array(repeating: nil, count: 16)
        private var head = 0
        private var count = 0

        mutating func append(_ item: Item) {
            if count == storage.count {
                storage = (0..<count).map { storage[(head + $0) % count] } + Array(repeating: nil, count: count)
                head = 0
            }
            storage[(head + count) % storage.count] = item
            count += 1
        }

        mutating func removeFirst() -> Item? {
            guard count > 0 else { return nil }
            let item = storage[head]
            storage[head] = nil
            head = (head + 1) % storage.count
            count -= 1
            return item
        }
    }
}
