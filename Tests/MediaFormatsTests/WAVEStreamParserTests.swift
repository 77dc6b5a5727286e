import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AudioFileStreamParser on WAVE files that ffmpeg, sox and libsndfile wrote, drip-fed: every property
/// against ffprobe's and sndfile-info's numbers, and the packets' bytes against ffmpeg's demuxer.
@Suite(.timeLimit(.minutes(2))) struct WAVEStreamParserTests {
    typealias T = WAVENeXTStreamTest
    typealias ASBD = AudioStreamBasicDescription

    /// What a file should be described as.
    struct Expected: Sendable, CustomTestStringConvertible {
        var tool: String
        var options: [String]
        var formatID: UInt32
        var flags: ASBD.Flags = []
        var bits: UInt32
        var channels: Int
        var testDescription: String { "\(tool) \(options.joined(separator: " ")) \(channels) ch" }
    }

    static let lpcm = ASBD.linearPCM
    static let int: ASBD.Flags = [.isSignedInteger, .isPacked]
    static let float: ASBD.Flags = [.isFloat, .isPacked]

    static let ffmpegCodecs: [(codec: String, formatID: UInt32, flags: ASBD.Flags, bits: UInt32)] = [
        ("pcm_u8", lpcm, .isPacked, 8), ("pcm_s16le", lpcm, int, 16), ("pcm_s24le", lpcm, int, 24),
        ("pcm_s32le", lpcm, int, 32), ("pcm_f32le", lpcm, float, 32), ("pcm_f64le", lpcm, float, 64),
        ("pcm_alaw", ASBD.aLaw, [], 8), ("pcm_mulaw", ASBD.uLaw, [], 8), ("adpcm_ima_wav", ASBD.dviIntelIMA, [], 0)
    ]
    /// Every codec in mono and stereo (ffmpeg's IMA encoder takes no more), and 6 channels
    /// (WAVE_FORMAT_EXTENSIBLE with the 5.1 mask) for a few.
    static let ffmpegCases: [Expected] = ffmpegCodecs.flatMap { c in
        ([1, 2] + (["pcm_u8", "pcm_s24le", "pcm_f64le", "pcm_mulaw"].contains(c.codec) ? [6] : [])).map {
            Expected(
                tool: "ffmpeg", options: [c.codec], formatID: c.formatID, flags: c.flags, bits: c.bits, channels: $0)
        }
    }

    static let soxCases: [Expected] = [
        Expected(
            tool: "sox", options: ["-e", "unsigned", "-b", "8"], formatID: lpcm, flags: .isPacked, bits: 8, channels: 1),
        Expected(tool: "sox", options: ["-e", "signed", "-b", "16"], formatID: lpcm, flags: int, bits: 16, channels: 2),
        Expected(tool: "sox", options: ["-e", "signed", "-b", "24"], formatID: lpcm, flags: int, bits: 24, channels: 1),
        Expected(tool: "sox", options: ["-e", "signed", "-b", "32"], formatID: lpcm, flags: int, bits: 32, channels: 2),
        Expected(
            tool: "sox", options: ["-e", "floating-point", "-b", "32"], formatID: lpcm, flags: float, bits: 32,
            channels: 1),
        Expected(
            tool: "sox", options: ["-e", "floating-point", "-b", "64"], formatID: lpcm, flags: float, bits: 64,
            channels: 2),
        Expected(tool: "sox", options: ["-e", "u-law"], formatID: ASBD.uLaw, bits: 8, channels: 1),
        Expected(tool: "sox", options: ["-e", "a-law"], formatID: ASBD.aLaw, bits: 8, channels: 2),
        Expected(tool: "sox", options: ["-e", "ima-adpcm"], formatID: ASBD.dviIntelIMA, bits: 0, channels: 1),
        Expected(tool: "sox", options: ["-e", "signed", "-b", "24"], formatID: lpcm, flags: int, bits: 24, channels: 6)
    ]

    static let sndfileCases: [Expected] = [
        ("wav", "-pcmu8", lpcm, ASBD.Flags.isPacked, UInt32(8)), ("wav", "-pcm16", lpcm, int, 16),
        ("wav", "-pcm24", lpcm, int, 24),
        ("wav", "-pcm32", lpcm, int, 32), ("wav", "-float32", lpcm, float, 32), ("wav", "-float64", lpcm, float, 64),
        ("wav", "-ulaw", ASBD.uLaw, [], 8), ("wav", "-alaw", ASBD.aLaw, [], 8),
        ("wav", "-ima-adpcm", ASBD.dviIntelIMA, [], 0),
        ("wavex", "-pcm24", lpcm, int, 24), ("wavex", "-float32", lpcm, float, 32), ("wavex", "-ulaw", ASBD.uLaw, [], 8)
    ].map {
        Expected(tool: "sndfile-convert", options: [$0.0, $0.1], formatID: $0.2, flags: $0.3, bits: $0.4, channels: 2)
    }

    /// Makes the file a case describes in `dir`.
    static func make(_ c: Expected, in dir: TemporaryDirectory) throws -> String {
        switch c.tool {
        case "ffmpeg":
            let path = dir.file("in.wav")
            try T.ffmpegNoise(path, codec: c.options[0], channels: c.channels)
            return path
        case "sox":
            let path = dir.file("in.wav")
            try T.soxTone(path, options: c.options, channels: c.channels)
            return path
        default:
            let source = dir.file("source.wav")
            try T.ffmpegNoise(source, codec: "pcm_s16le", channels: c.channels, frames: 999)
            let path = dir.file("out." + c.options[0])
            try T.sndfileConvert(source, path, Array(c.options.dropFirst()))
            return path
        }
    }

    @Test(arguments: ffmpegCases + soxCases + sndfileCases)
    func matchesTheToolsOnFile(_ c: Expected) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.make(c, in: dir)
        try Self.check(path, c)
    }

    /// Checks the parse of `path` against ffprobe, sndfile-info and ffmpeg's demuxer.
    static func check(_ path: String, _ c: Expected) throws {
        let file = try T.bytes(path)
        let report = try T.verified(file, batching: .init(maxBytes: 500))
        let (stream, firstPacket) = try T.probe(path)
        let info = try T.sndfileInfo(path)
        // The data's bytes, where ffprobe says they start and as many as sndfile-info says there are.
        let dataSize = try #require(T.field("data", in: info))
        let demuxed = Array(file[Int(firstPacket)..<Int(firstPacket + dataSize)])
        #expect(report.error == nil)
        let format = try #require(report.format)
        let ima = c.formatID == ASBD.dviIntelIMA

        // The format.
        #expect(report.fileType == .wave)
        #expect(format.formatID == c.formatID)
        #expect(format.flags == c.flags)
        #expect(format.bitsPerChannel == c.bits)
        #expect(format.sampleRate == Double(T.int(stream, "sample_rate") ?? -1))
        #expect(Int(format.channelsPerFrame) == c.channels)
        #expect(T.int(stream, "channels") == Int64(c.channels))
        #expect(T.field("Channels", in: info) == Int64(c.channels))
        #expect(report.layout == T.layout(ffprobeName: stream["channel_layout"] as? String, channels: c.channels))
        if ima {
            #expect(Int64(format.bytesPerPacket) == T.field("Block Align", in: info))
            #expect(Int64(format.framesPerPacket) == T.field("Samples/Block", in: info))
            #expect(format.bytesPerFrame == 0)
        } else {
            #expect(T.int(stream, "bits_per_sample") == Int64(c.bits))
            #expect(format.framesPerPacket == 1)
            #expect(format.bytesPerFrame == format.bytesPerPacket)
            #expect(Int(format.bytesPerPacket) == c.channels * Int(c.bits / 8))
            #expect(report.bitRate.map(Int64.init) == T.int(stream, "bit_rate"))
        }

        // Where the data is and how much there is.
        let packets = Int64(demuxed.count) / Int64(format.bytesPerPacket)
        // IMA: the fact chunk's frame count is the valid frames when it fits the packets (libsndfile
        // writes one block's count for stereo files, which does not, and is ignored with a note).
        let fact = T.field("frames", in: info)
        let factFits =
            fact.map {
                $0 <= packets * Int64(format.framesPerPacket) && $0 > (packets - 1) * Int64(format.framesPerPacket)
            } ?? false
        #expect(report.propertyOrder == T.expectedOrder(packetTable: ima && factFits))
        #expect(report.dataOffset == firstPacket)
        #expect(report.byteCount == T.field("data", in: info))
        #expect(report.byteCount == Int64(demuxed.count))
        #expect(report.packetCount == packets)
        #expect(report.maximumPacketSize == Int(format.bytesPerPacket))
        if ima {
            let expectedRate = (format.sampleRate * Double(format.bytesPerPacket) * 8 / Double(format.framesPerPacket))
                .rounded()
            #expect(report.bitRate == Int(expectedRate))
            if factFits {
                #expect(report.packetTable?.validFrames == fact)
                #expect(report.packetTable?.validFrames == T.int(stream, "duration_ts"))
                #expect(report.packetTable?.primingFrames == 0)
                #expect(report.otherDiagnostics.isEmpty, "\(report.otherDiagnostics)")
            } else {
                #expect(report.packetTable == nil)
                #expect(report.otherDiagnostics.count == 1)
            }
        } else {
            #expect(report.packetCount == T.field("Frames", in: info))
            #expect(report.packetCount == T.int(stream, "duration_ts"))
            #expect(report.otherDiagnostics.isEmpty, "\(report.otherDiagnostics)")
        }

        // The packets: the data's bytes, in batches that follow each other.
        #expect(report.packetBytes == demuxed)
        #expect(report.packets == report.packetCount)
        #expect(report.frames == (report.packetCount ?? -1) * Int64(format.framesPerPacket))
        #expect(ima || report.batches.count > 1)
        var next = (packet: Int64(0), offset: firstPacket)
        for batch in report.batches {
            #expect(batch.firstPacket == next.packet && batch.fileOffset == next.offset && !batch.isDiscontinuity)
            #expect(batch.bytes.count <= 500 || batch.packetCount == 1)
            #expect(batch.bytes.count == batch.packetCount * Int(format.bytesPerPacket))
            next = (next.packet + Int64(batch.packetCount), next.offset + Int64(batch.bytes.count))
        }
        // Only chunks the tools wrote were skipped (LIST, PEAK), with the sizes sndfile-info sees.
        for case .chunkSkipped(let type, _, let size) in report.diagnostics {
            #expect(T.field(type.trimmingCharacters(in: .whitespaces), in: info) == size)
        }
    }

    @Test func extensibleSixChannelsGivesTheMaskedLayoutAndValidBits() throws {
        // 6 channels of 24 valid bits in 32-bit containers, side surrounds: Core Audio's aligned-high lpcm.
        let data = WAVTest.pattern(6 * 4 * 10)
        let body = WAVTest.extensibleBody(channels: 6, bits: 32, validBits: 24, mask: 0x60F)
        let file = WAVTest.riff([WAVTest.chunk("fmt ", body), WAVTest.chunk("bext", [1, 2, 3]), WAVTest.dataChunk(data)]
        )
        let report = try T.verified(file)
        let format = try #require(report.format)
        #expect(format.bitsPerChannel == 24)
        #expect(format.flags == [.isSignedInteger, .isAlignedHigh])
        #expect(format.bytesPerPacket == 24 && format.bytesPerFrame == 24 && format.channelsPerFrame == 6)
        #expect(report.layout == .surround51Side)
        #expect(report.diagnostics == [.chunkSkipped(type: "bext", byteOffset: 60, size: 3)])
        #expect(report.dataOffset == Int64(60 + 12 + 8))
        #expect(report.packetBytes == data && report.packetCount == 10)
        #expect(report.bitRate == 48_000 * 24 * 8)
    }

    @Test func twelveBitPCMIsAlignedHighInTwoBytes() throws {
        let file = WAVTest.riff([
            WAVTest.chunk("fmt ", WAVTest.fmtBody(channels: 2, bits: 12, blockAlign: 4)),
            WAVTest.dataChunk(WAVTest.pattern(40))
        ])
        let format = try #require(try T.verified(file).format)
        #expect(format.bitsPerChannel == 12 && format.bytesPerFrame == 4)
        #expect(format.flags == [.isSignedInteger, .isAlignedHigh])
    }

    @Test func imaFramesComeFromFactWhenTheDataSizeIsOpen() throws {
        // Mono IMA, 256-byte blocks of 505 frames, fact 1000 frames, data size 0 (still being recorded).
        let fmt =
            WAVTest.fmtBody(tag: 0x11, channels: 1, rate: 22_050, bits: 4, blockAlign: 256) + T.le16(2) + T.le16(505)
        let blocks = WAVTest.pattern(512)
        let file = WAVTest.riff([
            WAVTest.chunk("fmt ", fmt), WAVTest.chunk("fact", T.le32(1000)), WAVTest.dataChunk(blocks, declaredSize: 0)
        ])
        let report = try T.verified(file)
        #expect(
            report.format
                == AudioStreamBasicDescription(
                    sampleRate: 22_050, formatID: ASBD.dviIntelIMA, bytesPerPacket: 256, framesPerPacket: 505,
                    bytesPerFrame: 0,
                    channelsPerFrame: 1, bitsPerChannel: 0))
        #expect(report.propertyOrder == T.expectedOrder(byteCount: false, packetTable: true))
        #expect(report.packetCount == 2)
        #expect(
            report.packetTable == AudioFilePacketTableInfo(primingFrames: 0, remainderFrames: 10, validFrames: 1000))
        #expect(report.bitRate == 89_423)  // 22050 × 256 × 8 / 505 = 89422.57
        #expect(report.packetBytes == blocks && report.frames == 1010)
    }

    @Test func ffmpegSixChannelsIsExtensibleWithTheFiveOneMask() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("six.wav")
        try T.ffmpegNoise(path, codec: "pcm_s16le", channels: 6, extra: ["-channel_layout", "5.1(side)"])
        #expect(try T.bytes(path)[20..<22] == [0xFE, 0xFF])
        let report = try T.verified(try T.bytes(path))
        #expect(report.layout == .surround51Side)
        #expect(report.packetBytes == (try T.demuxedBytes(path)))
    }

    @Test func aStreamBeingRecordedRunsToTheEndOfTheInput() throws {
        // ffmpeg writing to a pipe cannot go back to fill in the sizes: RIFF and data say 0xFFFFFFFF.
        let dir = try TemporaryDirectory()
        let path = dir.file("whole.wav")
        try T.ffmpegNoise(path, codec: "pcm_s16le")
        let piped = [UInt8](
            try ExternalTool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-c", "copy", "-f", "wav", "-"])
                .stdout)
        #expect(piped[74..<78] == [0xFF, 0xFF, 0xFF, 0xFF])
        let report = try T.verified(piped)
        #expect(report.propertyOrder == T.expectedOrder(byteCount: false, packetCount: false))
        #expect(report.packetBytes == (try T.demuxedBytes(path)))
        #expect(report.packets == 1001)
        #expect(
            report.otherDiagnostics == [
                .note(
                    "the 'data' chunk's size is 0xFFFFFFFF (a stream being recorded): the audio runs to the end of the input",
                    byteOffset: 70)
            ])
        // Zero, as other writers leave it, means the same.
        var zero = piped
        zero.replaceSubrange(74..<78, with: [0, 0, 0, 0])
        #expect(try T.verified(zero).packetBytes == report.packetBytes)
    }

    @Test func chunksAfterTheDataAndOddSizesArePaddedAndSkipped() throws {
        // 7 mono 8-bit frames: an odd data chunk, its pad byte, then LIST and an odd JUNK, then zero padding.
        let data: [UInt8] = [1, 2, 3, 4, 5, 6, 7]
        let file =
            WAVTest.riff([
                WAVTest.chunk("fmt ", WAVTest.fmtBody(channels: 1, rate: 8_000, bits: 8)), WAVTest.chunk("data", data),
                WAVTest.chunk("LIST", Array("INFOISFT".utf8)), WAVTest.chunk("JUNK", [9])
            ]) + [0, 0, 0, 0, 0]
        let report = try T.verified(file)
        #expect(report.packetBytes == data && report.byteCount == 7 && report.packetCount == 7)
        #expect(
            report.diagnostics == [
                .chunkSkipped(type: "LIST", byteOffset: 52, size: 8),
                .chunkSkipped(type: "JUNK", byteOffset: 68, size: 1),
                .trailingBytesSkipped(byteOffset: 78, count: 5)
            ])
        #expect(report.bitRate == 64_000)
    }

    @Test func seeksExactlyAndResumesThere() throws {
        let (file, data) = WAVTest.simpleFile(frames: 3000)
        var parser = AudioFileStreamParser(batching: .init(maxPackets: 1000))
        #expect(parser.seekOffset(forPacket: 10) == nil)
        parser.push(file.prefix(100))
        while try parser.next() != nil {}
        #expect(
            parser.seekOffset(forPacket: 2500) == AudioFileStreamSeekOffset(byteOffset: 44 + 10_000, isEstimated: false)
        )
        #expect(parser.seekOffset(forPacket: 3001) == nil)
        #expect(parser.seekOffset(forPacket: Int64.max) == nil)
        let target = try parser.seek(toPacket: 2500)
        parser.push(file[Int(target.byteOffset)...])
        parser.finish()
        var batches: [AudioFilePackets] = []
        while let event = try parser.next() { if case .packets(let batch) = event { batches.append(batch) } }
        #expect(batches.count == 1)
        #expect(batches.first?.firstPacket == 2500 && batches.first?.isDiscontinuity == true)
        #expect(batches.first?.fileOffset == 10_044 && batches.first?.bytes == Array(data[10_000...]))
    }
}
