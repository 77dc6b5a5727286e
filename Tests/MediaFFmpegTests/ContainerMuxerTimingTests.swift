import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// An output that keeps only the first and last bytes written, for streams too long to keep.
final class HeadTailOutput: MediaOutput {
    let keep: Int
    private(set) var head: [UInt8] = []
    private(set) var tail: [UInt8] = []
    private(set) var position: Int64 = 0
    init(keep: Int) { self.keep = keep }
    func write(_ bytes: UnsafeRawBufferPointer) throws(MediaError) {
        if head.count < keep { head += bytes.prefix(keep - head.count) }
        tail += bytes
        if tail.count > 2 * keep { tail.removeFirst(tail.count - keep) }
        position += Int64(bytes.count)
    }
    var isSeekable: Bool { false }
    func overwrite(_ bytes: [UInt8], at offset: Int64) throws(MediaError) { throw MediaError(.io, "not seekable") }
    func flush() throws(MediaError) {}
    func close() throws(MediaError) {}
    /// The last `keep` bytes (or fewer).
    var last: [UInt8] { Array(tail.suffix(keep)) }
}

/// Timestamps: exact over an hour.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerMuxerTimingTests {
    /// An hour of AAC packet times and video frame times into MPEG-TS: its first and last 10 seconds,
    /// every packet of them (the muxer converts each sample's own time, so the 58 minutes between would
    /// only take 13 s of a test run; a muxer that added durations up instead would put the tail at the
    /// head's end). The last pts of each stream is its exact time at 90 kHz rounded once (48 kHz:
    /// 168749 × 1920; 30 fps: 107999 × 3000; 44.1 kHz packets fall between ticks and are each rounded to
    /// nearest; 30000/1001 fps: 3003 per frame), as ffprobe reads the stream's head and tail.
    @Test(arguments: [(48_000, FrameRate(30)), (44_100, FrameRate(30_000, 1001))])
    func oneHourIntoMPEGTSDoesNotDrift(sampleRate: Int, frameRate: FrameRate) throws {
        let silence = try MuxFixtures.encodeAudio(frames: 4096, sampleRate: sampleRate)  // any AAC payload will do
        let audioPacket = silence[2]
        let picture = try #require(try MuxFixtures.encodeVideo(frames: 1, width: 16, height: 16).first)
        #expect(picture.flags.contains(.keyframe))
        let rate = Int64(sampleRate)
        let (num, den) = (Int64(frameRate.numerator), Int64(frameRate.denominator))
        let audioCount = rate * 3600 / 1024  // 168750 at 48 kHz
        let videoCount = 3600 * num / den  // 108000 at 30 fps
        // The packets of the first and the last 10 s of each stream.
        let audioEdge = rate * 10 / 1024
        let videoEdge = 10 * num / den
        let output = HeadTailOutput(keep: 1 << 20)
        let muxer = try ContainerMuxer(output: output, format: .mpegTS)
        try muxer.begin(tracks: [picture.format, audioPacket.format])
        var a: Int64 = 0
        var v: Int64 = 0
        var written: Int64 = 0
        while a < audioCount || v < videoCount {
            if a == audioEdge && v == videoEdge {
                (a, v) = (audioCount - audioEdge, videoCount - videoEdge)
            }
            written += 1
            // Decode-time order: video frame v at v·den/num s, audio packet a at a·1024/rate s.
            if v < videoCount && (a >= audioCount || v * den * rate <= a * 1024 * num) {
                var sample = picture
                let t = frameRate.time(ofFrame: v)
                sample.timing = SampleTiming(presentationTime: t, decodeTime: t, duration: frameRate.frameDuration)
                try muxer.write(sample, track: 0)
                v += 1
            } else {
                var sample = audioPacket
                let t = MediaTime(value: a * 1024, timescale: Int32(rate))
                sample.timing = SampleTiming(
                    presentationTime: t, decodeTime: t, duration: MediaTime(value: 1024, timescale: Int32(rate)))
                try muxer.write(sample, track: 1)
                a += 1
            }
        }
        try muxer.finish()
        #expect(muxer.samplesWritten == written && written == 2 * (audioEdge + videoEdge))
        #expect(output.position % 188 == 0)

        let dir = try TemporaryDirectory()
        func packets(_ bytes: [UInt8], _ name: String) throws -> [(stream: Int, pts: Int)] {
            let path = dir.file(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let run = try ExternalTool.check(
                "ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,pts", "-of", "csv=p=0", path])
            return run.output.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: ",").compactMap { Int($0) }
                return fields.count == 2 ? (fields[0], fields[1]) : nil
            }
        }
        let head = try packets(output.head, "head.ts")
        #expect(head.first { $0.stream == 0 }?.pts == 0)
        #expect(head.first { $0.stream == 1 }?.pts == 0)
        let tail = try packets(output.last, "tail.ts")
        // Nearest 90 kHz tick of the exact time, ties away from zero.
        func nearest(_ numerator: Int64, _ denominator: Int64) -> Int {
            Int((2 * numerator + denominator) / (2 * denominator))
        }
        #expect(tail.last { $0.stream == 0 }?.pts == nearest((videoCount - 1) * den * 90_000, num))
        #expect(tail.last { $0.stream == 1 }?.pts == nearest((audioCount - 1) * 1024 * 90_000, rate))
        if sampleRate == 48_000 {
            #expect(tail.last { $0.stream == 1 }?.pts == 168_749 * 1920)
            #expect(tail.last { $0.stream == 0 }?.pts == 107_999 * 3000)
        }
    }
}
