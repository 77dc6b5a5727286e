internal import CMediaFFmpeg

extension ParallelAACEncoder {
    /// One segment of a parallel encode: the packets it contributes to the stream and the input frames its
    /// encoder reads to make them.
    public struct Segment: Sendable, Hashable, CustomStringConvertible {
        /// The packets of the whole stream this segment delivers: packet k decodes to frames
        /// [k·1024, (k+1)·1024) of the decoded stream, whose first 1024 frames are the encoder's priming.
        public let packets: Range<Int64>
        /// The input frames the segment's encoder reads: from ``preRollPackets`` packets before the first
        /// kept one (none for the first segment) to two packets after the last (to the end of the input
        /// for the last segment, whose encoder is drained like a serial one).
        public let inputFrames: Range<Int64>

        /// The packets the segment's encoder makes and drops before the first kept one.
        public var preRollPackets: Int64 {
            packets.lowerBound - inputFrames.lowerBound / Int64(AACEncoder.framesPerPacket)
        }

        /// `packets 14575..<28126 from frames 13899776..<28800000`.
        public var description: String {
            "packets \(packets.lowerBound)..<\(packets.upperBound) from frames "
                + "\(inputFrames.lowerBound)..<\(inputFrames.upperBound)"
        }
    }

    /// The encoder delay of FFmpeg's native AAC encoder, in frames: the first packet is all priming.
    /// Checked against the opened encoder's `initial_padding` at run time.
    public static let encoderDelay = 1024

    /// Packets each segment after the first encodes and drops before its first kept packet: 1024,
    /// about 22 s at 48 kHz.
    ///
    /// FFmpeg's AAC encoder adjusts its quantiser (`lambda`) from packet to packet toward the bit rate,
    /// by at most a few per cent a packet once it is close, and starts every stream from the same
    /// value. A fresh encoder therefore spends its first ~1000 packets converging: measured on 10
    /// minutes of two tones plus noise at 128 kb/s, the coding error of a serial encode is 1.9× its
    /// steady value over the first 16 packets and 1.1× between packets 256 and 1024. A segment whose
    /// encoder started only 8 packets before its first kept packet decoded with 1.5× the serial
    /// encode's error for minutes after the join; with 1024 packets of pre-roll the error in the blocks
    /// after a join is 1.00–1.02× the serial encode's at the same place (Benchmarks/README.md, and
    /// `ParallelAACEncoderTests`, which checks it at every join).
    public static let defaultPreRollPackets = 1024

    /// The longest segment, in packets, before an input is cut into more segments than there are
    /// threads: 16384 packets (about 5.8 minutes at 48 kHz).
    ///
    /// A segment that finishes before the ones ahead of it waits in memory (about 350 bytes a packet
    /// at 128 kb/s stereo, so 5.6 MB for a whole segment), so the bound keeps memory flat however long
    /// the input is; each extra segment costs one pre-roll (6 % of a segment this long).
    public static let defaultMaximumSegmentPackets = 16384

    /// The packets a serial encode of `frameCount` frames makes: the priming packet, the input, and the
    /// padding of the last packet, ⌈(frameCount + 1024) / 1024⌉.
    public static func packetCount(frameCount: Int64) -> Int64 {
        let frames = Int64(AACEncoder.framesPerPacket)
        return (max(0, frameCount) + Int64(encoderDelay) + frames - 1) / frames
    }

    /// Whether splitting an input of `frameCount` frames across `threads` threads pays: it does when the
    /// input is at least three pre-rolls long (3072 packets, 65.5 s at 48 kHz, 71.3 s at 44.1 kHz) and
    /// there are at least two threads.
    ///
    /// With two threads and two segments, the wall time is (packets + pre-roll) / 2 packets' worth
    /// against the serial encode's packets: at three pre-rolls that is 0.67× (1.5× as fast) for 1.33×
    /// the CPU; shorter inputs gain less while the pre-roll's extra CPU grows toward 2×. This is the
    /// threshold at which `aac-encoder` turns `--parallel` on by itself.
    public static func isWorthwhile(
        frameCount: Int64, threads: Int = availableThreads, preRollPackets: Int = defaultPreRollPackets
    ) -> Bool {
        threads >= 2 && packetCount(frameCount: frameCount) >= 3 * Int64(max(1, preRollPackets))
    }

    /// The segments for `frameCount` input frames on `threads` threads.
    ///
    /// One segment (a serial encode, byte-identical to ``AACEncoder``'s) when ``isWorthwhile(frameCount:threads:preRollPackets:)``
    /// says no. Otherwise a multiple of `threads` segments, as few as keep each within
    /// `maximumSegmentPackets`, cut so that every segment's encoder does the same work: the first
    /// segment, which needs no pre-roll, is `preRollPackets` longer than the others.
    public static func segments(
        frameCount: Int64, threads: Int, preRollPackets: Int = defaultPreRollPackets,
        maximumSegmentPackets: Int = defaultMaximumSegmentPackets
    ) -> [Segment] {
        let total = packetCount(frameCount: frameCount)
        let preRoll = Int64(max(1, preRollPackets))
        let frames = Int64(AACEncoder.framesPerPacket)
        guard isWorthwhile(frameCount: frameCount, threads: threads, preRollPackets: preRollPackets) else {
            return [Segment(packets: 0..<total, inputFrames: 0..<max(0, frameCount))]
        }
        let threads = Int64(threads)
        let cap = Int64(max(Int(preRoll) * 2, maximumSegmentPackets))
        let rounds = max(1, (total + threads * cap - 1) / (threads * cap))
        let count = threads * rounds
        // Each segment's encoder makes `work` packets: the first keeps them all, the others drop
        // `preRoll` of theirs. count · work − (count − 1) · preRoll = total.
        let work = (total + (count - 1) * preRoll + count - 1) / count
        var segments: [Segment] = []
        var start: Int64 = 0
        for index in 0..<count where start < total {
            let kept = index == 0 ? work : work - preRoll
            let end = index == count - 1 ? total : min(total, start + kept)
            let inputStart = max(0, start - preRoll) * frames
            let inputEnd = end == total ? frameCount : min(frameCount, (end + 2) * frames)
            segments.append(Segment(packets: start..<end, inputFrames: (start == 0 ? 0 : inputStart)..<inputEnd))
            start = end
        }
        return segments
    }

    /// The CPUs this process may run on, at least 1: FFmpeg's `av_cpu_count()`, which reads the process's
    /// affinity mask (so `taskset -c 0` gives 1).
    public static var availableThreads: Int { max(1, Int(av_cpu_count())) }
}
