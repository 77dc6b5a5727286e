import Dispatch

extension MediaSource {
    /// The source's samples as an `AsyncSequence`: `for try await sample in reader.samples { … }`.
    ///
    /// Pull-based, so back-pressure is natural: the source is read only when the loop asks for the
    /// next sample. Each `next` reads the source on the task's thread (a file read, a generator).
    public var samples: MediaSourceSamples { MediaSourceSamples(source: self) }
}

/// A ``MediaSource``'s samples as an `AsyncSequence` (see ``MediaSource/samples``).
public struct MediaSourceSamples: AsyncSequence {
    /// A sample.
    public typealias Element = MediaSample
    let source: any MediaSource

    /// An iterator that reads the source.
    public func makeAsyncIterator() -> Iterator { Iterator(source: CheckedSource.wrapping(source)) }

    /// Reads the source one sample at a time, through its ``CheckedSource``.
    public struct Iterator: AsyncIteratorProtocol {
        let source: CheckedSource

        /// The source's next sample, or `nil` at its end (and after an error, which is thrown once,
        /// stamped with the source's name and sample index).
        public mutating func next() async throws -> MediaSample? { try source.next() }
    }
}

@available(*, unavailable) extension MediaSourceSamples.Iterator: Sendable {}

/// Any `AsyncSequence` of samples as a ``MediaSource``, for a graph branch: samples that arrive from
/// a network library, a capture API with an async interface, or another graph.
///
/// One sample is asked of the sequence each time the graph asks for one (no read-ahead, so the
/// sequence sees the graph's back-pressure). ``next()`` blocks its thread until the sequence delivers:
/// use such a source in a threaded or `async` run of a ``MediaGraph`` (whose branches have threads of
/// their own), not in a synchronous run on a thread of Swift's concurrency pool. Releasing the source
/// cancels the task that iterates the sequence.
public final class AsyncSequenceSource: MediaSource {
    private let bridge: AsyncBridge
    private var isDone = false

    /// A source of `sequence`'s samples.
    public init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == MediaSample {
        bridge = AsyncBridge(sequence)
    }

    /// The sequence's next sample, or `nil` at its end; rethrows its error.
    public func next() throws -> MediaSample? {
        guard !isDone else { return nil }
        do {
            let sample = try bridge.next()
            if sample == nil { isDone = true }
            return sample
        } catch {
            isDone = true
            throw error
        }
    }

    /// `AsyncSequenceSource`.
    public var name: String { "AsyncSequenceSource" }

    deinit { bridge.cancel() }
}

@available(*, unavailable) extension AsyncSequenceSource: Sendable {}

/// The task that iterates the sequence, one element per demand, and the semaphore the reading thread
/// waits on.
private final class AsyncBridge: Sendable {
    private let demand: AsyncStream<Void>.Continuation
    private let delivered = Locked<Result<MediaSample?, any Error>?>(nil)
    private let ready = DispatchSemaphore(value: 0)
    private let task: Task<Void, Never>

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == MediaSample {
        let (demands, demand) = AsyncStream<Void>.makeStream()
        self.demand = demand
        let delivered = self.delivered
        let ready = self.ready
        task = Task {
            var iterator = sequence.makeAsyncIterator()
            for await _ in demands {
                do {
                    let element = try await iterator.next()
                    delivered.withLock { $0 = .success(element) }
                    ready.signal()
                    if element == nil { return }
                } catch {
                    delivered.withLock { $0 = .failure(error) }
                    ready.signal()
                    return
                }
            }
            // Cancelled: let a waiting reader see the end.
            delivered.withLock { $0 = .success(nil) }
            ready.signal()
        }
    }

    func next() throws -> MediaSample? {
        demand.yield(())
        ready.wait()
        let result = delivered.withLock { value -> Result<MediaSample?, any Error>? in
            defer { value = nil }
            return value
        }
        return try result?.get() ?? nil
    }

    func cancel() {
        demand.finish()
        task.cancel()
    }
}
