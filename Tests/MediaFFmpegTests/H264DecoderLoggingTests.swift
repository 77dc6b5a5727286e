import Logging
import MediaCore
import MediaFFmpeg
import MediaTestSupport
import Testing

/// H264Decoder reports the frames it conceals through its `Logger`, one warning per access unit that
/// gave damaged frames, and nothing for a clean stream.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct H264DecoderLoggingTests {
    static func encoded() throws -> [MediaSample] {
        let clip = try VideoClip(count: 24)
        var settings = H264Encoder.Settings()
        settings.preset = "veryfast"
        settings.averageBitRate = 2_000_000
        settings.maxKeyFrameInterval = 12
        return try Video.run(try H264Encoder(settings: settings), clip.frames)
    }

    @Test func aDamagedStreamLogsConcealedFramesWithTheirAccessUnit() throws {
        var samples = try Self.encoded()
        // Overwrite a stretch in the middle of every access unit (their slice data; the AVCC length
        // fields at the start stay intact): FFmpeg conceals the damage and flags the frames. (Damaging
        // only the two IDRs left no flagged frame in one CI run of several: with frame threads, whether
        // a given damaged picture is reported depends on timing, so the test damages all 24.)
        for index in samples.indices {
            var bytes = samples[index].data
            let start = bytes.count / 2
            for i in start..<min(bytes.count, start + 200) { bytes[i] = UInt8(truncatingIfNeeded: i &* 151) }
            samples[index].data = bytes
        }
        let decoder = H264Decoder()
        let records = LogRecords()
        decoder.logger = records.logger()
        let frames = try Video.run(decoder, samples)

        #expect(frames.count == 24)
        #expect(decoder.damagedFrameCount >= 1)
        let concealed = records.with(code: "framesConcealed")
        #expect(!concealed.isEmpty)
        #expect(concealed.allSatisfy { $0.level == .warning && $0.metadata["stage"] == "H264Decoder" })
        #expect(
            concealed.compactMap { $0.metadata["count"].flatMap(Int64.init) }.reduce(0, +) == decoder.damagedFrameCount)
        #expect(
            concealed.allSatisfy { $0.metadata["sampleIndex"].flatMap(Int.init).map { (0..<24).contains($0) } == true })
        let first = try #require(concealed.first)
        #expect(
            first.message
                == "H.264 access unit \(first.metadata["sampleIndex"] ?? "?") decoded to \(first.metadata["count"] ?? "?") "
                + "\(first.metadata["count"] == "1" ? "frame" : "frames") with errors concealed.")
    }

    @Test func aCleanStreamLogsNothing() throws {
        let decoder = H264Decoder()
        let records = LogRecords()
        decoder.logger = records.logger()
        #expect(try Video.run(decoder, try Self.encoded()).count == 24)
        #expect(decoder.damagedFrameCount == 0)
        #expect(records.all.isEmpty)
    }
}
