import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct AnnexBMuxerTests {
    /// Reads `bytes` with AnnexBReader and writes the samples back with AnnexBMuxer.
    static func rewrite(_ bytes: [UInt8], accessUnitDelimiters: Bool = false) throws -> (
        samples: [MediaSample], output: [UInt8]
    ) {
        let reader = AnnexBReader(bytes: bytes)
        let output = MemoryOutput()
        let muxer = AnnexBMuxer(output: output, accessUnitDelimiters: accessUnitDelimiters)
        var samples: [MediaSample] = []
        while let sample = try reader.next() {
            samples.append(sample)
            try muxer.write(sample)
        }
        try muxer.finish()
        #expect(muxer.accessUnitCount == Int64(samples.count))
        return (samples, output.bytes)
    }

    /// Read and written back, the stream decodes to the same frames as the original.
    @Test(arguments: ["high", "bframes-hrd", "metadata", "openh264"])
    func roundTripDecodesToTheSameFrames(name: String) throws {
        let original = try H264Fixtures.stream(name).bytes
        let (samples, rewritten) = try Self.rewrite(original)
        let dir = try TemporaryDirectory()
        let originalPath = try writeAnnexBFile(original, "in.h264", in: dir)
        let outputPath = try writeAnnexBFile(rewritten, "out.h264", in: dir)
        let expected = try AnnexBFFmpegView.frameMD5(originalPath)
        #expect(expected.count == 30)
        #expect(try AnnexBFFmpegView.frameMD5(outputPath) == expected)
        // Read back by our reader, the samples are the same.
        #expect(try AnnexBAccessUnitParser.parse(rewritten) == samples)
    }

    /// A stream with SPS and PPS only at the start and an IDR every 10 frames: the rewritten stream has
    /// them before every IDR, and decodes from the second IDR's SPS on.
    @Test func parameterSetsBeforeEveryIDR() throws {
        let input = try AnnexBFixtures.parametersOnlyAtStart(try AnnexBFixtures.bytes("keyint10"))
        let dir = try TemporaryDirectory()
        let inputPath = try writeAnnexBFile(input, "in.h264", in: dir)
        let inputTypes = try AnnexBFFmpegView.tracedNALTypes(inputPath)
        #expect(inputTypes.filter { $0 == 7 }.count == 1)
        #expect(inputTypes.filter { $0 == 5 }.count >= 3)

        let (samples, rewritten) = try Self.rewrite(input)
        let outputPath = try writeAnnexBFile(rewritten, "out.h264", in: dir)
        let types = try AnnexBFFmpegView.tracedNALTypes(outputPath)
        let idrAccessUnits = samples.filter { $0.flags.contains(.keyframe) }.count
        #expect(idrAccessUnits == 3)
        #expect(types.filter { $0 == 7 }.count == idrAccessUnits)
        #expect(types.filter { $0 == 8 }.count == idrAccessUnits)
        // Each SPS is followed by the PPS and then the IDR slice (after any SEI).
        for (index, type) in types.enumerated() where type == 7 {
            #expect(types.dropFirst(index + 1).first == 8)
            #expect(types[(index + 2)...].first { $0 != 6 } == 5)
        }
        let full = try AnnexBFFmpegView.frameMD5(outputPath)
        #expect(full.count == 30)

        // Cut at the second IDR's SPS (its start code): ffmpeg -xerror decodes the rest.
        let spsUnits = try AnnexBScanner.split(rewritten).filter { $0.header.nalUnitType == .sps }
        let cutOffset = Int(try #require(spsUnits.dropFirst().first).offset) - 4
        #expect(Array(rewritten[cutOffset..<cutOffset + 4]) == [0, 0, 0, 1])
        let cutPath = try writeAnnexBFile(Array(rewritten[cutOffset...]), "cut.h264", in: dir)
        let keyIndices = samples.indices.filter { samples[$0].flags.contains(.keyframe) }
        let remaining = samples.count - (try #require(keyIndices.dropFirst().first))
        let cut = try AnnexBFFmpegView.frameMD5(cutPath)
        #expect(cut.count == remaining)
        #expect(AnnexBFFmpegView.md5s(cut) == Array(AnnexBFFmpegView.md5s(full).suffix(remaining)))
    }

    /// With parameter sets already in band, the muxer does not add a second copy.
    @Test func inBandParameterSetsAreNotDuplicated() throws {
        let stream = try H264Fixtures.stream("bframes-hrd").bytes
        let samples = try AnnexBAccessUnitParser.parse(stream)
        let first = try #require(samples.first)
        let parameters = try #require(first.format.video?.h264)
        var payload: [UInt8] = []
        for nal in parameters.sequenceParameterSets + parameters.pictureParameterSets {
            payload += [0, 0, 0, UInt8(nal.count)] + nal
        }
        var inBand = first
        inBand.data = payload + first.data
        let output = MemoryOutput()
        let muxer = AnnexBMuxer(output: output)
        try muxer.write(inBand)
        try muxer.finish()
        let types = try AnnexBScanner.split(output.bytes).map(\.header.nalUnitType.rawValue)
        #expect(types.filter { $0 == 7 }.count == 1)
        #expect(types.filter { $0 == 8 }.count == 1)
        // Every length prefix becomes a start code: 4 bytes for the SPS and PPS (the first NAL units),
        // 3 for the sample's own NAL units after them.
        let sampleNALs = types.count - 2
        #expect(output.bytes.count == payload.count + first.data.count - sampleNALs)
        #expect(Array(output.bytes.prefix(5)) == [0, 0, 0, 1, parameters.sequenceParameterSets[0][0]])
    }

    /// The first NAL unit of every access unit and every SPS/PPS get `00 00 00 01`, the rest `00 00 01`:
    /// what x264 and `ffmpeg -f h264` write, so a rewrite of their stream is byte-identical.
    @Test func startCodeLengthsFollowX264() throws {
        let original = try H264Fixtures.stream("high").bytes
        let (_, rewritten) = try Self.rewrite(original)
        #expect(rewritten == original)
    }

    /// With the option, every access unit starts with an AUD, as trace_headers shows.
    @Test func accessUnitDelimiters() throws {
        let (samples, rewritten) = try Self.rewrite(
            try H264Fixtures.stream("baseline").bytes, accessUnitDelimiters: true)
        let dir = try TemporaryDirectory()
        let path = try writeAnnexBFile(rewritten, "aud.h264", in: dir)
        let types = try AnnexBFFmpegView.tracedNALTypes(path)
        #expect(types.filter { $0 == 9 }.count == samples.count)
        #expect(types.first == 9)
        #expect(try AnnexBFFmpegView.frameMD5(path).count == 30)
        #expect(Array(rewritten.prefix(6)) == [0, 0, 0, 1, 0x09, 0x10])  // primary_pic_type 0: an IDR of I slices
        // The stream with AUDs already in band gets no second one.
        let (metadataSamples, again) = try Self.rewrite(
            try H264Fixtures.stream("metadata").bytes, accessUnitDelimiters: true)
        let againTypes = try AnnexBScanner.split(again).map(\.header.nalUnitType.rawValue)
        #expect(againTypes.filter { $0 == 9 }.count == metadataSamples.count)
    }

    /// The delimiters, `primary_pic_type` included, are those FFmpeg's `h264_metadata=aud=insert` filter
    /// writes: the rewrite of an x264 stream with I, P and B slices is byte-identical to `ffmpeg -c copy
    /// -bsf:v h264_metadata=aud=insert` of it.
    @Test(arguments: ["baseline", "high"]) func accessUnitDelimitersAsFFmpegWritesThem(fixture: String) throws {
        let original = try H264Fixtures.stream(fixture).bytes
        let (samples, rewritten) = try Self.rewrite(original, accessUnitDelimiters: true)
        let dir = try TemporaryDirectory()
        let input = try writeAnnexBFile(original, "in.h264", in: dir)
        let theirs = dir.file("ffmpeg-aud.h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", input, "-c", "copy", "-bsf:v", "h264_metadata=aud=insert", "-f", "h264", theirs
            ])
        #expect(rewritten == [UInt8](try Data(contentsOf: URL(fileURLWithPath: theirs))))
        // Both kinds of picture are there, so more than one primary_pic_type was chosen.
        let delimiters = try AnnexBScanner.split(rewritten).filter { $0.header.nalUnitType.rawValue == 9 }
        #expect(delimiters.count == samples.count)
        #expect(Set(delimiters.map { $0.bytes[1] >> 5 }).count >= 2, "\(delimiters.map { $0.bytes[1] >> 5 })")
    }

    /// The parameter sets of a changed format are written at the next IDR access unit.
    @Test func changedParameterSetsAtTheNextIDR() throws {
        let first = try AnnexBAccessUnitParser.parse(try H264Fixtures.stream("baseline").bytes)
        let second = try AnnexBAccessUnitParser.parse(try H264Fixtures.stream("openh264").bytes)
        let output = MemoryOutput()
        let muxer = AnnexBMuxer(output: output)
        for sample in first + second { try muxer.write(sample) }
        try muxer.finish()
        let spsUnits = try AnnexBScanner.split(output.bytes).filter { $0.header.nalUnitType == .sps }.map(\.bytes)
        let firstSPS = try #require(first.first?.format.video?.h264?.sequenceParameterSets.first)
        let secondSPS = try #require(second.first?.format.video?.h264?.sequenceParameterSets.first)
        #expect(spsUnits.first == firstSPS)
        #expect(spsUnits.contains(secondSPS))
        let read = try AnnexBAccessUnitParser.parse(output.bytes)
        try #require(read.count == 60)
        #expect(read[30].format.video?.width == 640)
    }

    // MARK: - Refusals

    static func h264Sample(_ data: [UInt8]) throws -> MediaSample {
        let sample = try #require(try AnnexBAccessUnitParser.parse(try H264Fixtures.stream("baseline").bytes).first)
        var copy = sample
        copy.data = data
        return copy
    }

    /// A length prefix past the end of the sample: truncated, naming the sample and the offset; nothing
    /// of it written; later writes refused; finish still works.
    @Test func lengthPastTheEnd() throws {
        let good = try #require(try AnnexBAccessUnitParser.parse(try H264Fixtures.stream("baseline").bytes).first)
        let bad = try Self.h264Sample([0, 0, 0, 2, 0x41, 0x9A, 0, 0, 0, 10, 0x41, 0x9A, 0x01])
        let output = MemoryOutput()
        let muxer = CheckedSink(AnnexBMuxer(output: output))  // the guard stamps and refuses what follows
        try muxer.write(good)
        let written = output.bytes.count
        let error = try #require(annexBError { try muxer.write(bad) })
        #expect(error.code == .truncated)
        #expect(error.byteOffset == 6)
        #expect(error.sampleIndex == 1)
        #expect(error.stage == "AnnexBMuxer")
        #expect("\(error)".contains("10 bytes"))
        #expect("\(error)".contains("at byte offset 6 (sample 1)"))
        #expect(output.bytes.count == written)
        #expect(annexBError { try muxer.write(good) }?.code == .stageFinished)
        try muxer.finish()
        #expect(annexBError { try muxer.finish() }?.code == .stageFinished)
    }

    /// A length prefix cut short is refused; a zero length is skipped (AVCCParser's rule, as FFmpeg's
    /// h264_mp4toannexb), so the stream is the one without it.
    @Test func shortAndZeroPrefixes() throws {
        let muxer = AnnexBMuxer(output: MemoryOutput())
        let short = annexBError { try muxer.write(try Self.h264Sample([0, 0, 0, 1, 0x09, 0, 0])) }
        #expect(short?.code == .truncated)
        #expect(short?.byteOffset == 5)
        let muxer2 = CheckedSink(AnnexBMuxer(output: MemoryOutput()))
        let zeroThenCut = annexBError { try muxer2.write(try Self.h264Sample([0, 0, 0, 0, 0x09])) }
        #expect(zeroThenCut?.code == .truncated)
        #expect(zeroThenCut?.byteOffset == 4)
        #expect(zeroThenCut?.sampleIndex == 0)
        let withEmpty = MemoryOutput()
        let plain = MemoryOutput()
        try CheckedSink(AnnexBMuxer(output: withEmpty)).write(try Self.h264Sample([0, 0, 0, 0, 0, 0, 0, 1, 0x09]))
        try CheckedSink(AnnexBMuxer(output: plain)).write(try Self.h264Sample([0, 0, 0, 1, 0x09]))
        #expect(!plain.bytes.isEmpty)
        #expect(withEmpty.bytes == plain.bytes)
    }

    /// Audio, raw video and H.264 without parameter sets: format mismatch.
    @Test func refusesOtherFormats() throws {
        let timing = SampleTiming(presentationTime: .zero, duration: MediaTime(value: 1, timescale: 30))
        let formats: [MediaFormat] = [
            .audio(.pcm(.s16, sampleRate: 48000, channels: 2)),
            .video(.raw(.yuv420p, width: 16, height: 16)),
            .video(VideoFormat(codec: .h264, width: 16, height: 16))
        ]
        for format in formats {
            let muxer = AnnexBMuxer(output: MemoryOutput())
            let sample = MediaSample(format: format, data: [0, 0, 0, 2, 0x09, 0xF0], timing: timing, frameCount: 1)
            let error = annexBError { try muxer.write(sample) }
            #expect(error?.code == .formatMismatch)
            #expect(error?.message.contains("\(format)") == true)
        }
    }

    /// An IDR access unit whose format has no SPS, with none in band.
    @Test func idrWithoutParameterSets() throws {
        var sample = try #require(try AnnexBAccessUnitParser.parse(try H264Fixtures.stream("baseline").bytes).first)
        var format = try #require(sample.format.video)
        format.h264 = H264Parameters(sequenceParameterSets: [], pictureParameterSets: [])
        sample.format = .video(format)
        let output = MemoryOutput()
        let muxer = CheckedSink(AnnexBMuxer(output: output))
        let error = annexBError { try muxer.write(sample) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.sampleIndex == 0)
        #expect(output.bytes.isEmpty)
    }
}
