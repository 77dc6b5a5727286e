import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// CAFMuxer's big-endian PCM and reserved `free` space, judged by sndfile-info, ffprobe and ffmpeg.
@Suite(.timeLimit(.minutes(2))) struct CAFMuxerOptionsTests {
    /// `frames` frames of a deterministic ramp in `type`, interleaved stereo, little-endian.
    func ramp(_ type: PCMSampleType, frames: Int) -> MediaSample {
        var bytes: [UInt8] = []
        for i in 0..<frames * 2 {
            let x = Double((i * 7919) % 2001 - 1000) / 1024
            switch type {
            case .s16: withUnsafeBytes(of: Int16(x * 32000).littleEndian) { bytes += $0 }
            case .s24: withUnsafeBytes(of: Int32(x * 8_000_000).littleEndian) { bytes += $0.prefix(3) }
            case .s32: withUnsafeBytes(of: Int32(x * 2_000_000_000).littleEndian) { bytes += $0 }
            case .f32: withUnsafeBytes(of: Float(x).bitPattern.littleEndian) { bytes += $0 }
            case .f64: withUnsafeBytes(of: x.bitPattern.littleEndian) { bytes += $0 }
            case .u8: bytes.append(UInt8(truncatingIfNeeded: i))
            }
        }
        return MediaSample(
            format: .audio(.pcm(PCMFormat(type), sampleRate: 44_100, channels: 2)), data: bytes,
            timing: .audio(startFrame: 0, frameCount: frames, sampleRate: 44_100), frameCount: frames)
    }

    @Test(arguments: [
        (PCMSampleType.s16, "s16be", "pcm_s16be"), (.s24, "s24be", "pcm_s24be"), (.s32, "s32be", "pcm_s32be"),
        (.f32, "f32be", "pcm_f32be"), (.f64, "f64be", "pcm_f64be")
    ])
    func bigEndianPCMIsWhatOtherToolsRead(type: PCMSampleType, rawFormat: String, codec: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("be.caf")
        let sample = ramp(type, frames: 1000)
        let muxer = CAFMuxer(output: try FileOutput(path: path), pcmByteOrder: .bigEndian)
        try muxer.write(sample)
        try muxer.finish()

        let stream = try ExternalTool.probeFirstStream(path)
        #expect(stream["codec_name"] as? String == codec)
        // ffmpeg reads the big-endian data and writes it back as little-endian: our input bytes.
        let decoded = try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-xerror", "-i", path, "-f", rawFormat.replacingOccurrences(of: "be", with: "le"), "-"]
        ).stdout
        #expect(Array(decoded) == sample.data)
        let info = try ExternalTool.check("sndfile-info", [path]).output
        #expect(info.contains("Frames      : 1000"), "\(info)")
        #expect(info.contains("Endian") == false || info.contains("Big"), "\(info)")

        // Our reader gives back the little-endian samples.
        let reader = try CAFReader(path: path)
        #expect(reader.description.formatFlags & CAFAudioDescription.flagIsLittleEndian == 0)
        #expect(try reader.next()?.data == sample.data)
    }

    @Test func reservedSpaceIsAFreeChunkBeforeData() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("free.caf")
        let muxer = CAFMuxer(output: try FileOutput(path: path), reservedSpace: 4096)
        try muxer.write(ramp(.s16, frames: 500))
        try muxer.finish()
        let reader = try CAFReader(path: path)
        #expect(reader.chunks.map(\.type) == ["desc", "free", "data"])
        #expect(reader.chunks.first { $0.type == "free" }?.size == 4096)
        #expect(reader.totalFrames == 500)
        try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
        #expect(try ExternalTool.check("sndfile-info", [path]).output.contains("Frames      : 500"))
    }
}
