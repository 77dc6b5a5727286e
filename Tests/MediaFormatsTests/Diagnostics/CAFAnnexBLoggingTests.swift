import Foundation
import Logging
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// The CAF and Annex-B readers report what they work around through a `Logger` and a pipeline's
/// progress, as the WAV and ADTS readers do.
@Suite(.timeLimit(.minutes(2))) struct CAFAnnexBLoggingTests {
    /// A 16-bit stereo CAF of 100 frames (400 data bytes), written by our muxer.
    static func pcmCAF() throws -> [UInt8] {
        let output = MemoryOutput()
        var pipeline = Pipeline(
            source: try ToneGenerator(sampleRate: 8000, channels: 2, sampleType: .s16, length: .frames(100)),
            sink: CAFMuxer(output: output))
        try pipeline.run()
        return output.bytes
    }

    @Test func aCAFWhoseDataEndsInsideAFrameLogsThePartialFrame() throws {
        let whole = try Self.pcmCAF()
        // 'data' is the last chunk: append 3 bytes and grow its mChunkSize to match (unless it is -1).
        let reader0 = try CAFReader(bytes: whole)
        try #require(reader0.totalFrames == 100)
        let dataChunk = try #require(reader0.chunks.first { $0.type == "data" })
        var cut = whole + [1, 2, 3]
        if dataChunk.size != -1 {
            let size = UInt64(dataChunk.size + 3)
            for index in 0..<8 {
                cut[Int(dataChunk.offset) + 4 + index] = UInt8(truncatingIfNeeded: size >> (56 - 8 * UInt64(index)))
            }
        }
        let reader = try CAFReader(bytes: cut)
        let records = LogRecords()
        reader.logger = records.logger()
        var frames = 0
        while let sample = try reader.next() { frames += sample.frameCount }
        #expect(frames == 100)
        let record = try #require(records.with(code: "partialFrameDropped").only)
        #expect(record.level == .warning)
        #expect(record.metadata["stage"] == "CAFReader")
        #expect(record.metadata["count"] == "3")
        #expect(record.metadata["byteOffset"] == String(reader.dataOffset + 400))
        #expect(record.message.contains("3 bytes into a 4-byte frame"))

        var pipeline = Pipeline(source: try CAFReader(bytes: cut), sink: CollectingSink())
        let progress = try pipeline.run()
        #expect(progress.warnings.map { $0[DiagnosticKey.code] } == ["partialFrameDropped"])
    }

    @Test func anAnnexBStreamWithGarbageBeforeTheFirstStartCodeLogsTheSkip() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("clip.h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=0.5",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "h264", path
            ])
        let clean = try fileBytes(path)
        let reader = AnnexBReader(bytes: Array("junk".utf8) + clean)
        let records = LogRecords()
        reader.logger = records.logger()
        var pictures = 0
        while try reader.next() != nil { pictures += 1 }
        #expect(pictures == 5)
        let record = try #require(records.with(code: "leadingBytesSkipped").only)
        #expect(record.level == .warning)
        #expect(record.metadata["stage"] == "AnnexBReader")
        #expect(record.metadata["count"] == "4")
        #expect(record.message == "Skipped 4 non-zero bytes before the first start code.")
        #expect(reader.diagnostics.count == 1)

        let quiet = AnnexBReader(bytes: clean)
        while try quiet.next() != nil {}
        #expect(quiet.diagnostics.isEmpty)
    }
}

extension Array {
    fileprivate var only: Element? { count == 1 ? first : nil }
}
