import Dispatch
import MediaCore

/// What one segment's worker hands to its consumer: batches of finished results (a
/// ``ParallelAACEncoder`` segment's packets, an ``H264Decoder`` group of pictures' frames), then the end
/// or the error that stopped it.
///
/// Unbounded on purpose: a segment ahead of the one being consumed must be able to finish while the
/// consumer is still busy with an earlier one (that is the parallelism). The consumers bound the memory
/// instead, by the number of segments in flight and their length.
final class SegmentChannel<Element: Sendable>: Sendable {
    enum Item: Sendable {
        case packets([Element])
        case end
        case failure(MediaError)
    }

    private let items = Locked<[Item]>([])
    private let available = DispatchSemaphore(value: 0)

    /// Appends `item` and wakes the consumer.
    func send(_ item: Item) {
        items.withLock { $0.append(item) }
        available.signal()
    }

    /// The oldest item, waiting for one.
    func receive() -> Item {
        available.wait()
        // `available` counts the items sent and not yet received, so the array holds one here.
        return items.withLock { $0.removeFirst() }
    }

    /// The oldest item if one has been sent, without waiting.
    func receiveIfReady() -> Item? {
        guard available.wait(timeout: .now()) == .success else { return nil }
        return items.withLock { $0.removeFirst() }
    }
}
