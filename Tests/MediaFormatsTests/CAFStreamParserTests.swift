import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AudioFileStreamParser on CAF files that Apple's writers, ffmpeg and libsndfile made, judged by
/// SOURCES.tsv's facts, ``CAFReader``, ffprobe and ffmpeg's own demuxer; every file drip-fed.
@Suite(.timeLimit(.minutes(2))) struct CAFStreamParserTests {
    typealias T = ContainerStreamTest
    typealias Flags = AudioStreamBasicDescription.Flags

    @Test func appleAACRingReportsSOURCESFacts() throws {
        let file = try WAVTest.bytes(CAFTest.ringPath)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        #expect(s.fileType == .caf)
        let format = try #require(s.format)
        #expect(format.formatIDString == "aac ")
        #expect(format.formatFlags == 2)
        #expect(format.sampleRate == 44_100)
        #expect(format.channelsPerFrame == 2)
        #expect(format.bytesPerPacket == 0)
        #expect(format.framesPerPacket == 1024)
        #expect(format.bitsPerChannel == 0)
        #expect(s.layout == .stereo)
        #expect(s.cookie == [0x12, 0x10])  // the AudioSpecificConfig inside Apple's 39-byte ES_Descriptor
        #expect(s.tableInfo == AudioFilePacketTableInfo(primingFrames: 2112, remainderFrames: 960, validFrames: 88_064))
        #expect(s.packetCount == 89)
        #expect(s.byteCount == 65_454)
        #expect(s.dataOffset == Int64(4096))  // 'data' at 4080, its header and mEditCount
        #expect(s.skippedChunks == ["uuid", "uuid", "info", "free"])
        let reader = try CAFReader(path: CAFTest.ringPath)
        let sizes = try #require(reader.packetTable?.packetSizes)
        #expect(s.packetSizes == sizes)
        #expect(s.maximumPacketSize == sizes.max())
        #expect(s.packets == 89)
        #expect(s.frames == 89 * 1024)
        #expect(s.bytes == Array(file[4096..<4096 + 65_454]))
        #expect(s.batches.allSatisfy { $0.descriptions.allSatisfy { $0.variableFramesInPacket == 0 } })
        let probe = try T.ffprobe(CAFTest.ringPath)
        #expect(T.int(probe["nb_read_packets"]) == 89)
        let ringBitRate: Double = 65_454.0 * 8 / (91_136.0 / 44_100)
        #expect(s.bitRate == Int(ringBitRate.rounded()))  // ffprobe gives none for AAC in CAF
        #expect(s.packetSizes == (try T.ffprobePacketSizes(CAFTest.ringPath)))
        // libsndfile's reading of the same chunks (SOURCES.tsv: sndfile_pakt 89/88064/2112/960).
        let info = { (label: String) in try T.sndfileChunkField(CAFTest.ringPath, label).map(Int64.init) }
        #expect(try info("Packets") == s.packetCount)
        #expect(try info("Valid frames") == s.tableInfo?.validFrames)
        #expect(try info("Priming frames") == s.tableInfo?.primingFrames)
        #expect(try info("Remainder frames") == s.tableInfo?.remainderFrames)
        #expect(try info("edit") == 1)  // a non-zero mEditCount, skipped
        // Exact seek: the packet table's cumulative sizes.
        let (offset, batches) = try T.seek(file, toPacket: 40)
        #expect(offset.byteOffset == 4096 + Int64(sizes.prefix(40).reduce(0, +)))
        #expect(!offset.isEstimated)
        #expect(batches.first?.firstPacket == 40)
        #expect(batches.first?.isDiscontinuity == true)
        #expect(batches.flatMap { $0.descriptions.map(\.dataByteSize) } == Array(sizes[40...]))
    }

    @Test func appleBeepIsLittleEndianS16Mono() throws {
        let file = try WAVTest.bytes(CAFTest.beepPath)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        let format = try #require(s.format)
        #expect(format == .linearPCM(sampleRate: 44_100, channels: 1, bits: 16, float: false, bigEndian: false))
        #expect(format.formatFlags == 0xC)  // Core Audio's signed integer | packed
        #expect(s.packetCount == 5962)
        #expect(s.layout == .mono)
        #expect(s.skippedChunks == ["info", "free"])
        #expect(s.tableInfo == nil)
        #expect(s.bytes == (try WAVTest.ffmpegRaw(CAFTest.beepPath, "s16le")))
        #expect(s.bitRate == 705_600)
        #expect(s.cookie == nil)
    }

    struct Case: Sendable, CustomStringConvertible {
        var codec: String
        var formatID: String = "lpcm"
        var flags: Flags = []
        var bytes: UInt32
        var frames: UInt32 = 1
        var description: String { codec }
    }

    static let ffmpegCases: [Case] = [
        Case(codec: "pcm_s8", flags: [.isSignedInteger, .isPacked], bytes: 2),
        Case(codec: "pcm_s16le", flags: [.isSignedInteger, .isPacked], bytes: 4),
        Case(codec: "pcm_s16be", flags: [.isSignedInteger, .isPacked, .isBigEndian], bytes: 4),
        Case(codec: "pcm_s24le", flags: [.isSignedInteger, .isPacked], bytes: 6),
        Case(codec: "pcm_s24be", flags: [.isSignedInteger, .isPacked, .isBigEndian], bytes: 6),
        Case(codec: "pcm_s32le", flags: [.isSignedInteger, .isPacked], bytes: 8),
        Case(codec: "pcm_s32be", flags: [.isSignedInteger, .isPacked, .isBigEndian], bytes: 8),
        Case(codec: "pcm_f32le", flags: [.isFloat, .isPacked], bytes: 8),
        Case(codec: "pcm_f32be", flags: [.isFloat, .isPacked, .isBigEndian], bytes: 8),
        Case(codec: "pcm_f64le", flags: [.isFloat, .isPacked], bytes: 16),
        Case(codec: "pcm_f64be", flags: [.isFloat, .isPacked, .isBigEndian], bytes: 16),
        Case(codec: "pcm_alaw", formatID: "alaw", bytes: 2),
        Case(codec: "pcm_mulaw", formatID: "ulaw", bytes: 2),
        Case(codec: "adpcm_ima_qt", formatID: "ima4", bytes: 68, frames: 64)
    ]

    @Test(arguments: ffmpegCases) func ffmpegConstantBitRateFile(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.caf")
        try T.ffmpegTone(path, seconds: 0.1, rate: 11_025, ["-c:a", c.codec])
        let file = try WAVTest.bytes(path)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        let format = try #require(s.format)
        #expect(format.formatIDString == c.formatID)
        #expect(format.flags == c.flags)
        #expect(format.bytesPerPacket == c.bytes)
        #expect(format.framesPerPacket == c.frames)
        #expect(format.bytesPerFrame == (c.frames == 1 ? c.bytes : 0))
        #expect(s.maximumPacketSize == Int(c.bytes))
        #expect(s.skippedChunks == ["info"])
        // ffmpeg truncates rate × bytes × 8 / frames (93712.5 for IMA4 here); we round.
        try expectAgreesWithFFmpeg(s, file: file, path: path, bitRateTolerance: 1)
        try expectExactSeek(file, s, toPacket: Int64(s.packets / 2))
    }

    @Test func ffmpegALACHasItsPacketTableAfterTheData() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("alac.caf")
        try T.ffmpegTone(path, seconds: 0.3, rate: 44_100, ["-c:a", "alac"])
        let file = try WAVTest.bytes(path)
        #expect(T.chunks(file, caf: true).map(\.type) == ["desc", "chan", "kuki", "info", "data", "pakt"])
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        let format = try #require(s.format)
        #expect(format.formatIDString == "alac")
        #expect(format.framesPerPacket == 4096)
        let kuki = try #require(T.chunks(file, caf: true).first { $0.type == "kuki" })
        #expect(s.cookie == Array(file[kuki.offset + 12..<kuki.offset + 12 + Int(kuki.size)]))  // as stored
        #expect(s.packetSizes == (try T.ffprobePacketSizes(path)))
        #expect(s.maximumPacketSize == s.packetSizes.max())
        #expect(s.tableInfo?.validFrames == s.frames)
        try expectAgreesWithFFmpeg(s, file: file, path: path, bitRate: false)
        let bits: Double = Double(s.bytes.count) * 8
        let seconds: Double = Double(s.frames) / 44_100
        #expect(s.bitRate == Int((bits / seconds).rounded()))
        // The packets were held until 'pakt'; a seek reads them from the input and meets 'pakt' again.
        let (offset, batches) = try T.seek(file, toPacket: 2)
        #expect(offset.byteOffset == (s.dataOffset ?? 0) + Int64(s.packetSizes[0] + s.packetSizes[1]))
        #expect(batches.flatMap(\.bytes) == Array(s.bytes[(s.packetSizes[0] + s.packetSizes[1])...]))
    }

    @Test func libsndfileALACHasItsPacketTableFirst() throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("src.wav")
        let path = dir.file("sf.caf")
        try WAVTest.sox(["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "0.2", "sine", "440"])
        try ExternalTool.check("sndfile-convert", ["-alac16", wav, path])
        let file = try WAVTest.bytes(path)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        #expect(s.format?.formatIDString == "alac")
        #expect(s.cookie?.count == 24)  // Apple's ALACSpecificConfig without the atom around it
        #expect(s.packetSizes == (try T.ffprobePacketSizes(path)))
        #expect(s.tableInfo?.validFrames == (try T.sndfileInfo(path, "Frames")).map(Int64.init))
        #expect(s.bytes == (try T.ffmpegPackets(path)))
    }

    /// What ffprobe and ffmpeg's demuxer say of `path` is what `s` says.
    func expectAgreesWithFFmpeg(
        _ s: T.Summary, file: [UInt8], path: String, bitRateTolerance: Int = 0, bitRate: Bool = true
    ) throws {
        let format = try #require(s.format)
        let probe = try T.ffprobe(path)
        #expect(T.int(probe["sample_rate"]) == Int(format.sampleRate))
        #expect(T.int(probe["channels"]) == Int(format.channelsPerFrame))
        if bitRate { #expect(abs((T.int(probe["bit_rate"]) ?? -9) - (s.bitRate ?? 0)) <= bitRateTolerance) }
        #expect(T.int(probe["duration_ts"]).map(Int64.init) == s.frames)
        #expect(T.int(probe["nb_read_packets"]).map { $0 > 0 } == true)
        let data = try #require(T.chunks(file, caf: true).first { $0.type == "data" })
        #expect(s.dataOffset == Int64(data.offset + 16))
        #expect(s.bytes == (try T.ffmpegPackets(path)))
        #expect(s.byteCount == Int64(s.bytes.count))
        #expect(s.layout == .stereo)
    }

    /// Seeking to `packet` of constant-size packets: the data's start plus whole packets.
    func expectExactSeek(_ file: [UInt8], _ s: T.Summary, toPacket packet: Int64) throws {
        let format = try #require(s.format)
        let skip = Int(packet) * Int(format.bytesPerPacket)
        let (offset, batches) = try T.seek(file, toPacket: packet)
        #expect(offset.byteOffset == (s.dataOffset ?? 0) + Int64(skip))
        #expect(batches.first?.firstPacket == packet)
        #expect(batches.first?.isDiscontinuity == true)
        #expect(batches.flatMap(\.bytes) == Array(s.bytes[skip...]))
    }
}
