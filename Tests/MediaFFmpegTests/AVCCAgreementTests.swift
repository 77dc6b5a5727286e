import Logging
import MediaCore
import MediaFFmpeg
import MediaFormats
import MediaTestSupport
import Testing

/// The same AVCC samples get the same outcome from H264Decoder and AnnexBMuxer, which both read them
/// with MediaBitstream's AVCCParser: a zero-length NAL unit is skipped by both (as FFmpeg's
/// h264_mp4toannexb does) with a warning, and a length past the end is refused by both at the same offset.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AVCCAgreementTests {
    /// `sample` with a zero-length NAL unit before its first NAL unit and another after its last.
    static func withEmptyNALUnits(_ sample: MediaSample) -> MediaSample {
        var copy = sample
        copy.data = [0, 0, 0, 0] + sample.data + [0, 0, 0, 0]
        return copy
    }

    /// The Annex-B stream AnnexBMuxer writes for `samples`.
    static func annexB(_ samples: [MediaSample], logger: Logger? = nil) throws -> [UInt8] {
        let output = MemoryOutput()
        let muxer = AnnexBMuxer(output: output)
        muxer.logger = logger
        let sink = CheckedSink(muxer)
        for sample in samples { try sink.write(sample) }
        try sink.finish()
        return output.bytes
    }

    @Test func zeroLengthNALUnitsAreSkippedByTheDecoderAndTheMuxerAlike() throws {
        let clean = try H264DecoderLoggingTests.encoded()
        let marked = [0, 5, 12]
        var samples = clean
        for index in marked { samples[index] = Self.withEmptyNALUnits(clean[index]) }

        let decoder = H264Decoder()
        let decoderLog = LogRecords()
        decoder.logger = decoderLog.logger()
        let frames = try Video.run(decoder, samples)
        let reference = try Video.run(H264Decoder(), clean)
        #expect(frames.count == 24)
        #expect(frames.map(\.data) == reference.map(\.data))

        let muxerLog = LogRecords()
        let written = try Self.annexB(samples, logger: muxerLog.logger())
        #expect(written == (try Self.annexB(clean)))
        #expect(!written.isEmpty)

        for (log, stage) in [(decoderLog, "H264Decoder"), (muxerLog, "AnnexBMuxer")] {
            let warnings = log.with(code: "emptyNALUnitsSkipped")
            #expect(warnings.map { $0.metadata["sampleIndex"] } == marked.map { String($0) }, "\(stage)")
            #expect(warnings.allSatisfy { $0.level == .warning && $0.metadata["stage"] == stage }, "\(stage)")
            #expect(warnings.allSatisfy { $0.metadata["byteOffset"] == "0" }, "\(stage)")
            #expect(warnings.first?.message.contains("skipped 2 zero-length AVCC NAL units") == true, "\(stage)")
        }
    }

    @Test func aLengthPastTheEndIsRefusedByBothAtTheSameOffset() throws {
        var samples = try H264DecoderLoggingTests.encoded()
        let offset = Int64(samples[3].data.count)
        samples[3].data += [0, 0, 0, 9, 0x41]  // announces 9 bytes, 1 follows
        var outcomes: [MediaError] = []
        do {
            _ = try Video.run(H264Decoder(), samples)
        } catch let error as MediaError {
            outcomes.append(error)
        }
        do {
            _ = try Self.annexB(samples)
        } catch let error as MediaError {
            outcomes.append(error)
        }
        #expect(outcomes.count == 2)
        for error in outcomes {
            #expect(error.code == .truncated)
            #expect(error.byteOffset == offset)
            #expect(error.sampleIndex == 3)
        }
    }
}
