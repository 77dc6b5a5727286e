import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// AIFFMuxer judged by other tools: ffmpeg's AIFF muxer (byte for byte), ffmpeg's strict decode,
/// sndfile-info, soxi and ffprobe.
@Suite(.timeLimit(.minutes(2))) struct AIFFMuxerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var pcm: WAVMuxerTests.Case
        var encoding: AIFFMuxer.Encoding
        /// The codec ffmpeg writes the same PCM with.
        var codec: String
        /// What ffprobe calls the codec when reading the file back.
        var probedCodec: String
        var testDescription: String { "\(pcm.testDescription) as \(codec)" }

        init(
            _ type: PCMSampleType, _ layout: ChannelLayout, _ ffmpegLayout: String, rate: Int = 48_000, frames: Int,
            _ encoding: AIFFMuxer.Encoding = .bigEndian, codec: String, probed: String? = nil
        ) {
            pcm = WAVMuxerTests.Case(type: type, layout: layout, ffmpegLayout: ffmpegLayout, rate: rate, frames: frames)
            self.encoding = encoding
            self.codec = codec
            probedCodec = probed ?? codec
        }

        var isG711: Bool { encoding == .muLaw || encoding == .aLaw }
    }

    static let cases: [Case] = [
        Case(.u8, .mono, "mono", rate: 8_000, frames: 481, codec: "pcm_s8"),  // u8 → signed, odd data: pad byte
        Case(.s16, .stereo, "stereo", rate: 44_100, frames: 1001, codec: "pcm_s16be"),
        Case(.s24, .mono, "mono", rate: 44_100, frames: 333, codec: "pcm_s24be"),  // odd data: pad byte
        Case(.s32, .stereo, "stereo", frames: 1000, codec: "pcm_s32be"),
        Case(.f32, .stereo, "stereo", frames: 1234, codec: "pcm_f32be"),  // AIFC fl32
        Case(.f64, .mono, "mono", rate: 22_050, frames: 500, codec: "pcm_f64be"),  // AIFC fl64
        Case(.s16, .stereo, "stereo", frames: 1000, .littleEndian, codec: "pcm_s16le"),  // AIFC sowt
        Case(.u8, .stereo, "stereo", frames: 700, .littleEndian, codec: "pcm_s8"),  // 8-bit: no byte order
        Case(.s16, .mono, "mono", rate: 8_000, frames: 801, .muLaw, codec: "pcm_mulaw"),  // odd data: pad byte
        Case(.s16, .stereo, "stereo", rate: 8_000, frames: 800, .aLaw, codec: "pcm_alaw"),
        // CHAN: Apple's layout tag for the layouts FFmpeg names, the bitmap for others.
        Case(.s16, .surround51, "5.1", frames: 500, codec: "pcm_s16be"),
        Case(.s16, .surround51Side, "5.1(side)", frames: 500, codec: "pcm_s16be"),
        Case(.s24, .surround71, "7.1", frames: 300, codec: "pcm_s24be"),
        Case(.s16, ChannelLayout(mask: 0x7), "3.0", frames: 400, codec: "pcm_s16be"),
        Case(.s16, ChannelLayout(mask: 0x33), "quad", frames: 400, codec: "pcm_s16be"),
        Case(.f32, ChannelLayout(mask: 0xB), "2.1", frames: 400, codec: "pcm_f32be"),
        Case(.s16, ChannelLayout(mask: 0x707), "6.0", frames: 400, codec: "pcm_s16be")  // bitmap
    ]

    @Test(arguments: cases)
    func matchesFFmpegByteForByte(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let pair = try PCMMuxerTest.pair(c.pcm, codec: c.codec, container: "aiff", in: dir) {
            AIFFMuxer(output: $0, encoding: c.encoding)
        }
        let ours = try WAVTest.bytes(pair.ours)
        #expect(PCMMuxerTest.firstDifference(ours, try WAVTest.bytes(pair.reference)) == nil)
        #expect(ours.count % 2 == 0)

        // ffmpeg decodes our file, strictly, to the input samples (G.711 is lossy: it just decodes).
        let raw = WAVTest.rawFormat(c.pcm.type)
        let decoded = try PCMMuxerTest.strictDecode(pair.ours, raw)
        if c.isG711 {
            #expect(decoded.count == pair.raw.count)
        } else {
            #expect(PCMMuxerTest.firstDifference(decoded, pair.raw) == nil)
        }
        let stream = try ExternalTool.probeFirstStream(pair.ours)
        #expect(stream["codec_name"] as? String == c.probedCodec)
        #expect(stream["sample_rate"] as? String == String(c.pcm.rate))
        #expect(stream["channels"] as? Int == c.pcm.layout.channelCount)

        let sndfile = try PCMMuxerTest.sndfileFacts(pair.ours)
        #expect(sndfile.rate == String(c.pcm.rate))
        #expect(sndfile.frames == String(c.pcm.frames))
        #expect(sndfile.channels == String(c.pcm.layout.channelCount))
        // SoX reads every AIFF and AIFF-C we write except G.711 AIFF-C ("Unsupported AIFC compression type").
        if !c.isG711 {
            let sox = try PCMMuxerTest.soxFacts(pair.ours)
            #expect(sox.rate == String(c.pcm.rate))
            #expect(sox.channels == String(c.pcm.layout.channelCount))
            #expect(sox.frames == String(c.pcm.frames))
            #expect(sox.bits == String(c.pcm.type.bytesPerSample * 8))
            #expect(sox.encoding == (c.pcm.type.isFloat ? "Floating Point PCM" : "Signed Integer PCM"))
        }
    }

    /// The 80-bit extended sample rate, the whole file as ffmpeg writes it, at the usual rates.
    @Test(arguments: [8_000, 11_025, 22_050, 44_100, 48_000, 96_000, 192_000])
    func sampleRateIsEncodedAsFFmpegEncodesIt(rate: Int) throws {
        let dir = try TemporaryDirectory()
        let c = WAVMuxerTests.Case(type: .s16, layout: .mono, ffmpegLayout: "mono", rate: rate, frames: 100)
        let pair = try PCMMuxerTest.pair(c, codec: "pcm_s16be", container: "aiff", in: dir) { AIFFMuxer(output: $0) }
        let ours = try WAVTest.bytes(pair.ours)
        #expect(PCMMuxerTest.firstDifference(ours, try WAVTest.bytes(pair.reference)) == nil)
        #expect(Array(ours[8..<16]) == Array("AIFFCOMM".utf8))
        #expect(try PCMMuxerTest.sndfileFacts(pair.ours).rate == String(rate))
        #expect(try PCMMuxerTest.soxFacts(pair.ours).rate == String(rate))
    }

    /// SoX's own AIFF of the same PCM: it adds a `COMT` chunk ("Processed by SoX", with a time stamp), so
    /// the bytes differ; the facts and the sound data are the same.
    @Test(arguments: [PCMSampleType.u8, .s16, .s24, .s32])
    func agreesWithSoX(type: PCMSampleType) throws {
        let dir = try TemporaryDirectory()
        let c = WAVMuxerTests.Case(type: type, layout: .stereo, ffmpegLayout: "stereo", rate: 44_100, frames: 999)
        let (rawPath, raw, ours) = try PCMMuxerTest.muxOurs(c, container: "aiff", in: dir) { AIFFMuxer(output: $0) }
        let wav = dir.file("in.wav")
        try WAVTest.ffmpeg([
            "-f", WAVTest.rawFormat(type), "-ar", "44100", "-ac", "2", "-i", rawPath,
            "-c:a", "pcm_" + WAVTest.rawFormat(type), wav
        ])
        let soxFile = dir.file("sox.aiff")
        try WAVTest.sox([wav, soxFile])
        #expect(try PCMMuxerTest.soxFacts(ours) == (try PCMMuxerTest.soxFacts(soxFile)))
        #expect(try PCMMuxerTest.sndfileFacts(ours) == (try PCMMuxerTest.sndfileFacts(soxFile)))
        // The SSND payloads: the same bytes after the same 8-byte offset/blockSize header.
        let sound = try Self.soundData(ours)
        #expect(sound.count == raw.count)
        #expect(PCMMuxerTest.firstDifference(sound, try Self.soundData(soxFile)) == nil)
        #expect(
            PCMMuxerTest.firstDifference(try PCMMuxerTest.strictDecode(soxFile, WAVTest.rawFormat(type)), raw) == nil)
    }

    /// The bytes of the SSND chunk after its offset and block size, found by walking the chunks.
    static func soundData(_ path: String) throws -> [UInt8] {
        let bytes = try WAVTest.bytes(path)
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(PCMMuxerTest.be32(bytes, at: offset + 4))
            if Array(bytes[offset..<offset + 4]) == Array("SSND".utf8) {
                return Array(bytes[offset + 16..<min(bytes.count, offset + 8 + size)])
            }
            offset += 8 + size + (size & 1)
        }
        Issue.record("no SSND chunk in \(path)")
        return []
    }
}
