import Dispatch
import DequeModule

/// A bounded first-in first-out queue between two threads: of a concurrent ``Pipeline``, or from a
/// branch of a threaded ``MediaGraph`` to a sink.
///
/// `put` blocks while the queue holds `capacity` items, `take` while it is empty: so a fast producer
/// waits for a slow consumer and memory stays bounded. The end of a stream travels as an item too.
final class BoundedQueue<Item: Sendable>: Sendable {
    private let items = Locked(Deque<Item>())
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
        // `filled` counts the items appended and not yet taken, so the deque holds one here.
        let item = items.withLock { $0.removeFirst() }
        free.signal()
        return item
    }
}

/// What travels between the threads of a concurrent ``Pipeline``.
enum PipelineItem: Sendable {
    case sample(MediaSample)
    case end
}
