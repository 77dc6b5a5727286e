import Foundation
import MediaCore
@testable import MediaFormats  // SplitMix64
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct AnnexBReaderTests {
    /// Every stream: the H264Fixtures ones (x264 variants and GStreamer openh264enc) and four slices per frame.
    static let streamNames = [
        "high", "baseline", "bframes-hrd", "metadata", "interlaced", "cropped", "openh264", "slices"
    ]

    static func fixture(_ name: String) throws -> [UInt8] {
        name == "slices" ? try AnnexBFixtures.bytes(name) : try H264Fixtures.stream(name).bytes
    }

    /// Access units, keyframes, size and profile agree with ffprobe's parser and trace_headers.
    @Test(arguments: streamNames)
    func readsWhatFFprobeCounts(name: String) throws {
        let bytes = try Self.fixture(name)
        let dir = try TemporaryDirectory()
        let path = try writeAnnexBFile(bytes, "\(name).h264", in: dir)
        let reader = try AnnexBReader(path: path, readSize: 4096)
        var samples: [MediaSample] = []
        while let sample = try reader.next() { samples.append(sample) }

        let packets = try AnnexBFFmpegView.packets(path)
        #expect(samples.count == packets.count)
        #expect(samples.filter { $0.flags.contains(.keyframe) }.count == packets.keyframes)
        #expect(samples.first?.flags.contains(.keyframe) == true)

        let probe = try ExternalTool.probeFirstStream(path)
        let format = try #require(samples.first?.format.video)
        #expect(format.codec == .h264)
        #expect("\(format.width)" == "\(probe["width"] ?? "")")
        #expect("\(format.height)" == "\(probe["height"] ?? "")")
        let traced = try AnnexBFFmpegView.tracedNALTypes(path)
        let trace = try ExternalTool.check(
            "ffmpeg",
            [
                "-nostats", "-hide_banner", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"
            ]
        ).stderr
        let profile = H264Stream(name: name, bytes: [], probe: [:], trace: trace, avcC: []).traceFirstSPS["profile_idc"]
        #expect(Int64(format.h264?.profile ?? -1) == profile)
        // The payloads hold every NAL unit but SPS, PPS and AUD, in the stream's order.
        let payloadTypes = try samples.flatMap { try annexBPayloadNALTypes($0).map(Int64.init) }
        #expect(payloadTypes == traced.filter { ![7, 8, 9].contains($0) })
        #expect(reader.formatChangeCount == 0)
    }

    /// Whole, byte by byte and in pseudo-random chunks: the same samples.
    @Test(arguments: ["bframes-hrd", "metadata", "slices", "openh264"])
    func chunkingInvariant(name: String) throws {
        let bytes = try Self.fixture(name)
        let (whole, error) = try parseAnnexB(bytes)
        #expect(error == nil)
        #expect(whole.count == 30)
        #expect(try AnnexBAccessUnitParser.parse(bytes) == whole)
        let reader = AnnexBReader(bytes: bytes, readSize: 333)
        var read: [MediaSample] = []
        while let sample = try reader.next() { read.append(sample) }
        #expect(read == whole)
    }

    /// x264's VUI timing gives 30 fps; time stamps count frames in decode order.
    @Test func timingFromTheSPS() throws {
        let samples = try AnnexBAccessUnitParser.parse(try H264Fixtures.stream("bframes-hrd").bytes)
        let rate = try #require(samples.first?.format.video?.frameRate)
        #expect(rate == FrameRate(30, 1))
        for (index, sample) in samples.enumerated() {
            #expect(sample.timing.decodeTime == rate.time(ofFrame: Int64(index)))
            #expect(sample.timing.presentationTime == rate.time(ofFrame: Int64(index)))
            #expect(sample.timing.duration == rate.frameDuration)
        }
    }

    /// The SEI x264 writes stays in the first payload; the AUDs, SPS and PPS are in the format only.
    @Test func payloadKeepsSEIAndFormatHoldsParameterSets() throws {
        let stream = try H264Fixtures.stream("metadata")
        let samples = try AnnexBAccessUnitParser.parse(stream.bytes)
        let first = try #require(samples.first)
        let types = try annexBPayloadNALTypes(first)
        #expect(types.contains(6))
        #expect(types.contains(5))
        let parameters = try #require(first.format.video?.h264)
        #expect(parameters.sequenceParameterSets == [try #require(try stream.firstNAL(.sps)).bytes])
        #expect(parameters.pictureParameterSets == [try #require(try stream.firstNAL(.pps)).bytes])
    }

    /// Two streams back to back: the second one's samples carry its format, and one change is counted.
    @Test func formatChangeIsReported() throws {
        let first = try H264Fixtures.stream("baseline").bytes
        let second = try H264Fixtures.stream("openh264").bytes
        let reader = AnnexBReader(bytes: first + second, readSize: 1000)
        var samples: [MediaSample] = []
        while let sample = try reader.next() { samples.append(sample) }
        try #require(samples.count == 60)
        #expect(reader.formatChangeCount == 1)
        #expect(samples[29].format.video?.width == 1280)
        #expect(samples[30].format.video?.width == 640)
        #expect(samples[30].format.video?.height == 480)
        #expect(samples[30].flags.contains(.keyframe))
        #expect(samples[30].format != samples[29].format)
    }

    // MARK: - Bad input

    /// Slices without an SPS before them: invalid data naming the first slice's offset.
    @Test func noSPSBeforeTheFirstSlice() throws {
        let stream = try H264Fixtures.stream("baseline").bytes
        let nals = try AnnexBScanner.split(stream)
        var stripped: [UInt8] = []
        var firstSliceOffset: Int64?
        for nal in nals where nal.header.nalUnitType != .sps {
            if nal.header.nalUnitType.isVCL && firstSliceOffset == nil { firstSliceOffset = Int64(stripped.count + 4) }
            stripped += [0, 0, 0, 1] + nal.bytes
        }
        let reader = AnnexBReader(bytes: stripped)
        let error = try #require(annexBError { _ = try reader.next() })
        #expect(error.code == .invalidData)
        #expect(error.message.contains("no SPS before the first slice"))
        #expect(error.byteOffset == firstSliceOffset)
        #expect(error.stage == "AnnexBReader")
        // The error stays.
        #expect(annexBError { _ = try reader.next() } == error)
    }

    /// A start code followed only by zero bytes (trailing_zero_8bits, H.264 B.1) between every two NAL
    /// units and at the end: skipped, every frame still comes out.
    @Test func startCodesFollowedOnlyByZerosAreSkipped() throws {
        let bytes = try H264Fixtures.stream("baseline").bytes
        var padded: [UInt8] = []
        for unit in try AnnexBScanner.split(bytes) {
            padded += [0, 0, 0, 1] + unit.bytes + [0, 0, 1, 0, 0, 0, 0]
        }
        let expected = try AnnexBAccessUnitParser.parse(bytes).count
        #expect(expected > 1)
        #expect(try AnnexBAccessUnitParser.parse(padded).count == expected)
    }

    /// Only zero bytes, no start code: not an empty stream.
    @Test func onlyZeros() throws {
        let error = try #require(
            annexBError { _ = try AnnexBAccessUnitParser.parse([UInt8](repeating: 0, count: 5000)) })
        #expect(error.code == .invalidData)
        #expect(error.message.contains("no Annex-B start code in the 5000 bytes"))
        #expect(error.byteOffset == 0)
        #expect(try AnnexBAccessUnitParser.parse([UInt8]()).isEmpty)
    }

    /// Random bytes with a fixed seed: a typed error with an offset, whole and in small chunks.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func garbage(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        let bytes = (0..<20_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let error = try #require(annexBError { _ = try AnnexBAccessUnitParser.parse(bytes) })
        #expect(error.code == .invalidData || error.code == .truncated)
        #expect(error.byteOffset != nil)
        let verified = try parseAnnexB(bytes)  // the same error however the input is split
        #expect(verified.error == error)
    }

    /// Random bytes with a start code every 50 to 250 bytes, so that random NAL units (random types,
    /// parameter sets, slice headers) reach the parser: a typed error with an offset, the same whole and
    /// in small chunks.
    @Test(arguments: [11, 12, 13, 14, 15, 16, 17, 18] as [UInt64])
    func garbageWithStartCodes(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        var bytes: [UInt8] = []
        while bytes.count < 20_000 {
            bytes += [0, 0, 1]
            let length = 50 + Int(generator.next() % 200)
            bytes += (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        }
        let error = try #require(annexBError { _ = try AnnexBAccessUnitParser.parse(bytes) })
        #expect(error.code == .invalidData || error.code == .truncated)
        let offset = try #require(error.byteOffset)
        #expect(offset >= 0 && offset < Int64(bytes.count))
        #expect(try parseAnnexB(bytes).error == error)
    }

    /// A missing file and a read size of 0 are refused when the reader is made.
    @Test func badPathAndReadSize() throws {
        let missing = annexBError { _ = try AnnexBReader(path: "/nonexistent/dir/none.h264") }
        #expect(missing?.code == .io)
        let dir = try TemporaryDirectory()
        let path = try writeAnnexBFile([0, 0, 0, 1, 0x09, 0xF0], "aud.h264", in: dir)
        #expect(annexBError { _ = try AnnexBReader(path: path, readSize: 0) }?.code == .invalidArgument)
        // An access unit delimiter and no slice: no picture, refused every time asked.
        let reader = try AnnexBReader(path: path)
        let error = MediaError.invalidData("the input holds no H.264 picture: 1 NAL unit in 6 bytes, no slice", at: 0)
        #expect(annexBError { _ = try reader.next() } == error.inStage("AnnexBReader"))
        #expect(annexBError { _ = try reader.next() } == error.inStage("AnnexBReader"))
    }

    /// An empty file and one with only the parameter sets (SPS, PPS) of a real stream: a typed error that
    /// says the input holds no H.264, at byte offset 0, as ffmpeg refuses both ("Invalid data found").
    /// (Read as an empty stream, they would have `h264-encoder` write an empty file and exit 0.)
    @Test func emptyAndHeaderOnlyInputsAreRefused() throws {
        let dir = try TemporaryDirectory()
        let empty = try writeAnnexBFile([], "empty.h264", in: dir)
        let emptyReader = try AnnexBReader(path: empty)
        let error = try #require(annexBError { while try emptyReader.next() != nil {} })
        #expect(error == MediaError.invalidData("the input holds no H.264: it is empty", at: 0).inStage("AnnexBReader"))

        let stream = try H264Fixtures.stream("baseline").bytes
        let firstSlice = try #require(try AnnexBScanner.split(stream).first { $0.header.nalUnitType.isVCL })
        let headers = Array(stream[..<Int(firstSlice.offset - 4)])  // cut before the slice's start code
        let headerOnly = try writeAnnexBFile(headers, "headers.h264", in: dir)
        let units = try AnnexBScanner.split(headers).count
        #expect(units >= 2)
        let headerReader = try AnnexBReader(path: headerOnly)
        let error2 = try #require(annexBError { while try headerReader.next() != nil {} })
        #expect(error2.code == .invalidData && error2.byteOffset == 0)
        #expect(error2.message.contains("holds no H.264 picture: \(units) NAL units in \(headers.count) bytes"))
        for path in [empty, headerOnly] {
            let ffmpeg = try ExternalTool.run("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
            #expect(ffmpeg.status != 0, "ffmpeg, too, refuses \(path)")
        }
    }

    /// The stream cut inside the last slice's header, and cut right after a start code.
    @Test func truncatedLastNALUnit() throws {
        let stream = try H264Fixtures.stream("baseline").bytes
        let nals = try AnnexBScanner.split(stream)
        let secondSlice = try #require(nals.filter { $0.header.nalUnitType.isVCL }.dropFirst().first)
        let cut = Array(stream[..<Int(secondSlice.offset + 1)])
        let error = try #require(annexBError { _ = try AnnexBAccessUnitParser.parse(cut) })
        #expect(error.code == .truncated)
        #expect(error.byteOffset == secondSlice.offset + 1)
        #expect(error.message.contains("slice header"))

        let startCodeOnly = Array(stream[..<Int(secondSlice.offset)])
        // A start code with nothing after it at the end: trailing, skipped (H.264 B.1), no error.
        #expect(annexBError { _ = try AnnexBAccessUnitParser.parse(startCodeOnly) } == nil)
    }

    /// A slice naming a PPS id the stream never gave.
    @Test func sliceWithUnknownPPS() throws {
        let stream = try H264Fixtures.stream("baseline").bytes
        let nals = try AnnexBScanner.split(stream)
        let sps = try #require(nals.first { $0.header.nalUnitType == .sps })
        let pps = try #require(nals.first { $0.header.nalUnitType == .pps })
        // An IDR slice header: first_mb_in_slice 0 (1), slice_type 7 (0001000), pic_parameter_set_id 5 (00110), ...
        let slice: [UInt8] = [0x65, 0b1000_1000, 0b0011_0100, 0x00, 0x80]
        let bytes = [0, 0, 0, 1] + sps.bytes + [0, 0, 0, 1] + pps.bytes + [0, 0, 0, 1] + slice
        let error = try #require(annexBError { _ = try AnnexBAccessUnitParser.parse(bytes) })
        #expect(error.code == .invalidData)
        #expect(error.message.contains("PPS 5"))
        #expect(error.byteOffset == Int64(bytes.count - slice.count))
    }
}
