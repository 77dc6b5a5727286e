import Dispatch
import MediaCore

/// The worker threads of an ``H264Decoder`` decoding groups of pictures at once
/// (``H264Decoder/Threading/groupsOfPictures(workers:bufferBytes:)``), and what they share.
///
/// Each worker has one single-threaded FFmpeg decoder (``H264DecoderCore``), made on its thread. It
/// takes the next group submitted, decodes its access units, drains the decoder (the group is closed:
/// nothing after it refers to its pictures, nothing in it to earlier ones) and resets it, sending the
/// frames to that group's channel in batches as they come. How many groups are submitted at once, and
/// so how many frames are held, is the submitter's business (``H264GOPDecoding``).
final class H264GOPWorkers: Sendable {
    /// A frame a worker decoded, and the access unit whose decoding released it. A frame drained at the
    /// end of the group was released by none: in one decoder for the whole stream, the access units
    /// after the group would have released these one each (FFmpeg's h264 decoder outputs one picture
    /// per picture decoded once its reorder buffer is full), so the `n`th one drained gets the `n`th
    /// access unit after the group, which the consumer may not have been given yet.
    struct DecodedFrame: Sendable {
        let slot: FrameSlot
        let releasedBy: Int64
        let isDrained: Bool
    }

    /// One group of pictures to decode, and where its frames go. The stream's last group is decoded
    /// with frame threads (as many as workers): by then the other workers are finishing theirs or idle,
    /// and the stream's end should not wait for one core alone.
    struct Job: Sendable {
        let units: [H264AccessUnit]
        let channel: SegmentChannel<DecodedFrame>
        let isLast: Bool
    }

    /// Frames sent to a channel at a time: few enough that the consumer starts early, enough that the
    /// lock is taken once per several frames.
    static let batchSize = 4

    private let jobs = Locked<[Job]>([])
    private let submitted = DispatchSemaphore(value: 0)
    private let cancelled = Locked(false)
    private let timescale: Int32
    let threadCount: Int

    /// Workers for a stream timed in 1/`timescale` s.
    init(threads: Int, timescale: Int32) {
        threadCount = max(1, threads)
        self.timescale = timescale
    }

    /// Starts the threads; the caller joins them (``StageThread/join()``) after ``stop()``.
    func start() throws(MediaError) -> [StageThread] {
        var threads: [StageThread] = []
        do {
            for _ in 0..<threadCount { threads.append(try StageThread { [self] in self.work() }) }
        } catch {
            // The threads already started must end before `threads` is released (a StageThread joins
            // when released): stop them first, or the join would wait for ever.
            stop()
            throw error
        }
        return threads
    }

    /// Queues `job` for the next free worker.
    func submit(_ job: Job) {
        jobs.withLock { $0.append(job) }
        submitted.signal()
    }

    /// Ends the workers: each returns once its current access unit is decoded; queued jobs are dropped.
    func stop() {
        cancelled.withLock { $0 = true }
        for _ in 0..<threadCount { submitted.signal() }
    }

    private var isCancelled: Bool { cancelled.withLock { $0 } }

    private func work() {
        var core: H264DecoderCore?
        while true {
            submitted.wait()
            if isCancelled { return }
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            decode(job, core: &core)
        }
    }

    /// Decodes `job`'s group with `core` (made on first use), sending its frames, then the end or the
    /// error that stopped it (stamped with the access unit's index).
    private func decode(_ job: Job, core: inout H264DecoderCore?) {
        var batch: [DecodedFrame] = []
        batch.reserveCapacity(Self.batchSize)
        var current = job.units.first?.index ?? 0
        do throws(MediaError) {
            let decoder: H264DecoderCore
            if job.isLast {
                decoder = try H264DecoderCore(threads: Int32(threadCount), timescale: timescale, parameters: nil)
            } else if let core {
                decoder = core
            } else {
                decoder = try H264DecoderCore(threads: 1, timescale: timescale, parameters: nil)
                core = decoder
            }
            defer { decoder.reset() }
            var drained: Int64?
            func receive() throws(MediaError) {
                while let slot = try decoder.receive() {
                    let releasedBy = drained.map { current + 1 + $0 } ?? current
                    batch.append(DecodedFrame(slot: slot, releasedBy: releasedBy, isDrained: drained != nil))
                    drained = drained.map { $0 + 1 }
                    if batch.count == Self.batchSize {
                        job.channel.send(.packets(batch))
                        batch = []
                        batch.reserveCapacity(Self.batchSize)  // one allocation a batch, not three
                    }
                }
            }
            for unit in job.units {
                if isCancelled { return }
                current = unit.index
                try decoder.send(unit)
                try receive()
            }
            try decoder.sendEnd()
            drained = 0
            try receive()
            if !batch.isEmpty { job.channel.send(.packets(batch)) }
            job.channel.send(.end)
        } catch {
            var error = error
            if error.sampleIndex == nil { error.sampleIndex = current }
            if !batch.isEmpty { job.channel.send(.packets(batch)) }
            job.channel.send(.failure(error))
        }
    }
}
