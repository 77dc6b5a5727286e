import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// PCM from WAV, AIFF, CAF, MOV and Matroska comes out little-endian and interleaved, byte for byte
/// what ffmpeg decodes the file to in the matching little-endian format.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerPCMTests {
    struct Case: Sendable, CustomStringConvertible {
        var container: String
        var codec: String
        var sampleType: PCMSampleType
        /// ffmpeg's raw output format with the same layout.
        var rawFormat: String
        var description: String { "\(codec) in .\(container)" }
    }

    static let cases: [Case] = [
        Case(container: "caf", codec: "pcm_s16be", sampleType: .s16, rawFormat: "s16le"),
        Case(container: "caf", codec: "pcm_s24le", sampleType: .s24, rawFormat: "s24le"),
        Case(container: "caf", codec: "pcm_f32be", sampleType: .f32, rawFormat: "f32le"),
        Case(container: "mov", codec: "pcm_s24be", sampleType: .s24, rawFormat: "s24le"),
        Case(container: "mov", codec: "pcm_s32be", sampleType: .s32, rawFormat: "s32le"),
        Case(container: "mkv", codec: "pcm_f32le", sampleType: .f32, rawFormat: "f32le"),
        Case(container: "aiff", codec: "pcm_s24be", sampleType: .s24, rawFormat: "s24le"),
        Case(container: "aiff", codec: "pcm_s8", sampleType: .u8, rawFormat: "u8"),
        Case(container: "wav", codec: "pcm_u8", sampleType: .u8, rawFormat: "u8"),
        Case(container: "wav", codec: "pcm_f64le", sampleType: .f64, rawFormat: "f64le")
    ]

    @Test(arguments: cases)
    func pcmIsLittleEndianInterleavedAsFFmpegDecodesIt(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("pcm.\(c.container)")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1", "-ac", "2",
                "-c:a", c.codec, path
            ])
        let demuxer = try ContainerDemuxer(path: path)
        let stream = try #require(demuxer.streams.first)
        #expect(stream.codecName == c.codec)
        let format = try #require(stream.format?.audio)
        #expect(format == .pcm(PCMFormat(c.sampleType), sampleRate: 44_100, channelLayout: .stereo))
        let source = try demuxer.source(stream: 0)
        var bytes: [UInt8] = []
        var frames = 0
        while let sample = try source.next() {
            #expect(sample.format == .audio(format))
            #expect(sample.frameCount * format.bytesPerFrame == sample.byteCount)
            bytes += sample.data
            frames += sample.frameCount
        }
        #expect(frames == 44_100)
        let decoded = try ExternalTool.decode(path, format: c.rawFormat)
        #expect(Data(bytes) == decoded)
    }
}
