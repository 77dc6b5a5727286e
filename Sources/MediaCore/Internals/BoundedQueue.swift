import DequeModule

#if canImport(Glibc)
    import Glibc
#endif

/// A bounded first-in first-out queue between two threads: of a concurrent ``Pipeline``, or from a
/// branch of a threaded ``MediaGraph`` to a sink.
///
/// `put` blocks while the queue holds `capacity` items, `take` while it is empty: so a fast producer
/// waits for a slow consumer and memory stays bounded. The end of a stream travels as an item too.
///
/// **Hand-offs are batched by waking as little as possible.** A thread that has to wait first yields
/// its CPU a few times (more when its last wait was short: ``wait(until:on:flag:spin:)``), then sleeps on a condition variable, and the other
/// side wakes it only when it is asleep: a consumer as soon as there is an item (so no sample waits for
/// company: latency is the same as a hand-off per item), a producer only once the consumer has taken the
/// queue down to half its capacity, so that a producer held up by a slow consumer then puts half a
/// queue's worth without sleeping again. While both threads keep up, nobody sleeps and a hop costs two
/// lock/unlock pairs. The first version signalled a semaphore per item each way, which on this
/// project's two cores cost 2–8 µs per hop (`graph-benchmark --driver concurrent`; Benchmarks/README.md).
final class BoundedQueue<Item: Sendable>: @unchecked Sendable {
    // Sendable by construction: `items`, `consumerWaiting` and `producerWaiting` are read and written
    // only between pthread_mutex_lock and pthread_mutex_unlock of `mutex` (the condition waits release
    // and retake it), so no two threads touch them at once; and `Item: Sendable`, so what `take`
    // returns may cross threads.
    private let notEmpty = PthreadCondition()
    private let notFull = PthreadCondition()
    fileprivate var items = Deque<Item>()
    fileprivate var consumerWaiting = false
    fileprivate var producerWaiting = false
    fileprivate let capacity: Int
    fileprivate let mutex = PthreadMutex()
    /// How many times the consumer and the producers yield before they sleep (``wait(until:on:flag:spin:)``).
    fileprivate var consumerSpin = BoundedQueue.shortSpin
    fileprivate var producerSpin = BoundedQueue.shortSpin

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        items.reserveCapacity(self.capacity)
    }

    /// Appends `item`, waiting for room.
    func put(_ item: Item) {
        mutex.lock()
        if items.count >= capacity {
            wait(until: { $0.items.count < $0.capacity }, on: notFull, flag: \.producerWaiting, spin: \.producerSpin)
        }
        items.append(item)
        if consumerWaiting {
            consumerWaiting = false
            notEmpty.signal()  // there is one consumer per queue (a stage's or a sink's thread)
        }
        mutex.unlock()
    }

    /// Removes the oldest item, waiting for one.
    func take() -> Item {
        mutex.lock()
        if items.isEmpty {
            wait(until: { !$0.items.isEmpty }, on: notEmpty, flag: \.consumerWaiting, spin: \.consumerSpin)
        }
        let item = items.removeFirst()
        if producerWaiting && items.count <= capacity / 2 {
            // Every waiting producer, not one: a graph's sink queue has one producer per branch that
            // feeds it, and a single flag cannot tell how many wait (one signal lost the others: a
            // deadlock in MediaGraphThreadedTests). Each rechecks and waits again if it must.
            producerWaiting = false
            notFull.broadcast()
        }
        mutex.unlock()
        return item
    }
}

extension BoundedQueue {
    /// Waits, with the mutex held on entry and on return, until `isReady`: first yielding the CPU up to
    /// `spin` times (the lock released meanwhile), then sleeping on `condition` with `flag` set, so that
    /// the other side wakes it. The next budget adapts: long when this wait ended within
    /// ``shortWait`` (items come fast; spinning beats a futex round trip, several µs), short when it
    /// slept longer (an idle live pipeline, or a fast thread waiting for a slow encoder, does not burn
    /// CPU on yields).
    fileprivate func wait(
        until isReady: (BoundedQueue) -> Bool, on condition: PthreadCondition,
        flag: ReferenceWritableKeyPath<BoundedQueue, Bool>, spin: ReferenceWritableKeyPath<BoundedQueue, Int>
    ) {
        let started = Self.now()
        var yields = 0
        while !isReady(self) && yields < self[keyPath: spin] {
            mutex.unlock()
            sched_yield()
            yields += 1
            mutex.lock()
        }
        while !isReady(self) {
            self[keyPath: flag] = true
            condition.wait(mutex)
        }
        self[keyPath: spin] = Self.now() - started < Self.shortWait ? Self.longSpin : Self.shortSpin
    }

    /// Yields before sleeping after a short wait, and after a long one.
    fileprivate static var longSpin: Int { 128 }
    fileprivate static var shortSpin: Int { 4 }
    /// What counts as a short wait, in nanoseconds.
    fileprivate static var shortWait: Int64 { 50_000 }

    fileprivate static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

/// What travels between the threads of a concurrent ``Pipeline``.
enum PipelineItem: Sendable {
    case sample(MediaSample)
    case end
}
