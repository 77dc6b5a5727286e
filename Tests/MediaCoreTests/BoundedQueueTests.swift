import Testing

@testable import MediaCore

#if canImport(Glibc)
    import Glibc
#endif

/// `BoundedQueue`, the hand-off between the threads of a concurrent pipeline and a threaded graph:
/// every item arrives once, in each producer's order, with several producers (a graph sink fed by
/// several branches), a small capacity, and consumers and producers that sleep.
@Suite(.timeLimit(.minutes(5))) struct BoundedQueueTests {
    /// Four producers into one queue of capacity 2: the case in which waking one waiting producer
    /// instead of all of them deadlocked (the consumer waiting on an empty queue, a producer on a full
    /// one it was never woken from).
    @Test(arguments: [1, 2, 8]) func everyItemOfSeveralProducersArrivesInOrder(capacity: Int) throws {
        let queue = BoundedQueue<(producer: Int, index: Int)>(capacity: capacity)
        let producers = 4
        let perProducer = 20_000
        var threads: [StageThread] = []
        for producer in 0..<producers {
            threads.append(
                try StageThread {
                    for index in 0..<perProducer {
                        // Now and then a producer pauses, so that the consumer empties the queue and sleeps.
                        if index % 5000 == 0 { usleep(200) }
                        queue.put((producer, index))
                    }
                })
        }
        var next = [Int](repeating: 0, count: producers)
        var outOfOrder = 0
        for count in 0..<(producers * perProducer) {
            // And now and then the consumer pauses, so that producers fill the queue and sleep.
            if count % 7000 == 0 { usleep(200) }
            let item = queue.take()
            if item.index != next[item.producer] { outOfOrder += 1 }
            next[item.producer] = item.index + 1
        }
        threads.forEach { $0.join() }
        #expect(outOfOrder == 0)
        #expect(next == [Int](repeating: perProducer, count: producers))
    }
}
