import Dispatch
public import Logging
import Synchronization

/// Shows each sample that passes a point of a run to an observer and passes it on unchanged: GStreamer's
/// pad probe, or the "called for every encoded packet" delegate of an AVFoundation-era encoder class.
/// Put it in a stage list after the stage whose output you want to see.
///
/// ```swift
/// // A closure, called on the thread that runs the stage before it
/// let logPackets = MediaTap { packet in print(packet.timing.presentationTime, packet.byteCount) }
///
/// // An AsyncSequence that a task reads at its own pace; if it falls behind, the oldest samples
/// // waiting are dropped and counted, and the run never waits for it
/// let (tap, packets) = MediaTap.stream(buffering: .dropOldest(keeping: 64))
/// let encoded = graph.addBranch(source: microphone, stages: [try AACEncoder(bitRate: 128_000), tap])
/// Task { for await packet in packets { upload(packet) } }
/// ```
///
/// - No copy: the observer gets the sample the stage emitted (its bytes are shared, as a
///   `CMSampleBuffer` is retained); the stage after the tap gets the same sample.
/// - Threads: the closure is `@Sendable` because in a threaded or `async` graph run it is called from the
///   branch's thread, while the caller's code runs elsewhere. It should return quickly: the run waits for
///   it. A tap's ``Samples`` sequence can be read from any task.
/// - Back-pressure: see ``Buffering``. Only ``Buffering/wait(capacity:)`` lets a slow reader slow the
///   run. Samples dropped for a slow reader are counted in ``Samples/droppedCount`` and reported as a
///   warning (in ``Pipeline/Progress/warnings`` and the run's logger): once at the first drop, and with
///   the total when the tap finishes.
/// - End: when the run finishes the tap, or drops it after an error, the sequence ends after the
///   samples still waiting.
public final class MediaTap: MediaStage, DiagnosticReporting {
    /// How a ``Samples`` sequence buffers samples that its reader has not taken yet.
    public enum Buffering: Sendable, Hashable {
        /// Keeps the newest `keeping` samples waiting; a new sample with that many waiting drops the
        /// oldest. The run never waits. For previews and meters, where the latest is what matters.
        case dropOldest(keeping: Int)
        /// Keeps the first `keeping` samples waiting; while that many wait, new ones are dropped. The run
        /// never waits.
        case dropNewest(keeping: Int)
        /// Keeps up to `capacity` samples waiting, then makes the run's thread wait for the reader: no
        /// sample is lost, and a slow reader slows the run (a live source behind it then overruns). Ask
        /// for it only when the reader must see every sample.
        case wait(capacity: Int)
    }

    /// The name errors and warnings carry: given at creation, `MediaTap` by default.
    public let name: String
    /// Where the drop warnings go (a driver sets its own when this is `nil`).
    public var logger: Logger?
    private let observe: @Sendable (MediaSample) -> Void
    private let channel: TapChannel?

    /// A tap calling `observe` with each sample that passes, on the thread that runs the stage.
    public init(_ name: String = "MediaTap", observe: @escaping @Sendable (MediaSample) -> Void) {
        self.name = name
        self.observe = observe
        channel = nil
    }

    private init(name: String, channel: TapChannel) {
        self.name = name
        self.channel = channel
        observe = { [channel] in channel.send($0) }
    }

    /// A tap and the sequence of the samples that pass it, buffered as `buffering` says (at least one
    /// sample is kept whatever the number given).
    public static func stream(_ name: String = "MediaTap", buffering: Buffering) -> (tap: MediaTap, samples: Samples) {
        let channel = TapChannel(buffering)
        return (MediaTap(name: name, channel: channel), Samples(channel: channel))
    }

