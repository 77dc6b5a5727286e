import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AudioFileStreamParser on NeXT/Sun `.au` files that ffmpeg, sox and libsndfile wrote, drip-fed: the
/// header against sndfile-info and ffprobe, the packets against ffmpeg's raw decode of the file.
@Suite(.timeLimit(.minutes(2))) struct NeXTStreamParserTests {
    typealias T = WAVENeXTStreamTest
    typealias ASBD = AudioStreamBasicDescription

    /// One encoding: how each tool asks for it, and what it should be described as.
    struct Encoding: Sendable {
        var number: Int64
        var ffmpegCodec: String
        var raw: String
        var sox: [String]
        var sndfile: String
        var formatID: UInt32
        var flags: ASBD.Flags
        var bits: UInt32
    }

    static let int: ASBD.Flags = [.isSignedInteger, .isPacked, .isBigEndian]
    static let float: ASBD.Flags = [.isFloat, .isPacked, .isBigEndian]
    static let encodings: [Encoding] = [
        Encoding(
            number: 1, ffmpegCodec: "pcm_mulaw", raw: "mulaw", sox: ["-e", "u-law"], sndfile: "-ulaw",
            formatID: ASBD.uLaw, flags: [], bits: 8),
        Encoding(
            number: 2, ffmpegCodec: "pcm_s8", raw: "s8", sox: ["-e", "signed", "-b", "8"], sndfile: "-pcms8",
            formatID: ASBD.linearPCM, flags: [.isSignedInteger, .isPacked], bits: 8),
        Encoding(
            number: 3, ffmpegCodec: "pcm_s16be", raw: "s16be", sox: ["-e", "signed", "-b", "16"], sndfile: "-pcm16",
            formatID: ASBD.linearPCM, flags: int, bits: 16),
        Encoding(
            number: 4, ffmpegCodec: "pcm_s24be", raw: "s24be", sox: ["-e", "signed", "-b", "24"], sndfile: "-pcm24",
            formatID: ASBD.linearPCM, flags: int, bits: 24),
        Encoding(
            number: 5, ffmpegCodec: "pcm_s32be", raw: "s32be", sox: ["-e", "signed", "-b", "32"], sndfile: "-pcm32",
            formatID: ASBD.linearPCM, flags: int, bits: 32),
        Encoding(
            number: 6, ffmpegCodec: "pcm_f32be", raw: "f32be", sox: ["-e", "floating-point", "-b", "32"],
            sndfile: "-float32", formatID: ASBD.linearPCM, flags: float, bits: 32),
        Encoding(
            number: 7, ffmpegCodec: "pcm_f64be", raw: "f64be", sox: ["-e", "floating-point", "-b", "64"],
            sndfile: "-float64", formatID: ASBD.linearPCM, flags: float, bits: 64),
        Encoding(
            number: 27, ffmpegCodec: "pcm_alaw", raw: "alaw", sox: ["-e", "a-law"], sndfile: "-alaw",
            formatID: ASBD.aLaw, flags: [], bits: 8)
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var tool: String
        var encoding: Encoding
        var channels: Int
        var testDescription: String { "\(tool) encoding \(encoding.number) \(channels) ch" }
    }

    static let cases: [Case] = encodings.flatMap { e in
        [
            Case(tool: "ffmpeg", encoding: e, channels: 1), Case(tool: "ffmpeg", encoding: e, channels: 2),
            Case(tool: "sox", encoding: e, channels: 2), Case(tool: "sndfile-convert", encoding: e, channels: 1)
        ]
    }

    @Test(arguments: cases)
    func matchesTheToolsOnFile(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("out.au")
        switch c.tool {
        case "ffmpeg":
            try T.ffmpegNoise(
                path, codec: c.encoding.ffmpegCodec, channels: c.channels, frames: 777, extra: ["-f", "au"])
        case "sox":
            try T.soxTone(path, options: c.encoding.sox, channels: c.channels)
        default:
            let source = dir.file("source.wav")
            try T.ffmpegNoise(source, codec: "pcm_s16le", channels: c.channels, frames: 555)
            try T.sndfileConvert(source, path, [c.encoding.sndfile])
        }
        let file = try T.bytes(path)
        let info = try T.sndfileInfo(path)
        let (stream, firstPacket) = try T.probe(path)
        let report = try T.verified(file, batching: .init(maxBytes: 500))
        #expect(report.error == nil)
        let format = try #require(report.format)

        #expect(T.field("Encoding", in: info) == c.encoding.number)
        #expect(report.fileType == .next)
        #expect(format.formatID == c.encoding.formatID)
        #expect(format.flags == c.encoding.flags)
        #expect(format.bitsPerChannel == c.encoding.bits && T.int(stream, "bits_per_sample") == Int64(c.encoding.bits))
        #expect(format.sampleRate == Double(T.field("Sample Rate", in: info) ?? -1))
        #expect(format.sampleRate == Double(T.int(stream, "sample_rate") ?? -2))
        #expect(Int64(format.channelsPerFrame) == T.field("Channels", in: info))
        #expect(format.channelsPerFrame == UInt32(c.channels))
        #expect(format.framesPerPacket == 1 && format.bytesPerPacket == format.bytesPerFrame)
        #expect(format.bytesPerPacket == UInt32(c.channels) * c.encoding.bits / 8)
        #expect(report.layout == .default(channelCount: c.channels))
        #expect(report.bitRate.map(Int64.init) == T.int(stream, "bit_rate"))

        #expect(report.propertyOrder == T.expectedOrder())
        #expect(report.dataOffset == T.field("Data Offset", in: info))
        #expect(report.dataOffset == firstPacket)
        #expect(report.byteCount == T.field("Data Size", in: info))
        #expect(report.packetCount == T.field("Frames", in: info))
        #expect(report.packetCount == T.int(stream, "duration_ts"))
        #expect(report.maximumPacketSize == Int(format.bytesPerPacket))

        let raw = [UInt8](
            try ExternalTool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", c.encoding.raw, "-"]).stdout)
        #expect(report.packetBytes == raw)
        #expect(report.packets == report.packetCount && report.batches.count > 1)
        #expect(report.batches.allSatisfy { $0.bytes.count <= 500 && !$0.isDiscontinuity })
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
    }

    @Test func soxsAnnotationIsSkipped() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.au")
        try T.soxTone(path, options: ["-e", "u-law"])
        let file = try T.bytes(path)
        #expect(String(decoding: file[24..<40], as: UTF8.self) == "Processed by SoX")
        let report = try T.verified(file)
        #expect(report.dataOffset == 44 && report.packetBytes == Array(file[44...]))
    }

    @Test func anUnknownSizeRunsToTheEndAndBytesAfterADeclaredSizeAreReported() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("whole.au")
        try T.ffmpegNoise(path, codec: "pcm_s16be", frames: 500, extra: ["-f", "au"])
        let piped = [UInt8](
            try ExternalTool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-c", "copy", "-f", "au", "-"])
                .stdout)
        #expect(piped[8..<12] == [0xFF, 0xFF, 0xFF, 0xFF])
        let open = try T.verified(piped)
        #expect(open.propertyOrder == T.expectedOrder(byteCount: false, packetCount: false))
        #expect(open.packets == 500 && open.packetBytes == Array(piped[32...]))
        #expect(open.diagnostics.isEmpty)

        let file = try T.bytes(path) + [1, 2, 3]
        let report = try T.verified(file)
        #expect(report.packetBytes == Array(file[32..<2032]))
        #expect(report.diagnostics == [.trailingBytesSkipped(byteOffset: 2032, count: 3)])
    }

    @Test func aMegabyteAnnotationIsSkipped() throws {
        // A data offset of 1 MiB: the annotation is skipped as it arrives.
        let data = WAVTest.pattern(200)
        let file = T.auHeader(dataOffset: 1 << 20, dataSize: 200, encoding: 2, channels: 2) + data
        let report = try T.verified(file, byteByByte: false)
        #expect(report.dataOffset == 1 << 20 && report.packetBytes == data && report.packetCount == 100)
    }

    @Test func seeksExactly() throws {
        let data = WAVTest.pattern(6000)
        let file = T.auHeader(dataOffset: 40, dataSize: 6000, encoding: 4, channels: 2) + data
        var parser = AudioFileStreamParser()
        parser.push(file.prefix(40))
        while try parser.next() != nil {}
        #expect(
            parser.seekOffset(forPacket: 999) == AudioFileStreamSeekOffset(byteOffset: 40 + 999 * 6, isEstimated: false)
        )
        #expect(parser.seekOffset(forPacket: 1001) == nil)
        let target = try parser.seek(toPacket: 900)
        parser.push(file[Int(target.byteOffset)...])
        parser.finish()
        var bytes: [UInt8] = []
        var first: Int64?
        while let event = try parser.next() {
            if case .packets(let batch) = event { bytes += batch.bytes; first = first ?? batch.firstPacket }
        }
        #expect(first == 900 && bytes == Array(data[5400...]))
    }
}
