import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// AudioDecoder's trims, timing, ALAC cookie forms, PCM pass-through and AAC: what it does beyond
/// matching the ffmpeg CLI's samples.
extension AudioDecoderTests {
    static let trimmedCodecs = ["alac.m4a", "ima4.aifc", "ulaw.wav", "mp3.mp3", "aac.m4a"]

    /// Packets of `file` (made as its name says), their trims zeroed; IMA4 packets five to a sample.
    static func untrimmedPackets(_ file: String, in dir: TemporaryDirectory) throws -> [MediaSample] {
        let encoder: [String]
        switch file {
        case "alac.m4a": encoder = ["-c:a", "alac"]
        case "ima4.aifc": encoder = ["-c:a", "adpcm_ima_qt"]
        case "ulaw.wav": encoder = ["-c:a", "pcm_mulaw"]
        case "mp3.mp3": encoder = ["-c:a", "libmp3lame"]
        default: encoder = ["-c:a", "aac"]
        }
        var packets = try DecoderFixture.packets(
            try DecoderFixture.ffmpeg(file, encoder, rate: 44_100, channels: 2, in: dir))
        if file.hasPrefix("ima4") { packets = DecoderFixture.grouped(packets, by: 5) }
        for i in packets.indices {
            packets[i].trimAtStart = 0
            packets[i].trimAtEnd = 0
        }
        return packets
    }

    /// A sample's trims drop exactly those frames of what it decodes to, and move its time stamp past
    /// the ones at its start; a sample trimmed whole emits nothing.
    @Test(arguments: trimmedCodecs)
    func trimsDropExactlyThoseFrames(_ file: String) throws {
        let dir = try TemporaryDirectory()
        var packets = try Self.untrimmedPackets(file, in: dir)
        let whole = try PCM.run(AudioDecoder(outputFormat: .s16), packets)
        #expect(whole.count == packets.count, "one output sample per packet")
        let last = packets.count - 1
        let trims: [Int: (start: Int, end: Int)] = [
            0: (100, 0), 1: (packets[1].frameCount, 0), 2: (10, 20), 3: (0, 7), last: (0, 50)
        ]
        for (index, trim) in trims {
            packets[index].trimAtStart = trim.start
            packets[index].trimAtEnd = trim.end
        }
        let trimmed = try PCM.run(AudioDecoder(outputFormat: .s16), packets)
        #expect(trimmed.count == packets.count - 1, "the sample trimmed whole gives nothing")
        var expected: [MediaSample] = []
        for (index, sample) in whole.enumerated() {
            let trim = trims[index] ?? (0, 0)
            let keep = sample.frameCount - trim.start - trim.end
            guard keep > 0 else { continue }
            var cut = sample
            cut.data = Array(sample.data[(trim.start * 4)..<((trim.start + keep) * 4)])
            cut.frameCount = keep
            cut.timing.presentationTime =
                sample.timing.presentationTime + MediaTime(value: Int64(trim.start), timescale: 44_100)
            expected.append(cut)
        }
        #expect(trimmed.map(\.frameCount) == expected.map(\.frameCount))
        #expect(trimmed.map(\.data) == expected.map(\.data))
        #expect(trimmed.map(\.timing.presentationTime) == expected.map(\.timing.presentationTime))
        #expect(trimmed.reduce(0) { $0 + $1.frameCount } == packets.reduce(0) { $0 + $1.validFrameCount })
    }

    /// ALAC codes a short last packet's length itself: when the sample declares a full frame length
    /// with the rest as `trimAtEnd` (Core Audio's packet table remainder), or declares nothing, the
    /// output is what the packet decodes to; a larger trim cuts the excess.
    @Test func alacShortLastPacketCountsAgainstTheEndTrim() throws {
        let dir = try TemporaryDirectory()
        let path = try DecoderFixture.ffmpeg("alac.caf", ["-c:a", "alac"], rate: 44_100, channels: 2, in: dir)
        var packets = try DecoderFixture.packets(path)
        let decodedLength = try ExternalTool.decode(path, format: "s16le").count / 4
        let remainder = packets.reduce(0) { $0 + $1.frameCount } - decodedLength
        #expect(remainder > 0 && remainder < 4096 && packets.last?.frameCount == 4096)
        for (trim, expected) in [(0, decodedLength), (remainder, decodedLength), (remainder + 40, decodedLength - 40)] {
            packets[packets.count - 1].trimAtEnd = trim
            let decoded = try PCM.run(AudioDecoder(outputFormat: .s16), packets)
            #expect(decoded.reduce(0) { $0 + $1.frameCount } == expected, "trimAtEnd \(trim)")
        }
    }

    /// Output time stamps start at the first kept frame and run on without a gap; a packet without a
    /// time continues from the previous output.
    @Test func timingIsContinuousAndFillsInMissingTimes() throws {
        let dir = try TemporaryDirectory()
        var packets = try DecoderFixture.packets(try DecoderFixture.lame("t.mp3", rate: 44_100, channels: 2, in: dir))
        let priming = packets[0].trimAtStart
        for i in [3, 4, 10] {
            packets[i].timing = SampleTiming(presentationTime: .invalid, decodeTime: .invalid, duration: .invalid)
        }
        let decoded = try PCM.run(AudioDecoder(), packets)
        #expect(decoded.first?.timing.presentationTime == MediaTime(value: Int64(priming), timescale: 44_100))
        var expected = try #require(decoded.first?.timing.presentationTime)
        for sample in decoded {
            #expect(sample.timing.presentationTime == expected)
            #expect(sample.timing.duration == MediaTime(value: Int64(sample.frameCount), timescale: 44_100))
            expected = sample.timing.presentationTime + sample.timing.duration
        }
    }

