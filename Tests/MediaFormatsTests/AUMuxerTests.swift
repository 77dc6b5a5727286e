import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AUMuxer judged by other tools: ffmpeg's AU muxer (byte for byte, to a file and to a pipe), ffmpeg's
/// strict decode, sndfile-info, soxi and ffprobe; SoX's own `.au` for the facts and the data.
@Suite(.timeLimit(.minutes(2))) struct AUMuxerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var pcm: WAVMuxerTests.Case
        var encoding: AUMuxer.Encoding
        var codec: String
        /// What soxi calls the encoding.
        var soxEncoding: String
        var testDescription: String { "\(pcm.testDescription) as \(codec)" }

        init(
            _ type: PCMSampleType, _ layout: ChannelLayout, _ ffmpegLayout: String, rate: Int = 48_000, frames: Int,
            _ encoding: AUMuxer.Encoding = .linear, codec: String, sox: String
        ) {
            pcm = WAVMuxerTests.Case(type: type, layout: layout, ffmpegLayout: ffmpegLayout, rate: rate, frames: frames)
            self.encoding = encoding
            self.codec = codec
            soxEncoding = sox
        }

        var isG711: Bool { encoding != .linear }
        /// Bits per stored sample.
        var bits: Int { isG711 ? 8 : pcm.type.bytesPerSample * 8 }
    }

    static let cases: [Case] = [
        Case(.u8, .mono, "mono", rate: 8_000, frames: 481, codec: "pcm_s8", sox: "Signed Integer PCM"),
        Case(.s16, .stereo, "stereo", rate: 44_100, frames: 1001, codec: "pcm_s16be", sox: "Signed Integer PCM"),
        Case(.s24, .mono, "mono", rate: 44_100, frames: 333, codec: "pcm_s24be", sox: "Signed Integer PCM"),
        Case(.s32, .stereo, "stereo", frames: 1000, codec: "pcm_s32be", sox: "Signed Integer PCM"),
        Case(.f32, .stereo, "stereo", frames: 1234, codec: "pcm_f32be", sox: "Floating Point PCM"),
        Case(.f64, .mono, "mono", rate: 22_050, frames: 500, codec: "pcm_f64be", sox: "Floating Point PCM"),
        Case(.s16, .mono, "mono", rate: 8_000, frames: 801, .muLaw, codec: "pcm_mulaw", sox: "u-law"),
        Case(.s16, .stereo, "stereo", rate: 8_000, frames: 800, .aLaw, codec: "pcm_alaw", sox: "A-law"),
        Case(.s16, .surround51, "5.1", frames: 500, codec: "pcm_s16be", sox: "Signed Integer PCM")
    ]

    @Test(arguments: cases)
    func matchesFFmpegByteForByte(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let pair = try PCMMuxerTest.pair(c.pcm, codec: c.codec, container: "au", in: dir) {
            AUMuxer(output: $0, encoding: c.encoding)
        }
        let ours = try WAVTest.bytes(pair.ours)
        #expect(PCMMuxerTest.firstDifference(ours, try WAVTest.bytes(pair.reference)) == nil)
        let dataSize = c.pcm.frames * c.pcm.layout.channelCount * c.bits / 8
        #expect(ours.count == 32 + dataSize)
        #expect(PCMMuxerTest.be32(ours, at: 8) == UInt32(dataSize))

        let decoded = try PCMMuxerTest.strictDecode(pair.ours, WAVTest.rawFormat(c.pcm.type))
        if c.isG711 {
            #expect(decoded.count == pair.raw.count)
        } else {
            #expect(PCMMuxerTest.firstDifference(decoded, pair.raw) == nil)
        }
        let stream = try ExternalTool.probeFirstStream(pair.ours)
        #expect(stream["codec_name"] as? String == c.codec)
        #expect(stream["sample_rate"] as? String == String(c.pcm.rate))
        #expect(stream["channels"] as? Int == c.pcm.layout.channelCount)
        #expect(try WAVTest.ffprobeFrames(pair.ours) == Int64(c.pcm.frames))

        let sndfile = try PCMMuxerTest.sndfileFacts(pair.ours)
        #expect(sndfile.rate == String(c.pcm.rate))
        #expect(sndfile.frames == String(c.pcm.frames))
        #expect(sndfile.channels == String(c.pcm.layout.channelCount))
        let sox = try PCMMuxerTest.soxFacts(pair.ours)
        #expect(sox.rate == String(c.pcm.rate))
        #expect(sox.channels == String(c.pcm.layout.channelCount))
        #expect(sox.frames == String(c.pcm.frames))
        #expect(sox.bits == String(c.bits))
        #expect(sox.encoding == c.soxEncoding)
    }

    /// Every 16-bit value through our G.711 tables and ffmpeg's `pcm_mulaw`/`pcm_alaw` encoders: the same
    /// 65536 codes.
    @Test(arguments: [(AUMuxer.Encoding.muLaw, "pcm_mulaw"), (.aLaw, "pcm_alaw")])
    func g711CodesAreFFmpegsForEverySixteenBitValue(encoding: AUMuxer.Encoding, codec: String) throws {
        let dir = try TemporaryDirectory()
        let raw: [UInt8] = (0..<65_536).flatMap { i -> [UInt8] in
            let v = UInt16(truncatingIfNeeded: i - 32_768)
            return [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        let rawPath = dir.file("ramp.s16")
        try WAVTest.write(raw, to: rawPath)
        let format = AudioFormat.pcm(.s16, sampleRate: 8_000, channelLayout: .mono)
        let output = MemoryOutput()
        let muxer = AUMuxer(output: output, encoding: encoding)
        for sample in WAVMuxerTests.samples(raw, format: format) { try muxer.write(sample) }
        try muxer.finish()
        let reference = dir.file("ffmpeg.au")
        let c = WAVMuxerTests.Case(type: .s16, layout: .mono, ffmpegLayout: "mono", rate: 8_000, frames: 65_536)
        try WAVTest.ffmpeg(
            PCMMuxerTest.referenceArguments(c, rawPath: rawPath, codec: codec, container: "au") + [reference])
        let theirs = try WAVTest.bytes(reference)
        #expect(output.bytes.count == 32 + 65_536)
        #expect(PCMMuxerTest.firstDifference(output.bytes, theirs) == nil)
    }

    @Test func nonSeekableOutputIsWhatFFmpegWritesToAPipe() throws {
        let dir = try TemporaryDirectory()
        let c = WAVMuxerTests.Case(type: .s24, layout: .stereo, ffmpegLayout: "stereo", rate: 48_000, frames: 1001)
        let (rawPath, raw) = try WAVMuxerTests.rawPCM(c, in: dir)
        let memory = MemoryOutput()
        let muxer = AUMuxer(output: NonSeekableOutput(memory))
        for sample in WAVMuxerTests.samples(
            raw, format: .pcm(PCMFormat(.s24), sampleRate: 48_000, channelLayout: .stereo))
        {
            try muxer.write(sample)
        }
        try muxer.finish()
        #expect(Array(memory.bytes[8..<12]) == [0xFF, 0xFF, 0xFF, 0xFF])  // data size unknown
        #expect(memory.bytes.count == 32 + raw.count)
        let piped = try ExternalTool.check(
            "ffmpeg",
            ["-nostdin", "-v", "error"]
                + PCMMuxerTest.referenceArguments(c, rawPath: rawPath, codec: "pcm_s24be", container: "au") + ["-"]
        ).stdout
        #expect(PCMMuxerTest.firstDifference(memory.bytes, [UInt8](piped)) == nil)
        let path = dir.file("stream.au")
        try WAVTest.write(memory.bytes, to: path)
        // ffmpeg and libsndfile read an unknown size to the end of the file.
        #expect(PCMMuxerTest.firstDifference(try PCMMuxerTest.strictDecode(path, "s24le"), raw) == nil)
        #expect(try PCMMuxerTest.sndfileFacts(path).frames == "1001")
    }

    /// SoX's own `.au` of the same PCM: its header is 44 bytes, with the annotation "Processed by SoX";
    /// the facts and the data are the same.
    @Test(arguments: [PCMSampleType.u8, .s16, .s24, .s32])
    func agreesWithSoX(type: PCMSampleType) throws {
        let dir = try TemporaryDirectory()
        let c = WAVMuxerTests.Case(type: type, layout: .stereo, ffmpegLayout: "stereo", rate: 44_100, frames: 999)
        let (rawPath, raw, ours) = try PCMMuxerTest.muxOurs(c, container: "au", in: dir) { AUMuxer(output: $0) }
        let wav = dir.file("in.wav")
        try WAVTest.ffmpeg([
            "-f", WAVTest.rawFormat(type), "-ar", "44100", "-ac", "2", "-i", rawPath,
            "-c:a", "pcm_" + WAVTest.rawFormat(type), wav
        ])
        let soxFile = dir.file("sox.au")
        try WAVTest.sox([wav, soxFile])
        #expect(try PCMMuxerTest.soxFacts(ours) == (try PCMMuxerTest.soxFacts(soxFile)))
        #expect(try PCMMuxerTest.sndfileFacts(ours) == (try PCMMuxerTest.sndfileFacts(soxFile)))
        let oursBytes = try WAVTest.bytes(ours)
        let soxBytes = try WAVTest.bytes(soxFile)
        // Same encoding, rate and channels; data from each header size on.
        #expect(oursBytes[12..<24] == soxBytes[12..<24])
        let soxHeader = Int(PCMMuxerTest.be32(soxBytes, at: 4))
        #expect(PCMMuxerTest.firstDifference(Array(oursBytes[32...]), Array(soxBytes[soxHeader...])) == nil)
        #expect(oursBytes.count - 32 == raw.count)
    }
}
