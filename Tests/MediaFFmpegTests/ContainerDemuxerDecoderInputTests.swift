import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The samples ContainerDemuxer hands out for the codecs AudioDecoder takes by four-character code
/// carry Core Audio's format id and frames per packet, and frame counts that add up to what the
/// ffmpeg CLI decodes (packets of several blocks counted whole).
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerDecoderInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var encoder: [String]
        var rate: Int
        var channels: Int
        var fourCC: UInt32
        var framesPerPacket: Int
        /// The frames a packet of `bytes` bytes holds, when the codec fixes it.
        var framesOfBytes: (@Sendable (Int) -> Int)?
        var description: String { file }
    }

    static let cases: [Case] = [
        Case(
            file: "a.mp3", encoder: ["-c:a", "libmp3lame"], rate: 44_100, channels: 2, fourCC: 0x2E6D_7033,
            framesPerPacket: 1152),
        Case(
            file: "b.mp3", encoder: ["-c:a", "libmp3lame"], rate: 22_050, channels: 1, fourCC: 0x2E6D_7033,
            framesPerPacket: 576),
        Case(
            file: "a.mp2", encoder: ["-c:a", "mp2"], rate: 48_000, channels: 2, fourCC: 0x2E6D_7032,
            framesPerPacket: 1152),
        Case(
            file: "a.m4a", encoder: ["-c:a", "alac"], rate: 44_100, channels: 2, fourCC: 0x616C_6163,
            framesPerPacket: 4096),
        Case(
            file: "a.aifc", encoder: ["-c:a", "adpcm_ima_qt"], rate: 44_100, channels: 2, fourCC: 0x696D_6134,
            framesPerPacket: 64, framesOfBytes: { $0 / 68 * 64 }),
        Case(
            file: "a.wav", encoder: ["-c:a", "adpcm_ima_wav", "-block_size", "512"], rate: 22_050, channels: 2,
            fourCC: 0x6D73_0011,
            framesPerPacket: 505, framesOfBytes: { $0 / 512 * 505 }),
        Case(
            file: "u.caf", encoder: ["-c:a", "pcm_mulaw"], rate: 8_000, channels: 2, fourCC: 0x756C_6177,
            framesPerPacket: 1, framesOfBytes: { $0 / 2 }),
        Case(
            file: "l.wav", encoder: ["-c:a", "pcm_alaw"], rate: 8_000, channels: 1, fourCC: 0x616C_6177,
            framesPerPacket: 1, framesOfBytes: { $0 })
    ]

    @Test(arguments: cases)
    func samplesCarryTheDecodersContract(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = try DecoderFixture.ffmpeg(c.file, c.encoder, rate: c.rate, channels: c.channels, in: dir)
        let demuxer = try ContainerDemuxer(path: path)
        let format = try #require(demuxer.streams.first?.format?.audio)
        #expect(format.codec == .other(fourCC: c.fourCC))
        #expect(format.framesPerPacket == c.framesPerPacket)
        #expect(format.sampleRate == c.rate && format.channelCount == c.channels)
        let packets = try DecoderFixture.packets(path)
        if let framesOfBytes = c.framesOfBytes {
            #expect(packets.allSatisfy { $0.frameCount == framesOfBytes($0.byteCount) })
        }
        let decoded = try ExternalTool.decode(path, format: "s16le").count / 2 / c.channels
        #expect(packets.reduce(0) { $0 + $1.validFrameCount } == decoded)
    }

    /// FFmpeg's CAF reader gives ALAC packets no duration: each counts as the cookie's frame length.
    @Test func alacInCAFCountsFullFrames() throws {
        let dir = try TemporaryDirectory()
        let path = try DecoderFixture.ffmpeg("a.caf", ["-c:a", "alac"], rate: 44_100, channels: 2, in: dir)
        let packets = try DecoderFixture.packets(path)
        #expect(packets.first?.format.audio?.framesPerPacket == 4096)
        #expect(packets.allSatisfy { $0.frameCount == 4096 })
        #expect(packets.count == (44_100 + 4095) / 4096)
    }
}
