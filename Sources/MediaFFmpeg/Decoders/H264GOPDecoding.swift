import MediaCore

/// The ``H264Decoder``'s side of decoding groups of pictures at once, on the decoder's thread: it cuts
/// the access units into closed groups (a new one at each IDR access unit, when the group before
/// started with one too), submits each to
/// ``H264GOPWorkers``, and hands their frames to ``VideoFrameOutput`` group by group, in order.
///
/// - Memory: at most `workers + 1` groups are submitted and not yet emitted (one more than the workers,
///   so that a worker that finished a group ahead of the oldest takes the next at once);
///   ``process(_:scan:output:into:)`` waits for the oldest to finish before submitting another. The last
///   group is decoded with frame threads. A group longer than
///   `maximumGroupLength` access units (whose pictures would not fit the buffer) switches the rest of
///   the stream to one FFmpeg decoder with frame threads on this thread, after the groups before it.
/// - Parameter sets: a worker's decoder starts in the middle of the stream, so the first access unit
///   of each group carries, in-band, every parameter set the stream has given so far (its format's and
///   those in earlier access units: ``H264ParameterSetHistory``).
/// - Errors: a worker's error is thrown once the frames before it have been emitted, with the index of
///   the access unit that caused it; the same error again on any later call.
final class H264GOPDecoding {
    private let workers: H264GOPWorkers
    private var threads: [StageThread]
    private let maximumGroupLength: Int
    private var history = H264ParameterSetHistory()
    /// The access units of the group being collected.
    private var group: [H264AccessUnit] = []
    /// Whether the group being collected starts with an IDR access unit. One that does not (the start
    /// of a stream cut in the middle of a group, or an IDR damaged into another type) is not cut at the
    /// next IDR: how one decoder handles that IDR depends on what it decoded before (pictures still to
    /// show, error concealment), so it goes to the same decoder, as in one decoder for the whole stream.
    private var groupStartsWithIDR = false
    /// The channels of the groups submitted and not yet emitted, oldest first.
    private var inFlight: [SegmentChannel<H264GOPWorkers.DecodedFrame>] = []
    /// Frames received and not emitted yet, in order: a frame drained at the end of a group waits for
    /// the access unit that times it (``H264GOPWorkers/DecodedFrame``), and those after it wait too.
    private var held: [H264GOPWorkers.DecodedFrame] = []
    private var heldStart = 0
    /// The decoder the stream switched to after a group too long to buffer.
    private var serial: H264DecoderCore?
    private var failure: MediaError?

    /// Starts `workers` threads for a stream timed in 1/`timescale` s whose format gives `parameters`.
    init(workers: Int, maximumGroupLength: Int, timescale: Int32, parameters: H264Parameters?) throws(MediaError) {
        self.workers = H264GOPWorkers(threads: workers, timescale: timescale)
        self.maximumGroupLength = max(1, maximumGroupLength)
        if let parameters { history.note(parameters) }
        threads = try self.workers.start()
    }

    /// The kernel ids of the worker threads that have started and not been joined at the end
    /// (``StageThread/kernelThreadID``), for tests that check the workers end.
    var workerThreadIDs: [Int32] { threads.compactMap(\.kernelThreadID) }

    deinit {
        workers.stop()
        for thread in threads { thread.join() }
    }

    /// Takes the next access unit, `unit`, walked as `scan`; emits the frames that are ready.
    func process(
        _ unit: H264AccessUnit, scan: H264AccessUnitScan, output: VideoFrameOutput,
        into emit: (MediaSample) throws -> Void
    ) throws {
        if let failure { throw failure }
        do {
            if let serial {
                try serial.send(unit, annexBSize: scan.annexBSize)
                try receive(from: serial, releasedBy: unit.index, output: output, into: emit)
                return
            }
            if scan.isIDR && groupStartsWithIDR { try submitGroup(output: output, into: emit) }
            var unit = unit
            if group.isEmpty {
                groupStartsWithIDR = scan.isIDR
                if !history.units.isEmpty { unit.inBand = history.units + unit.inBand }
            }
            note(parameterSetsOf: unit, scan: scan)
            group.append(unit)
            if group.count > maximumGroupLength {
                try switchToSerial(output: output, into: emit)
            } else {
                try emitReady(output: output, into: emit)
            }
        } catch let error as MediaError {
            failure = error
            throw error
        }
    }

    /// Decodes what is left and emits every frame, in order; then stops the workers.
    func finish(output: VideoFrameOutput, into emit: (MediaSample) throws -> Void) throws {
        if let failure { throw failure }
        do {
            if let serial {
                try serial.sendEnd()
                try receive(from: serial, releasedBy: output.accessUnitCount - 1, output: output, into: emit)
            } else {
                if !group.isEmpty { submit(isLast: true) }
                while !inFlight.isEmpty { try emitOldestGroup(output: output, into: emit) }
                try emitHeld(output: output, final: true, into: emit)
            }
        } catch let error as MediaError {
            failure = error
            throw error
        }
        workers.stop()
        for thread in threads { thread.join() }
        threads = []
    }

