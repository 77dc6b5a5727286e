import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AudioFileStreamParser on RF64 and BW64: files from ffmpeg (`-rf64 always`) and libsndfile whose
/// sizes are in `ds64`, checked against sndfile-info's reading of that chunk and ffprobe, and a
/// synthesized header that claims more than 4 GiB of data.
@Suite(.timeLimit(.minutes(2))) struct WAVEStreamParserRF64Tests {
    typealias T = WAVENeXTStreamTest

    @Test(arguments: ["pcm_s16le", "pcm_f32le", "pcm_mulaw", "adpcm_ima_wav"])
    func ffmpegRF64SizesComeFromDS64(_ codec: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("rf.wav")
        try T.ffmpegNoise(path, codec: codec, extra: ["-rf64", "always"])
        let file = try T.bytes(path)
        #expect(Array(file[0..<4]) == Array("RF64".utf8))
        let info = try T.sndfileInfo(path)
        let (stream, firstPacket) = try T.probe(path)
        let dataSize = try #require(T.field("Data size", in: info))
        let report = try T.verified(file)
        #expect(report.error == nil)
        let format = try #require(report.format)
        #expect(format.sampleRate == 8_000 && format.channelsPerFrame == 2)
        #expect(report.dataOffset == firstPacket)
        #expect(report.byteCount == dataSize)
        #expect(report.packetCount == dataSize / Int64(format.bytesPerPacket))
        #expect(report.packetBytes == Array(file[Int(firstPacket)..<Int(firstPacket + dataSize)]))
        #expect(report.packetBytes == (try T.demuxedBytes(path)))
        if codec == "adpcm_ima_wav" {
            // ffmpeg's RF64 `fact` says 0xFFFFFFFF: the frame count is ds64's.
            #expect(report.packetTable?.validFrames == T.field("Frames", in: info))
            #expect(report.packetTable?.validFrames == T.int(stream, "duration_ts"))
        } else {
            #expect(report.packetCount == T.field("Frames", in: info))
        }
        #expect(report.otherDiagnostics.isEmpty, "\(report.otherDiagnostics)")
    }

    @Test(arguments: ["-pcm24", "-float32", "-alaw"])
    func libsndfileRF64(_ encoding: String) throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("source.wav")
        try T.ffmpegNoise(source, codec: "pcm_s16le", channels: 1, frames: 777)
        let path = dir.file("out.rf64")
        try T.sndfileConvert(source, path, [encoding])
        let file = try T.bytes(path)
        let info = try T.sndfileInfo(path)
        let (_, firstPacket) = try T.probe(path)
        let report = try T.verified(file)
        let dataSize = try #require(T.field("Data size", in: info))
        #expect(report.error == nil)
        #expect(report.dataOffset == firstPacket)
        #expect(report.byteCount == dataSize)
        #expect(report.packetCount == 777 && report.packetCount == T.field("Frames", in: info))
        #expect(report.packetBytes == Array(file[Int(firstPacket)..<Int(firstPacket + dataSize)]))
        #expect(report.layout == .mono)
        // BW64 is the same file with another magic number.
        var bw64 = file
        bw64.replaceSubrange(0..<4, with: Array("BW64".utf8))
        let bw = try T.verified(bw64)
        #expect(bw.events == report.events)
    }

    /// An RF64 header whose ds64 says 5 GiB of s16 stereo data (and 6 GiB of RIFF), a `JUNK` chunk, and
    /// `dataBytes` bytes of that data.
    static func bigHeader(dataBytes: Int, ds64Size: UInt32 = 28) -> (file: [UInt8], dataOffset: Int) {
        let fiveGiB: UInt64 = 5 << 30
        let ds64 = T.le64(6 << 30) + T.le64(fiveGiB) + T.le64(fiveGiB / 4) + T.le32(0)
        let header =
            Array("RF64".utf8) + T.le32(0xFFFF_FFFF) + Array("WAVE".utf8)
            + Array("ds64".utf8) + T.le32(ds64Size) + ds64.prefix(Int(ds64Size))
            + WAVTest.chunk("fmt ", WAVTest.fmtBody()) + WAVTest.chunk("JUNK", [UInt8](repeating: 0, count: 28))
            + Array("data".utf8) + T.le32(0xFFFF_FFFF)
        return (header + WAVTest.pattern(dataBytes), header.count)
    }

    @Test func aDS64OverFourGiBIsReportedAndACutFileEndsWithDataTruncated() throws {
        let (file, dataOffset) = Self.bigHeader(dataBytes: 4002)
        let report = try T.verified(file, batching: .init(maxPackets: 400))
        let fiveGiB: Int64 = 5 << 30
        #expect(report.error == nil)
        #expect(report.propertyOrder == T.expectedOrder())
        #expect(report.byteCount == fiveGiB)
        #expect(report.packetCount == fiveGiB / 4)
        #expect(report.dataOffset == Int64(dataOffset))
        #expect(report.format == .linearPCM(sampleRate: 48_000, channels: 2, bits: 16, float: false, bigEndian: false))
        #expect(report.packets == 1000 && report.batches.count == 3)
        #expect(report.packetBytes == Array(file[dataOffset..<(dataOffset + 4000)]))
        #expect(
            report.diagnostics == [
                .chunkSkipped(type: "JUNK", byteOffset: Int64(dataOffset - 44), size: 28),
                .trailingBytesSkipped(byteOffset: Int64(dataOffset + 4000), count: 2),
                .dataTruncated(byteOffset: Int64(dataOffset), declared: fiveGiB, available: 4002)
            ])
    }

    @Test func seekingPastFourGiBIsExact() throws {
        let (file, dataOffset) = Self.bigHeader(dataBytes: 0)
        var parser = AudioFileStreamParser()
        parser.push(file)
        while try parser.next() != nil {}
        let packet: Int64 = 1_200_000_000
        let target = try #require(parser.seekOffset(forPacket: packet))
        #expect(target == AudioFileStreamSeekOffset(byteOffset: Int64(dataOffset) + packet * 4, isEstimated: false))
        #expect(target.byteOffset > Int64(UInt32.max))
        #expect(parser.seekOffset(forPacket: (5 << 30) / 4 + 1) == nil)
        _ = try parser.seek(toPacket: packet)
        parser.push(WAVTest.pattern(40))
        parser.finish()
        let event = try parser.next()
        guard case .packets(let batch)? = event else {
            Issue.record("expected packets, got \(String(describing: event))")
            return
        }
        #expect(batch.firstPacket == packet && batch.fileOffset == target.byteOffset && batch.isDiscontinuity)
        #expect(batch.bytes == WAVTest.pattern(40))
    }

    @Test func aShortDS64IsInvalidAndAnRF64WithoutOneReadsToTheEnd() throws {
        let short = Self.bigHeader(dataBytes: 8, ds64Size: 16).file
        let error = try #require(try T.verified(short).error)
        #expect(error.code == .invalidData && error.byteOffset == 12)

        // No ds64: the data size of 0xFFFFFFFF means "to the end".
        let data = WAVTest.pattern(400)
        let file =
            Array("RF64".utf8) + T.le32(0xFFFF_FFFF) + Array("WAVE".utf8) + WAVTest.chunk("fmt ", WAVTest.fmtBody())
            + Array("data".utf8) + T.le32(0xFFFF_FFFF) + data
        let report = try T.verified(file)
        #expect(report.error == nil && report.byteCount == nil && report.packetBytes == data)
        #expect(report.propertyOrder == T.expectedOrder(byteCount: false, packetCount: false))
    }
}