    /// Shows `sample` to the observer, then passes it on.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        observe(sample)
        if let channel, channel.takeFirstDropReport() {
            MediaDiagnostic(
                .warning, "\(name) dropped a sample: its reader fell behind",
                metadata: [DiagnosticKey.stage: name, DiagnosticKey.code: "tapDropped"]
            ).log(to: logger)
        }
        try emit(sample)
    }

    /// Ends the sequence (after the samples still waiting) and reports the drops, if any.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        guard let channel else { return }
        channel.finish()
        let dropped = channel.droppedCount
        if dropped > 0 {
            MediaDiagnostic(
                .warning, "\(name) dropped \(count: dropped, "sample") in all: its reader fell behind",
                metadata: [
                    DiagnosticKey.stage: name, DiagnosticKey.code: "tapDropped", DiagnosticKey.count: String(dropped)
                ]
            ).log(to: logger)
        }
    }

    deinit { channel?.finish() }

    /// The samples that pass a tap made by ``MediaTap/stream(_:buffering:)``, for one reader.
    public struct Samples: AsyncSequence, Sendable {
        /// A sample that passed the tap.
        public typealias Element = MediaSample
        /// The sequence never throws; it ends when the run finishes or drops the tap.
        public typealias Failure = Never
        fileprivate let channel: TapChannel

        /// Samples dropped so far because the reader fell behind.
        public var droppedCount: Int { channel.droppedCount }

        /// The iterator; one per sequence.
        public func makeAsyncIterator() -> Iterator {
            Iterator(base: channel.stream.makeAsyncIterator(), channel: channel)
        }

        /// Takes the samples in order.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<MediaSample>.Iterator
            let channel: TapChannel

            /// The next sample, or `nil` once the tap has finished and every waiting sample was taken.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> MediaSample? {
                let sample = await base.next(isolation: actor)
                if sample != nil { channel.taken() }
                return sample
            }

            /// The next sample, or `nil` at the end.
            public mutating func next() async -> MediaSample? { await next(isolation: nil) }
        }
    }
}

extension MediaTap: AbandonObserving {
    /// Ends the sequence: the run failed and let go of the tap.
    func runAbandoned() { channel?.finish() }
}

@available(*, unavailable) extension MediaTap: Sendable {}

/// What a stream tap and its reader share: the stream, the drop count, and for ``MediaTap/Buffering/wait(capacity:)``
/// the permits that bound what waits.
final class TapChannel: Sendable {
    let stream: AsyncStream<MediaSample>
    private let continuation: AsyncStream<MediaSample>.Continuation
    /// One permit per free place, when the run waits for the reader.
    private let permits: DispatchSemaphore?
    private let ended = Atomic<Bool>(false)
    private let dropped = Atomic<Int>(0)
    private let dropReported = Atomic<Bool>(false)

    init(_ buffering: MediaTap.Buffering) {
        let policy: AsyncStream<MediaSample>.Continuation.BufferingPolicy
        switch buffering {
        case .dropOldest(let keeping):
            policy = .bufferingNewest(max(1, keeping))
            permits = nil
        case .dropNewest(let keeping):
            policy = .bufferingOldest(max(1, keeping))
            permits = nil
        case .wait(let capacity):
            policy = .unbounded
            // Made at 0 and raised: libdispatch traps when a semaphore is freed below its initial value.
            let semaphore = DispatchSemaphore(value: 0)
            for _ in 0..<max(1, capacity) { semaphore.signal() }
            permits = semaphore
        }
        (stream, continuation) = AsyncStream.makeStream(of: MediaSample.self, bufferingPolicy: policy)
        continuation.onTermination = { [weak self] _ in
            // The reader is gone (or the tap finished): a run waiting for a place must not wait for ever.
            self?.ended.store(true, ordering: .releasing)
            self?.permits?.signal()
        }
    }

    /// Samples dropped so far.
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Queues `sample` for the reader, waiting for a place when the buffering says so.
    func send(_ sample: MediaSample) {
        if let permits, !ended.load(ordering: .acquiring) {
            permits.wait()
        }
        if case .dropped = continuation.yield(sample) { dropped.add(1, ordering: .relaxed) }
    }

    /// The reader took a sample: one more place.
    func taken() { permits?.signal() }

    /// Whether there was a drop not reported yet; `true` once.
    func takeFirstDropReport() -> Bool {
        guard droppedCount > 0, !dropReported.load(ordering: .relaxed) else { return false }
        return !dropReported.exchange(true, ordering: .relaxed)
    }

    /// Ends the stream after what is waiting.
    func finish() { continuation.finish() }
}