    /// Remembers the parameter sets `unit` brings (in-band before it, or in it) for the groups after.
    private func note(parameterSetsOf unit: H264AccessUnit, scan: H264AccessUnitScan) {
        for set in unit.inBand { set.withUnsafeBufferPointer { history.note($0) } }
        if scan.hasParameterSets {
            unit.sample.withUnsafeBytes { raw in
                H264AccessUnitScan.forEachParameterSet(in: raw.assumingMemoryBound(to: UInt8.self)) { history.note($0) }
            }
        }
    }

    /// Submits the group collected, once at most `workers` groups are in flight.
    private func submitGroup(output: VideoFrameOutput, into emit: (MediaSample) throws -> Void) throws {
        while inFlight.count > workers.threadCount { try emitOldestGroup(output: output, into: emit) }
        submit()
    }

    private func submit(isLast: Bool = false) {
        let channel = SegmentChannel<H264GOPWorkers.DecodedFrame>()
        workers.submit(H264GOPWorkers.Job(units: group, channel: channel, isLast: isLast))
        inFlight.append(channel)
        group = []
        group.reserveCapacity(maximumGroupLength / 4)
    }

    /// Emits the frames the workers have sent so far, oldest group first, without waiting.
    private func emitReady(output: VideoFrameOutput, into emit: (MediaSample) throws -> Void) throws {
        try emitHeld(output: output, final: false, into: emit)
        while heldStart == held.count, let oldest = inFlight.first, let item = oldest.receiveIfReady() {
            try take(item, output: output, into: emit)
        }
    }

    /// Emits the frames held, in order, up to the first whose timing access unit has not been given
    /// yet; when `final` (the stream has ended, or the rest goes to one decoder), all of them: a
    /// frame after the last access unit is timed as one drained at the end of the stream.
    private func emitHeld(output: VideoFrameOutput, final: Bool, into emit: (MediaSample) throws -> Void) throws {
        while heldStart < held.count {
            let frame = held[heldStart]
            var tick: Int64?
            if frame.isDrained {
                tick = output.decodeTick(of: frame.releasedBy)
                if tick == nil && !final && frame.releasedBy >= output.accessUnitCount { return }
            }
            heldStart += 1
            try output.emit(frame.slot, releasedBy: frame.releasedBy, decodeTick: tick, into: emit)
        }
        held.removeAll(keepingCapacity: true)
        heldStart = 0
    }

    /// Emits the oldest group's frames, waiting for them, until its end.
    private func emitOldestGroup(output: VideoFrameOutput, into emit: (MediaSample) throws -> Void) throws {
        let count = inFlight.count
        while inFlight.count == count, let oldest = inFlight.first {
            try take(oldest.receive(), output: output, into: emit)
        }
    }

    /// Emits one item of the oldest group's channel; its end retires the group.
    private func take(
        _ item: SegmentChannel<H264GOPWorkers.DecodedFrame>.Item, output: VideoFrameOutput,
        into emit: (MediaSample) throws -> Void
    ) throws {
        switch item {
        case .packets(let frames):
            held.append(contentsOf: frames)
            try emitHeld(output: output, final: false, into: emit)
        case .end:
            inFlight.removeFirst()
        case .failure(let error):
            inFlight.removeFirst()
            throw error
        }
    }

    /// Emits every group in flight, then decodes the group collected and everything after it with one
    /// decoder with frame threads.
    private func switchToSerial(output: VideoFrameOutput, into emit: (MediaSample) throws -> Void) throws {
        while !inFlight.isEmpty { try emitOldestGroup(output: output, into: emit) }
        try emitHeld(output: output, final: true, into: emit)
        let decoder = try H264DecoderCore(threads: 0, timescale: output.timescale, parameters: nil)
        serial = decoder
        for unit in group {
            do {
                try decoder.send(unit)
            } catch {
                var error = error
                if error.sampleIndex == nil { error.sampleIndex = unit.index }
                throw error
            }
            try receive(from: decoder, releasedBy: unit.index, output: output, into: emit)
        }
        group = []
    }

    private func receive(
        from decoder: H264DecoderCore, releasedBy: Int64, output: VideoFrameOutput,
        into emit: (MediaSample) throws -> Void
    ) throws {
        while let slot = try decoder.receive() { try output.emit(slot, releasedBy: releasedBy, into: emit) }
    }
}

@available(*, unavailable) extension H264GOPDecoding: Sendable {}
