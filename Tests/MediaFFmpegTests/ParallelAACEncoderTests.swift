import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `ParallelAACEncoder`: the segment plan, and a parallel encode judged against a serial one by what
/// ffmpeg decodes from both (length, coding error around every join), by ffprobe, and by the CAF and
/// M4A muxers' priming and remainder.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ParallelAACEncoderTests {
    /// 90 s of 48 kHz stereo s16, two tones plus noise (the benchmark's signal): 4220 packets, enough
    /// for two segments.
    static let seconds = 90
    static let frames = Int64(seconds * 48_000)

    /// Every packet of a serial encode (`AACEncoder` over one `WAVReader`).
    static func serialPackets(_ path: String) throws -> [MediaSample] {
        let reader = try WAVReader(path: path)
        let encoder = try AACEncoder(bitRate: 128_000)
        var packets: [MediaSample] = []
        while let sample = try reader.next() { try encoder.process(sample) { packets.append($0) } }
        try encoder.finish { packets.append($0) }
        return packets
    }

    static func parallel(_ path: String, threads: Int = 2) throws -> ParallelAACEncoder {
        try ParallelAACEncoder(frameCount: try WAVReader(path: path).frameCount, threads: threads) {
            range throws(MediaError) in try WAVReader(path: path, frames: range)
        }
    }

    static func drain(_ encoder: ParallelAACEncoder) throws -> [MediaSample] {
        var packets: [MediaSample] = []
        while let packet = try encoder.next() { packets.append(packet) }
        return packets
    }

    static func writeADTS(_ packets: [MediaSample], to path: String) throws {
        let muxer = ADTSMuxer(output: try FileOutput(path: path))
        for packet in packets { try muxer.write(packet) }
        try muxer.finish()
    }

    /// Root-mean-square of each 1024-frame block of the difference of two interleaved stereo signals,
    /// `a` read from `aOffset` frames on.
    static func blockRMS(_ a: [Float], from aOffset: Int, minus b: [Float], blocks: Int) -> [Double] {
        (0..<blocks).map { block in
            var sum = 0.0
            let start = block * 1024 * 2
            for i in start..<(start + 2048) {
                let d = Double(a[aOffset * 2 + i]) - Double(b[i])
                sum += d * d
            }
            return (sum / 2048).squareRoot()
        }
    }

    // MARK: The plan

    @Test func segmentsCoverTheStreamOnceWithBalancedWork() {
        let n: Int64 = 28_800_000  // 10 minutes at 48 kHz: 28126 packets
        let segments = ParallelAACEncoder.segments(frameCount: n, threads: 2)
        #expect(segments.count == 2)
        #expect(segments.first?.packets.lowerBound == 0 && segments.first?.inputFrames.lowerBound == 0)
        #expect(segments.last?.packets.upperBound == 28126 && segments.last?.inputFrames.upperBound == n)
        for (earlier, later) in zip(segments, segments.dropFirst()) {
            #expect(earlier.packets.upperBound == later.packets.lowerBound, "\(segments)")
            #expect(later.preRollPackets == 1024, "\(later)")
            #expect(earlier.inputFrames.upperBound == (earlier.packets.upperBound + 2) * 1024, "\(earlier)")
        }
        let work = segments.map { $0.packets.count + Int($0.preRollPackets) }
        #expect(work.max()! - work.min()! <= 1, "\(work)")
    }

    @Test func longInputsAreCutIntoBoundedSegmentsOfAMultipleOfTheThreads() {
        let n: Int64 = 3600 * 48_000  // an hour: 168751 packets
        let segments = ParallelAACEncoder.segments(frameCount: n, threads: 2)
        #expect(segments.count % 2 == 0 && segments.count > 2, "\(segments.count)")
        #expect(segments.allSatisfy { $0.packets.count <= ParallelAACEncoder.defaultMaximumSegmentPackets })
        #expect(segments.last?.packets.upperBound == ParallelAACEncoder.packetCount(frameCount: n))
        #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.packets.upperBound == $1.packets.lowerBound })
    }

    @Test func shortInputsAndOneThreadGiveOneSegment() {
        // The threshold: three pre-rolls of packets, 3072, i.e. more than 3070 · 1024 input frames (65.5 s).
        #expect(ParallelAACEncoder.packetCount(frameCount: 3070 * 1024 + 1) == 3072)
        #expect(ParallelAACEncoder.isWorthwhile(frameCount: 3070 * 1024 + 1, threads: 2))
        #expect(!ParallelAACEncoder.isWorthwhile(frameCount: 3070 * 1024, threads: 2))
        #expect(!ParallelAACEncoder.isWorthwhile(frameCount: 100_000_000, threads: 1))
        let one = ParallelAACEncoder.segments(frameCount: 48_000 * 30, threads: 2)
        #expect(one.count == 1 && one.first?.packets == 0..<1408 && one.first?.inputFrames == 0..<1_440_000)
    }

    // MARK: Encoding

    /// Below the threshold the "parallel" encoder is the serial encoder: the same bytes and timing.
    @Test func aShortInputIsTheSerialEncodeByteForByte() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFixture.noisyTwoTones(dir, seconds: 5)
        let encoder = try Self.parallel(path)
        #expect(encoder.segments.count == 1)
        let parallel = try Self.drain(encoder)
        let serial = try Self.serialPackets(path)
        #expect(parallel.count == serial.count)
        #expect(zip(parallel, serial).allSatisfy { $0.data == $1.data }, "the same bytes")
        #expect(parallel.map(\.timing) == serial.map(\.timing))
        #expect(parallel.map(\.trimAtEnd) == serial.map(\.trimAtEnd))
    }

    /// Two segments on two threads: as many packets as the serial encode with its timing and trims;
    /// ffmpeg decodes both to the same length; and around the join the decode's error against the
    /// input is the serial decode's at the same place, and its difference from the serial decode is no
    /// larger than that difference elsewhere.
    @Test func theJoinIsAsGoodAsTheSerialEncodeThere() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFixture.noisyTwoTones(dir, seconds: Self.seconds)
        let encoder = try Self.parallel(path)
        #expect(encoder.segments.count == 2 && encoder.threads == 2)
        let parallel = try Self.drain(encoder)
        let serial = try Self.serialPackets(path)
        let packets = Int(ParallelAACEncoder.packetCount(frameCount: Self.frames))
        #expect(parallel.count == packets && serial.count == packets)
        #expect(encoder.framesEncoded == Self.frames)
        #expect(parallel.map(\.timing) == serial.map(\.timing))
        #expect(parallel.map(\.trimAtStart) == serial.map(\.trimAtStart))
        #expect(parallel.map(\.trimAtEnd) == serial.map(\.trimAtEnd))
        #expect(parallel.first?.format == serial.first?.format)
        #expect(zip(parallel, serial).prefix(100).allSatisfy { $0.data == $1.data }, "segment 1 is the serial encode")

        try Self.writeADTS(parallel, to: dir.file("parallel.aac"))
        try Self.writeADTS(serial, to: dir.file("serial.aac"))
        let probe = try ExternalTool.probeFirstStream(dir.file("parallel.aac"))
        #expect(probe["nb_read_packets"] as? String == "\(packets)")
        let input = RawAudio.floats(try ExternalTool.decode(path))
        let decodedParallel = RawAudio.floats(try ExternalTool.decode(dir.file("parallel.aac")))
        let decodedSerial = RawAudio.floats(try ExternalTool.decode(dir.file("serial.aac")))
        #expect(decodedParallel.count == packets * 1024 * 2 && decodedSerial.count == decodedParallel.count)
        guard decodedParallel.count == decodedSerial.count, input.count == Int(Self.frames) * 2 else { return }

        // Block b of the input is decoded block b + 1 (the first is priming).
        let blocks = Int(Self.frames) / 1024
        let errorParallel = Self.blockRMS(decodedParallel, from: 1024, minus: input, blocks: blocks)
        let errorSerial = Self.blockRMS(decodedSerial, from: 1024, minus: input, blocks: blocks)
        let difference = Self.blockRMS(decodedParallel, from: 0, minus: decodedSerial, blocks: blocks)
        let join = Int(encoder.segments[1].packets.lowerBound)  // decoded block `join` holds the overlap
        let after = (join - 1)..<(join + 63)
        let ratio = after.map { errorParallel[$0] }.reduce(0, +) / after.map { errorSerial[$0] }.reduce(0, +)
        #expect(ratio < 1.1, "error in the 64 blocks after the join: \(ratio)× the serial encode's")
        let around = (join - 2)...(join + 2)
        let elsewhere = (join + 64)..<blocks
        let largestElsewhere = elsewhere.map { difference[$0] }.max() ?? 0
        let largestAround = around.map { difference[$0] }.max() ?? 0
        #expect(
            largestAround <= largestElsewhere,
            "difference from the serial decode: \(largestAround) at the join, at most \(largestElsewhere) elsewhere")
        let meanParallel = errorParallel.reduce(0, +) / Double(blocks)
        let meanSerial = errorSerial.reduce(0, +) / Double(blocks)
        #expect(meanParallel < meanSerial * 1.02, "mean error \(meanParallel) against \(meanSerial)")
    }

    /// The same packets in CAF and M4A carry the serial encode's priming and remainder.
    @Test func cafAndM4AHaveTheSerialPrimingAndRemainder() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFixture.noisyTwoTones(dir, seconds: Self.seconds)
        let parallel = try Self.drain(try Self.parallel(path))
        let packets = Int(ParallelAACEncoder.packetCount(frameCount: Self.frames))
        let remainder = packets * 1024 - 1024 - Int(Self.frames)

        let caf = dir.file("parallel.caf")
        let cafMuxer = CAFMuxer(output: try FileOutput(path: caf))
        for packet in parallel { try cafMuxer.write(packet) }
        try cafMuxer.finish()
        let table = try #require(try CAFReader(path: caf).packetTable)
        #expect(table.primingFrames == 1024 && table.remainderFrames == Int32(remainder))
        #expect(table.numberValidFrames == Self.frames && table.numberPackets == Int64(packets))
        #expect(try ExternalTool.probeFirstStream(caf)["nb_read_packets"] as? String == "\(packets)")

        let m4a = dir.file("parallel.m4a")
        let muxer = try ContainerMuxer(path: m4a, format: .m4a)
        try muxer.begin(tracks: [parallel.first?.format])
        for packet in parallel { try muxer.write(packet, track: 0) }
        try muxer.finish()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: m4a)))
        let info = try ISOBMFF.gaplessInfo(bytes)
        #expect(info.mediaTime == 1024)
        #expect(info.segmentDuration * 48_000 / info.movieTimescale == Int(Self.frames))
        #expect(
            ContainerMuxerGaplessTests.smpbFields(info.smpb).prefix(4)
                == [0, 0x400, UInt64(remainder), UInt64(Self.frames)])
        // ffmpeg honours the edit's start, not its end (ContainerMuxerGaplessTests): N + remainder frames.
        #expect(RawAudio.floats(try ExternalTool.decode(m4a)).count == (Int(Self.frames) + remainder) * 2)
    }

    // MARK: Errors and cancellation

    /// A segment whose input fails: every packet of the segments before it comes first, then its error,
    /// named with the segment's number; then `stageFinished`.
    @Test func aFailingSegmentIsReportedAfterTheSegmentsBeforeIt() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFixture.noisyTwoTones(dir, seconds: Self.seconds)
        let encoder = try ParallelAACEncoder(frameCount: Self.frames, threads: 2) { range throws(MediaError) in
            if range.lowerBound > 0 { throw MediaError(.io, "the disk went away") }
            return try WAVReader(path: path, frames: range)
        }
        var delivered = 0
        var thrown: MediaError?
        #expect(try encoder.next() != nil)
        delivered += 1
        // Both workers are alive until the first segment is consumed (the second waits for a slot).
        let workers = try Self.runningWorkers(encoder)
        do {
            while try encoder.next() != nil { delivered += 1 }
        } catch {
            thrown = error
        }
        #expect(delivered == Int(encoder.segments[0].packets.count))
        #expect(thrown?.code == .io && thrown?.stage == "ParallelAACEncoder", "\(String(describing: thrown))")
        #expect(throws: MediaError.self) { try encoder.next() }
        // The error stopped the workers: their threads end while the encoder is still held.
        let left = workers.waitUntilEnded()
        #expect(left.isEmpty, "worker threads still running after the error: \(workers)")
        withExtendedLifetime(encoder) {}
    }

    /// An input shorter than it said (a file cut while being read) is an error, not a silent gap.
    @Test func aSegmentInputThatEndsEarlyIsTruncated() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFixture.noisyTwoTones(dir, seconds: Self.seconds)
        let encoder = try ParallelAACEncoder(frameCount: Self.frames + 48_000, threads: 2) {
            range throws(MediaError) in try WAVReader(path: path, frames: range)
        }
        #expect {
            while try encoder.next() != nil {}
        } throws: { error in
            (error as? MediaError)?.code == .truncated && "\(error)".contains("segment 2")
        }
    }

    /// Dropping the encoder mid-stream stops and joins its threads: the kernel no longer lists them.
    @Test func droppingTheEncoderEarlyStopsItsThreads() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFixture.noisyTwoTones(dir, seconds: Self.seconds)
        var encoder: ParallelAACEncoder? = try Self.parallel(path)
        for _ in 0..<10 { _ = try encoder?.next() }
        let workers = try Self.runningWorkers(try #require(encoder))
        encoder = nil
        let left = workers.waitUntilEnded()
        #expect(left.isEmpty, "worker threads still running after the encoder was dropped: \(workers)")
    }

    /// Once the last packet is out, the worker threads have ended, the encoder still held.
    @Test func theWorkersEndWithTheStream() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFixture.noisyTwoTones(dir, seconds: Self.seconds)
        let encoder = try Self.parallel(path)
        var packets = 0
        var workers: KernelThreads?
        while try encoder.next() != nil {
            packets += 1
            if packets == 1 { workers = try Self.runningWorkers(encoder) }
        }
        #expect(packets == Int(ParallelAACEncoder.packetCount(frameCount: Self.frames)))
        let left = workers?.waitUntilEnded()
        #expect(left == [], "worker threads still running after the end: \(String(describing: workers))")
        withExtendedLifetime(encoder) {}
    }

    /// The encoder's worker threads, all `threads` of them running, once each has started (waits for
    /// that); fails the test when they are not all found running.
    static func runningWorkers(_ encoder: ParallelAACEncoder) throws -> KernelThreads {
        let ids = KernelThreads.waitForIDs(encoder.threads) { encoder.workerThreadIDs }
        #expect(ids.count == encoder.threads, "\(ids.count) of \(encoder.threads) workers started")
        return try #require(KernelThreads(running: ids), "the workers \(ids) are not threads of this process")
    }
}