    /// The ALAC cookie as MP4 holds it (the `alac` atom), bare (CAF's 24 bytes, with or without a
    /// `chan` atom after), and behind a `frma` atom: the same PCM.
    @Test func alacCookieFormsDecodeAlike() throws {
        let dir = try TemporaryDirectory()
        let packets = try DecoderFixture.packets(
            try DecoderFixture.ffmpeg("alac.m4a", ["-c:a", "alac"], rate: 44_100, channels: 2, in: dir))
        let atom = try #require(packets.first?.format.audio?.magicCookie)
        #expect(atom.count == 36 && Array(atom[4..<8]) == Array("alac".utf8))
        let config = Array(atom[12...])
        let chan: [UInt8] = [0, 0, 0, 24] + Array("chan".utf8) + [0, 0, 0, 0, 0, 0x65, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0]
        let frma: [UInt8] = [0, 0, 0, 12] + Array("frma".utf8) + Array("alac".utf8)
        let terminator: [UInt8] = [0, 0, 0, 8, 0, 0, 0, 0]
        let reference = DecoderFixture.bytes(try PCM.run(AudioDecoder(outputFormat: .s16), packets))
        for cookie in [config, config + chan, frma + atom + terminator] {
            let recast = packets.map { packet in
                var copy = packet
                if case .audio(var format) = packet.format {
                    format.magicCookie = cookie
                    copy.format = .audio(format)
                }
                return copy
            }
            let same = DecoderFixture.bytes(try PCM.run(AudioDecoder(outputFormat: .s16), recast)) == reference
            #expect(same, "cookie of \(cookie.count) bytes")
        }
    }

    /// Linear PCM in the requested layout comes out as it went in (the same samples); in another
    /// layout, converted exactly (s16 → float is v / 32768), trims honoured.
    @Test func linearPCMPassesThroughOrIsConverted() throws {
        let input = PCM.sine(frames: 10_000, sampleRate: 44_100, chunk: 3000)
        #expect(try PCM.run(AudioDecoder(outputFormat: .s16), input) == input)

        var trimmed = input
        trimmed[0].trimAtStart = 5
        trimmed[3].trimAtEnd = 7
        let floats = try PCM.run(AudioDecoder(), trimmed)
        #expect(floats.allSatisfy { $0.format.audio?.pcm == .f32Planar && $0.planes.count == 2 })
        #expect(floats.map(\.frameCount) == [2995, 3000, 3000, 993])
        #expect(floats.first?.timing.presentationTime == MediaTime(value: 5, timescale: 44_100))
        let values = DecoderFixture.values(input.flatMap(\.data), as: Int16.self)
        let left = PCM.firstChannel(floats)
        let expected = (5..<(10_000 - 7)).map { Float(values[2 * $0]) / 32_768 }
        #expect(left == expected)
    }

    /// AAC through AudioDecoder is AACDecoder's output, sample for sample.
    @Test func aacDecodesAsAACDecoderDoes() throws {
        let packets = try PCM.run(try AACEncoder(), PCM.sine(frames: 20_000))
        let ours = try PCM.run(AudioDecoder(), packets)
        let theirs = try PCM.run(AACDecoder(), packets)
        #expect(ours == theirs)
        #expect(ours.reduce(0) { $0 + $1.frameCount } == 20_000)
    }

    /// What `canDecode` says about the codecs it takes and some it does not.
    @Test func canDecodeNamesTheCodecsTaken() {
        // A format of codec `code` with a cookie of the right size for ALAC.
        func format(_ code: UInt32, framesPerPacket: Int = 1) -> MediaFormat {
            .audio(
                AudioFormat(
                    codec: .other(fourCC: code), sampleRate: 8000, channelLayout: .mono,
                    framesPerPacket: framesPerPacket,
                    magicCookie: Array(repeating: 0, count: 24)))
        }
        for code in [".mp3", ".mp2", "alac", "ima4", "ulaw", "alaw"] {
            #expect(AudioDecoder.canDecode(format(DecoderFixture.code(code))), "\(code)")
        }
        #expect(AudioDecoder.canDecode(format(0x6D73_0011, framesPerPacket: 505)))
        #expect(!AudioDecoder.canDecode(format(0x6D73_0011, framesPerPacket: 500)), "not 1 + 8n frames a block")
        #expect(
            AudioDecoder.canDecode(
                .audio(.aac(sampleRate: 8000, channelLayout: .mono, audioSpecificConfig: [0x15, 0x88]))))
        #expect(AudioDecoder.canDecode(.audio(.pcm(.s16, sampleRate: 8000, channels: 1))))
        for code in ["flac", "opus", "ac-3", "fLaC", "Opus", "dtsc"] {
            #expect(AudioDecoder.canDecode(format(DecoderFixture.code(code))), "\(code)")
        }
        #expect(!AudioDecoder.canDecode(format(DecoderFixture.code("nmos"))))
        #expect(!AudioDecoder.canDecode(.video(.raw(.yuv420p, width: 2, height: 2))))
    }
}
