import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AudioFileStreamParser on AIFF and AIFF-C files that ffmpeg, sox and libsndfile wrote, judged by
/// ffprobe, ffmpeg's own demuxer (`-c copy -f data`) and sndfile-info; every file drip-fed.
@Suite(.timeLimit(.minutes(2))) struct AIFFStreamParserTests {
    typealias T = ContainerStreamTest
    typealias Flags = AudioStreamBasicDescription.Flags

    struct Case: Sendable, CustomStringConvertible {
        var codec: String
        var rate: Int = 8000
        var fileType: AudioFileType
        var formatID: String
        var flags: Flags = []
        var bits: UInt32
        /// Bytes per packet and channel.
        var bytes: UInt32
        var frames: UInt32 = 1
        var description: String { codec }
    }

    static let ffmpegCases: [Case] = [
        Case(
            codec: "pcm_s8", fileType: .aiff, formatID: "lpcm", flags: [.isSignedInteger, .isPacked], bits: 8, bytes: 1),
        Case(
            codec: "pcm_s16be", rate: 44_100, fileType: .aiff, formatID: "lpcm",
            flags: [.isSignedInteger, .isPacked, .isBigEndian], bits: 16, bytes: 2),
        Case(
            codec: "pcm_s24be", rate: 48_000, fileType: .aiff, formatID: "lpcm",
            flags: [.isSignedInteger, .isPacked, .isBigEndian], bits: 24, bytes: 3),
        Case(
            codec: "pcm_s32be", rate: 96_000, fileType: .aiff, formatID: "lpcm",
            flags: [.isSignedInteger, .isPacked, .isBigEndian], bits: 32, bytes: 4),
        Case(
            codec: "pcm_f32be", fileType: .aifc, formatID: "lpcm", flags: [.isFloat, .isPacked, .isBigEndian], bits: 32,
            bytes: 4),
        Case(
            codec: "pcm_f64be", rate: 11_025, fileType: .aifc, formatID: "lpcm",
            flags: [.isFloat, .isPacked, .isBigEndian], bits: 64, bytes: 8),
        Case(codec: "pcm_alaw", fileType: .aifc, formatID: "alaw", bits: 8, bytes: 1),
        Case(codec: "pcm_mulaw", fileType: .aifc, formatID: "ulaw", bits: 8, bytes: 1),
        Case(
            codec: "pcm_s16le", rate: 22_050, fileType: .aifc, formatID: "lpcm", flags: [.isSignedInteger, .isPacked],
            bits: 16, bytes: 2),
        Case(codec: "adpcm_ima_qt", rate: 22_050, fileType: .aifc, formatID: "ima4", bits: 0, bytes: 34, frames: 64)
    ]

    @Test(arguments: ffmpegCases) func ffmpegFile(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.aiff")
        try T.ffmpegTone(path, seconds: 0.15, rate: c.rate, ["-c:a", c.codec, "-f", "aiff"])
        let file = try WAVTest.bytes(path)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        #expect(s.fileType == c.fileType)
        let format = try #require(s.format)
        #expect(format.formatIDString == c.formatID)
        #expect(format.flags == c.flags)
        #expect(format.bitsPerChannel == c.bits)
        #expect(format.bytesPerPacket == 2 * c.bytes)
        #expect(format.framesPerPacket == c.frames)
        #expect(format.bytesPerFrame == (c.frames == 1 ? 2 * c.bytes : 0))
        #expect(s.layout == .stereo)
        #expect(s.maximumPacketSize == Int(2 * c.bytes))
        try expectAgreesWithFFmpeg(s, file: file, path: path)
        if c.fileType == .aifc { #expect(s.skippedChunks == ["FVER"]) } else { #expect(s.skippedChunks.isEmpty) }
        // ima4: ffmpeg writes the packet count in numSampleFrames.
        #expect(s.packetCount == Int64(s.packets))
        try expectExactSeek(file, s, toPacket: Int64(s.packets / 3))
    }

    /// What ffprobe and ffmpeg's demuxer say of `path` is what `s` says.
    func expectAgreesWithFFmpeg(_ s: T.Summary, file: [UInt8], path: String) throws {
        let format = try #require(s.format)
        let probe = try T.ffprobe(path)
        #expect(T.int(probe["sample_rate"]) == Int(format.sampleRate))
        #expect(T.int(probe["channels"]) == Int(format.channelsPerFrame))
        #expect(T.int(probe["bit_rate"]) == s.bitRate)
        #expect(T.int(probe["duration_ts"]).map(Int64.init) == s.frames)
        #expect(s.packetCount.map { $0 * Int64(format.framesPerPacket) } == s.frames)
        let ssnd = try #require(T.chunks(file, caf: false).first { $0.type == "SSND" })
        #expect(s.dataOffset == Int64(ssnd.offset + 16))
        #expect(s.bytes == (try T.ffmpegPackets(path)))
        #expect(s.byteCount == Int64(s.bytes.count))
        #expect(s.batches.first?.fileOffset == s.dataOffset)
        #expect(s.diagnostics.allSatisfy { if case .chunkSkipped = $0 { true } else { false } })
    }

    /// Seeking to `packet`: the offset is the data's start plus whole packets, and the packets from there
    /// are the file's.
    func expectExactSeek(_ file: [UInt8], _ s: T.Summary, toPacket packet: Int64) throws {
        let format = try #require(s.format)
        let dataOffset = try #require(s.dataOffset)
        let (offset, batches) = try T.seek(file, toPacket: packet)
        let skip = Int(packet) * Int(format.bytesPerPacket)
        #expect(offset == AudioFileStreamSeekOffset(byteOffset: dataOffset + Int64(skip), isEstimated: false))
        #expect(batches.first?.firstPacket == packet)
        #expect(batches.first?.isDiscontinuity == true)
        #expect(batches.dropFirst().allSatisfy { !$0.isDiscontinuity })
        #expect(batches.flatMap(\.bytes) == Array(s.bytes[skip...]))
    }

    @Test func soxEightBitOddSizeWithComment() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("sox8.aiff")
        try WAVTest.sox(["-n", "-r", "11025", "-c", "1", "-b", "8", path, "synth", "111s", "sine", "440"])
        let file = try WAVTest.bytes(path)
        let ssnd = try #require(T.chunks(file, caf: false).first { $0.type == "SSND" })
        #expect(ssnd.size % 2 == 1)  // 111 frames: the pad byte follows
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        #expect(s.format == .linearPCM(sampleRate: 11_025, channels: 1, bits: 8, float: false, bigEndian: true))
        #expect(s.format?.flags.contains(.isSignedInteger) == true)  // 8-bit AIFF is signed
        #expect(s.skippedChunks == ["COMT"])
        #expect(s.bytes == (try [UInt8](ExternalTool.check("sox", [path, "-t", "s8", "-"]).stdout)))
        // sndfile-info exits 0 and reads the same file: AIFF, signed 8-bit (SF_FORMAT_AIFF | SF_FORMAT_PCM_S8),
        // one channel at 11025 Hz, as many frames as the parser's packets and the data's bytes.
        let info = try T.sndfileSummary(path)
        #expect(info["Format"] == "0x00020001", "\(info)")
        #expect(info["Channels"] == "1" && info["Sample Rate"] == "11025", "\(info)")
        let frames = try #require(info["Frames"].flatMap { Int($0) }, "\(info)")
        #expect(frames > 0 && frames == s.bytes.count)
        #expect(s.packetCount.map(Int.init) == frames)
        #expect(s.layout == .mono)
        try expectAgreesWithFFmpeg(s, file: file, path: path)
    }

    @Test func soxFloatAIFCWithCompressionName() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("soxf.aifc")
        try WAVTest.sox([
            "-n", "-r", "12000", "-c", "3", "-e", "floating-point", "-b", "32", path, "synth", "0.02", "sine", "440"
        ])
        let file = try WAVTest.bytes(path)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        #expect(s.fileType == .aifc)
        #expect(s.format == .linearPCM(sampleRate: 12_000, channels: 3, bits: 32, float: true, bigEndian: true))
        #expect(s.layout == .default(channelCount: 3))
        try expectAgreesWithFFmpeg(s, file: file, path: path)
    }

    static let sndfileCases: [(option: String, formatID: String, bits: UInt32, flags: Flags)] = [
        ("pcms8", "lpcm", 8, [.isSignedInteger, .isPacked]),
        ("pcmu8", "lpcm", 8, [.isPacked]),  // AIFC 'raw '
        ("pcm24", "lpcm", 24, [.isSignedInteger, .isPacked, .isBigEndian]),
        ("pcm32", "lpcm", 32, [.isSignedInteger, .isPacked, .isBigEndian]),
        ("float32", "lpcm", 32, [.isFloat, .isPacked, .isBigEndian]),  // 'FL32', with a PEAK chunk
        ("float64", "lpcm", 64, [.isFloat, .isPacked, .isBigEndian]),
        ("ulaw", "ulaw", 8, []),
        ("alaw", "alaw", 8, [])
    ]

    @Test(arguments: sndfileCases) func sndfileConvertFile(
        _ c: (option: String, formatID: String, bits: UInt32, flags: Flags)
    ) throws {
        let dir = try TemporaryDirectory()
        let wav = dir.file("src.wav")
        let path = dir.file("sf.aiff")
        try WAVTest.sox(["-n", "-r", "44100", "-c", "2", wav, "synth", "0.03", "sine", "440"])
        try ExternalTool.check("sndfile-convert", ["-" + c.option, wav, path])
        let file = try WAVTest.bytes(path)
        let (s, error) = try T.verified(file)
        #expect(error == nil)
        let format = try #require(s.format)
        #expect(format.formatIDString == c.formatID)
        #expect(format.bitsPerChannel == c.bits)
        #expect(format.flags == c.flags)
        #expect(s.packetCount.map(Int.init) == (try T.sndfileInfo(path, "Frames")))
        #expect(Int(format.sampleRate) == (try T.sndfileInfo(path, "Sample Rate")))
        #expect(Int(format.channelsPerFrame) == (try T.sndfileInfo(path, "Channels")))
        #expect(s.skippedChunks.contains("CHAN"))
        #expect(s.skippedChunks.contains("PEAK") == c.option.hasPrefix("float"))
        try expectAgreesWithFFmpeg(s, file: file, path: path)
    }

    @Test func smallBatchesSplitTheSameData() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.aiff")
        try T.ffmpegTone(path, seconds: 0.05, ["-c:a", "pcm_s16be", "-f", "aiff"])
        let file = try WAVTest.bytes(path)
        let (s, _) = try T.verified(file, batching: .init(maxBytes: 1000, maxPackets: 100))
        #expect(s.batches.allSatisfy { $0.packetCount <= 100 && $0.bytes.count <= 1000 })
        #expect(s.batches.dropLast().allSatisfy { $0.packetCount == 100 })
        #expect(s.bytes == (try T.ffmpegPackets(path)))
        #expect(
            zip(s.batches, s.batches.dropFirst()).allSatisfy {
                $0.firstPacket + Int64($0.packetCount) == $1.firstPacket
            })
    }
}
