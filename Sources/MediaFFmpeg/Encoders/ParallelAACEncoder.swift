public import MediaCore

/// Encodes a long PCM input to AAC-LC on all cores at once: the input is cut into segments, each
/// encoded by an ``AACEncoder`` of its own on a thread of its own, and the packets come out as one
/// stream, in order, as if one encoder had made them. It has no AVFoundation counterpart; it is what
/// `x264 --threads` is to a video encoder, for an audio codec that has no threads.
///
/// ```swift
/// let frames = try WAVReader(path: "in.wav").frameCount
/// let encoder = try ParallelAACEncoder(frameCount: frames, bitRate: 128_000) { range in
///     try WAVReader(path: "in.wav", frames: range)
/// }
/// var pipeline = Pipeline(source: encoder, sink: CAFMuxer(output: try FileOutput(path: "out.caf")))
/// try pipeline.run()
/// ```
///
/// - Input: `openInput(range)`, called once per segment on that segment's thread, must return a source of
///   the PCM frames `range` of the input (every segment's in the same format, one ``AACEncoder`` takes),
///   e.g. `WAVReader(path:frames:)`; `frameCount` is the input's length in frames.
/// - Output: the packets of the whole stream, in order, with the serial encode's timing: format
///   ``/MediaCore/AudioCodec/aac`` with the AudioSpecificConfig, 1024 frames each, the first packet's 1024
///   priming frames marked ``/MediaCore/MediaSample/trimAtStart`` and the last packet's padding
///   ``/MediaCore/MediaSample/trimAtEnd``. So there are as many packets as ``AACEncoder`` would make
///   (``packetCount(frameCount:)``), and a decoder honouring the trims returns exactly `frameCount`
///   frames; any muxer takes them (ADTS, CAF, M4A).
/// - Joins: each segment after the first starts its encoder ``defaultPreRollPackets`` packets early and
///   drops those packets, so that the encoder's rate control has converged to where a serial encode's
///   would be, and the decoder's overlap of the last packet before a join with the first after it has
///   the same input on both sides (MDCT windows overlap by one packet). The packets are not the serial
///   encode's bytes (FFmpeg's encoder carries state from the first packet on), but a decode differs from
///   the serial encode's decode around a join no more than elsewhere; see ``defaultPreRollPackets`` for
///   the measurement.
/// - Threads and memory: `threads` workers (default: the CPUs this process may use). At most `threads`
///   segments are unconsumed at a time, each at most ``defaultMaximumSegmentPackets`` packets, so memory
///   stays bounded whatever the input's length. An input too short to gain
///   (``isWorthwhile(frameCount:threads:preRollPackets:)``) is one segment: the serial encode, byte for
///   byte, on one worker thread.
/// - Errors: an error in a segment (its input, its encoder) is thrown by ``next()`` after every packet
///   before that segment has been delivered, so what a muxer wrote stays a valid stream. Dropping the
///   encoder before the end stops its threads.
public final class ParallelAACEncoder: MediaSource {
    /// The average bit rate in bits per second.
    public let bitRate: Int
    /// The input's length in frames.
    public let frameCount: Int64
    /// How the input is cut: one segment per thread or more (see ``segments(frameCount:threads:preRollPackets:maximumSegmentPackets:)``).
    public let segments: [Segment]
    /// The worker threads (at most one per segment).
    public let threads: Int
    /// The output format, set by the first packet ``next()`` returns.
    public private(set) var outputFormat: AudioFormat?
    /// Input frames delivered so far: the sum of the packets' ``/MediaCore/MediaSample/validFrameCount``;
    /// `frameCount` at the end.
    public private(set) var framesEncoded: Int64 = 0
    /// Packets delivered so far.
    public private(set) var packetsDelivered: Int64 = 0

    private let workers: SegmentWorkers
    private var threadHandles: [StageThread] = []
    private var started = false
    private var head = 0
    private var batch: [MediaSample] = []
    private var batchIndex = 0
    private var state = State.running

    private enum State {
        case running
        case ended
        case failed
    }

