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
@Suite struct ContainerMuxerTimingTests {
    /// One hour of 48 kHz AAC packet times and 30 fps video into MPEG-TS: the last pts of each stream is
    /// exactly its tick count at 90 kHz (168749 × 1920 and 107999 × 3000), as ffprobe reads the tail.
    @Test func oneHourIntoMPEGTSDoesNotDrift() throws {
        let silence = try MuxFixtures.encodeAudio(frames: 4096)   // small packets: any AAC payload will do
        let audioPacket = silence[2]
        let picture = try #require(try MuxFixtures.encodeVideo(frames: 1, width: 16, height: 16).first)
        #expect(picture.flags.contains(.keyframe))
        let audioCount: Int64 = 48_000 * 3600 / 1024   // 168750
        let videoCount: Int64 = 30 * 3600               // 108000
        let output = HeadTailOutput(keep: 1 << 20)
        let muxer = try ContainerMuxer(output: output, format: .mpegTS)
        try muxer.begin(tracks: [picture.format, audioPacket.format])
        var a: Int64 = 0
        var v: Int64 = 0
        while a < audioCount || v < videoCount {
            // Decode-time order: video frame v at v/30 s, audio packet a at a·1024/48000 s.
            if v < videoCount && (a >= audioCount || v * 48_000 <= a * 1024 * 30) {
                var sample = picture
                let t = MediaTime(value: v, timescale: 30)
                sample.timing = SampleTiming(presentationTime: t, decodeTime: t, duration: MediaTime(value: 1, timescale: 30))
                try muxer.write(sample, track: 0)
                v += 1
            } else {
                var sample = audioPacket
                let t = MediaTime(value: a * 1024, timescale: 48_000)
                sample.timing = SampleTiming(presentationTime: t, decodeTime: t, duration: MediaTime(value: 1024, timescale: 48_000))
                try muxer.write(sample, track: 1)
                a += 1
            }
        }
        try muxer.finish()
        #expect(muxer.samplesWritten == audioCount + videoCount)
        #expect(output.position % 188 == 0)

        let dir = try TemporaryDirectory()
        func packets(_ bytes: [UInt8], _ name: String) throws -> [(stream: Int, pts: Int)] {
            let path = dir.file(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let run = try ExternalTool.check("ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,pts", "-of", "csv=p=0", path])
            return run.output.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: ",").compactMap { Int($0) }
                return fields.count == 2 ? (fields[0], fields[1]) : nil
            }
        }
        let head = try packets(output.head, "head.ts")
        #expect(head.first { $0.stream == 0 }?.pts == 0)
        #expect(head.first { $0.stream == 1 }?.pts == 0)
        let tail = try packets(output.last, "tail.ts")
        #expect(tail.last { $0.stream == 0 }?.pts == Int(videoCount - 1) * 3000)
        #expect(tail.last { $0.stream == 1 }?.pts == Int(audioCount - 1) * 1920)
    }
}
