import Dispatch
import MediaCore

/// The worker threads of a ``ParallelAACEncoder`` and what they share.
///
/// Each worker takes the next segment nobody has taken, encodes it with an ``AACEncoder`` of its own
/// from an input of its own, and sends the packets the segment keeps to that segment's channel. A
/// worker may start a segment only while fewer than `threads` segments are unconsumed (the `slots`
/// semaphore, signalled by the consumer each time it finishes a segment), so at most `threads`
/// segments' packets are ever held.
final class SegmentWorkers: Sendable {
    /// What one worker needs to encode a segment; the input closure is called on the worker's thread.
    struct Job: Sendable {
        let segments: [ParallelAACEncoder.Segment]
        let frameCount: Int64
        let bitRate: Int
        let openInput: @Sendable (Range<Int64>) throws(MediaError) -> any MediaSource
    }

    let channels: [SegmentChannel<MediaSample>]
    private let job: Job
    private let slots: DispatchSemaphore
    private let nextSegment = Locked(0)
    private let cancelled = Locked(false)
    private let threadCount: Int

    init(job: Job, threads: Int) {
        self.job = job
        threadCount = max(1, min(threads, job.segments.count))
        channels = job.segments.map { _ in SegmentChannel() }
        slots = DispatchSemaphore(value: threadCount)
    }

    /// Starts the threads; the caller joins them (``StageThread/join()``) after ``cancel()`` or the end.
    func start() throws(MediaError) -> [StageThread] {
        var threads: [StageThread] = []
        do {
            for _ in 0..<threadCount {
                threads.append(try StageThread { [self] in self.work() })
            }
        } catch {
            // The threads already started must end before `threads` is released (a StageThread joins
            // when released): stop them first, or the join would wait for ever.
            cancel()
            throw error
        }
        return threads
    }

    /// The consumer has finished a segment: another may start.
    func segmentConsumed() { slots.signal() }

    /// Stops the workers at their next input sample and wakes any waiting for a slot.
    func cancel() {
        cancelled.withLock { $0 = true }
        for _ in 0..<(job.segments.count + threadCount) { slots.signal() }
    }

    private var isCancelled: Bool { cancelled.withLock { $0 } }

    private func work() {
        while true {
            slots.wait()
            if isCancelled { return }
            let index = nextSegment.withLock { next in
                defer { next += 1 }
                return next
            }
            guard index < job.segments.count else { return }
            do throws(MediaError) {
                try encode(segment: index)
                channels[index].send(.end)
            } catch {
                channels[index].send(.failure(error))
            }
        }
    }

    /// Encodes segment `index` and sends the packets it keeps, in batches of 64, retimed and trimmed
    /// as the serial encode's packets at those places.
    private func encode(segment index: Int) throws(MediaError) {
        let segment = job.segments[index]
        let frames = Int64(AACEncoder.framesPerPacket)
        var input = try job.openInput(segment.inputFrames)
        let encoder = try AACEncoder(bitRate: job.bitRate)
        let channel = channels[index]
        var packet = segment.inputFrames.lowerBound / frames  // the stream's number of the encoder's next packet
        var batch: [MediaSample] = []
        batch.reserveCapacity(64)
        let emit = { (sample: MediaSample) throws(MediaError) in
            defer { packet += 1 }
            guard segment.packets.contains(packet) else { return }
            batch.append(Self.retimed(sample, packet: packet, frameCount: self.job.frameCount))
            if batch.count == 64 {
                channel.send(.packets(batch))
                batch = []
                batch.reserveCapacity(64)
            }
        }
        var framesIn: Int64 = 0
        do {
            while let sample = try input.next() {
                if isCancelled { return }
                framesIn += Int64(sample.frameCount)
                try encoder.process(sample, into: emit)
                if framesIn == Int64(sample.frameCount) && encoder.primingFrames != ParallelAACEncoder.encoderDelay {
                    throw MediaError(
                        .encoderFailure,
                        "the AAC encoder delays by \(encoder.primingFrames) frames, not the \(ParallelAACEncoder.encoderDelay) segments are cut for"
                    )
                }
            }
            let expected = Int64(segment.inputFrames.count)
            guard framesIn == expected else {
                throw MediaError(
                    .truncated,
                    "segment \(index + 1)'s input gave \(count: framesIn, "frame") of the \(expected) asked for "
                        + "(frames \(segment.inputFrames.lowerBound)..<\(segment.inputFrames.upperBound)); "
                        + "did the file change while it was read?")
            }
            if segment.inputFrames.upperBound == job.frameCount { try encoder.finish(into: emit) }
        } catch let error as MediaError {
            throw error
        } catch {
            throw MediaError(.encoderFailure, "segment \(index + 1): \(error)")
        }
        guard packet >= segment.packets.upperBound else {
            throw MediaError(
                .encoderFailure,
                "segment \(index + 1) made packets up to \(packet), short of \(segment.packets.upperBound)")
        }
        if !batch.isEmpty { channel.send(.packets(batch)) }
    }

    /// `sample` with the serial encode's timing and trims for packet `packet` of a stream of `frameCount`
    /// input frames (``AACEncoder/packetTiming(packet:priming:inputFrames:start:timescale:)``, as the
    /// encoder computes them for its own packets).
    static func retimed(_ sample: MediaSample, packet: Int64, frameCount: Int64) -> MediaSample {
        guard case .audio(let format) = sample.format else { return sample }
        let rate = Int32(format.sampleRate)
        let serial = AACEncoder.packetTiming(
            packet: packet, priming: ParallelAACEncoder.encoderDelay, inputFrames: frameCount,
            start: MediaTime(value: 0, timescale: rate), timescale: rate)
        var out = sample
        out.timing = serial.timing
        out.trimAtStart = serial.trimAtStart
        out.trimAtEnd = serial.trimAtEnd
        return out
    }
}