    /// An encoder of `frameCount` frames read through `openInput`, at `bitRate` bits per second, on
    /// `threads` threads. Nothing is read and no thread starts until the first ``next()``.
    ///
    /// - Parameters:
    ///   - frameCount: the input's length in frames (a `WAVReader`'s `frameCount`).
    ///   - bitRate: as for ``AACEncoder/init(bitRate:)``.
    ///   - threads: worker threads; default ``availableThreads``.
    ///   - preRollPackets: packets each later segment encodes before its first kept one.
    ///   - maximumSegmentPackets: the longest segment before more segments than threads are made.
    ///   - openInput: a source of the input's frames in a range, called on a worker thread.
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a bit rate ``AACEncoder`` refuses, a
    ///   negative `frameCount`, or fewer than one thread.
    public init(
        frameCount: Int64, bitRate: Int = 128_000, threads: Int = ParallelAACEncoder.availableThreads,
        preRollPackets: Int = ParallelAACEncoder.defaultPreRollPackets,
        maximumSegmentPackets: Int = ParallelAACEncoder.defaultMaximumSegmentPackets,
        openInput: @escaping @Sendable (Range<Int64>) throws(MediaError) -> any MediaSource
    ) throws(MediaError) {
        _ = try AACEncoder(bitRate: bitRate)
        guard frameCount >= 0 else {
            throw MediaError(.invalidArgument, "ParallelAACEncoder frame count \(frameCount) is negative")
        }
        guard threads >= 1 else {
            throw MediaError(.invalidArgument, "ParallelAACEncoder needs at least 1 thread, not \(threads)")
        }
        self.bitRate = bitRate
        self.frameCount = frameCount
        segments = Self.segments(
            frameCount: frameCount, threads: threads, preRollPackets: preRollPackets,
            maximumSegmentPackets: maximumSegmentPackets)
        self.threads = min(threads, segments.count)
        workers = SegmentWorkers(
            job: SegmentWorkers.Job(
                segments: segments, frameCount: frameCount, bitRate: bitRate, openInput: openInput),
            threads: self.threads)
    }

    deinit {
        workers.cancel()
        for thread in threadHandles { thread.join() }
    }

    /// The kernel ids of the worker threads that have started (``StageThread/kernelThreadID``), for
    /// tests that check the workers end.
    package var workerThreadIDs: [Int32] { threadHandles.compactMap(\.kernelThreadID) }

    /// The name errors and progress carry: `ParallelAACEncoder`.
    public var name: String { "ParallelAACEncoder" }

    /// The next packet of the stream, or `nil` after the last; waits for the segment it is in.
    ///
    /// After an error (a segment's, named with its number), further calls throw
    /// ``/MediaCore/MediaError/Code/stageFinished``.
    public func next() throws(MediaError) -> MediaSample? {
        switch state {
        case .running: break
        case .ended: return nil
        case .failed: throw MediaError.stageFinished(name)
        }
        if !started {
            started = true
            do throws(MediaError) {
                threadHandles = try workers.start()
            } catch {
                state = .failed
                throw error.inStage(name)
            }
        }
        while head < segments.count {
            if batchIndex < batch.count {
                let sample = batch[batchIndex]
                batchIndex += 1
                return try deliver(sample)
            }
            switch workers.channels[head].receive() {
            case .packets(let packets):
                batch = packets
                batchIndex = 0
            case .end:
                head += 1
                workers.segmentConsumed()
            case .failure(let error):
                state = .failed
                workers.cancel()
                throw error.inStage(name)
            }
        }
        state = .ended
        for thread in threadHandles { thread.join() }
        return nil
    }

    private func deliver(_ sample: MediaSample) throws(MediaError) -> MediaSample {
        guard case .audio(let format) = sample.format else { return sample }
        if let outputFormat, outputFormat != format {
            state = .failed
            workers.cancel()
            throw MediaError(
                .encoderFailure, "segment \(head + 1)'s encoder made \(format), the first made \(outputFormat)",
                stage: name)
        }
        outputFormat = format
        framesEncoded += Int64(sample.validFrameCount)
        packetsDelivered += 1
        return sample
    }
}

@available(*, unavailable) extension ParallelAACEncoder: Sendable {}
