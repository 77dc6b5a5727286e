import Foundation
import MediaCore
import MediaFFmpeg
import MediaFormats
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct H264DecoderTests {
    /// Our encoder's output at a high bit rate decodes to every frame, the right size and times, within
    /// 35 dB luma PSNR of the source, and to exactly the frames ffmpeg decodes from the same stream.
    @Test func decodesOurEncoderOutput() throws {
        let clip = try VideoClip(count: 24)
        var settings = H264Encoder.Settings()
        settings.preset = "veryfast"
        settings.averageBitRate = 4_000_000
        settings.maxBFrames = 3
        let encoded = try Video.run(try H264Encoder(settings: settings), clip.frames)
        let decoded = try Video.run(H264Decoder(), encoded)
        #expect(decoded.count == 24)
        var expected = VideoFormat.raw(.yuv420p, width: 320, height: 240, frameRate: FrameRate(24))
        expected.chromaLocation = .left  // H.264's default, which FFmpeg's decoder reports
        #expect(decoded.allSatisfy { $0.format == .video(expected) })
        #expect(decoded.map(\.timing.presentationTime) == clip.frames.map(\.timing.presentationTime))
        for (source, frame) in zip(clip.frames, decoded) {
            let psnr = Video.lumaPSNR(source, frame)
            #expect(psnr >= 35, "PSNR \(psnr) dB at \(frame.timing.presentationTime)")
        }
        let path = clip.dir.file("ours.h264")
        try Video.write(Video.annexB(encoded), to: path)
        #expect(try Video.frameHashes(path) == decoded.map(Self.md5))
    }

    /// The CLI's own stream (parameter sets in-band, read into AVCC samples by the test helper) decodes
    /// to the frames ffmpeg decodes from it.
    @Test func decodesTheCLIStream() throws {
        let clip = try VideoClip(count: 30)
        let path = clip.dir.file("cli.h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", clip.y4mPath, "-c:v", "libx264", "-preset", "veryfast", "-b:v", "3M", "-g", "10",
                "-f", "h264", path
            ])
        let samples = Video.avccSamples(
            annexB: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), width: 320, height: 240, rate: clip.rate)
        #expect(samples.count == 30)
        let decoded = try Video.run(H264Decoder(), samples)
        #expect(decoded.count == 30)
        #expect(
            decoded.allSatisfy {
                $0.format.video?.width == 320 && $0.format.video?.height == 240
                    && $0.planes.map(\.count) == [76_800, 19_200, 19_200]
            })
        #expect(try Video.frameHashes(path) == decoded.map(Self.md5))
        #expect(zip(clip.frames, decoded).allSatisfy { Video.lumaPSNR($0, $1) >= 35 })
    }

    /// Where FFmpeg's rows are tightly packed (1024 and 512 bytes: a multiple of any line-size
    /// alignment), the frames borrow the decoder's own buffers instead of copies; they stay valid
    /// after the decoder is gone, while the decoder reuses its buffers for the frames that follow,
    /// and equal ffmpeg's frames. At 320×240 (chroma rows of 160 bytes) they are packed copies.
    @Test(arguments: [(1024, 64, true), (320, 240, false)])
    func packedFramesAreBorrowedNotCopied(width: Int, height: Int, borrowedWhenPacked: Bool) throws {
        let clip = try VideoClip(width: width, height: height, count: 12)
        let path = clip.dir.file("cli.h264")
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-i", clip.y4mPath, "-c:v", "libx264", "-preset", "veryfast", "-g", "5", "-f", "h264", path]
        )
        let samples = Video.avccSamples(
            annexB: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), width: width, height: height,
            rate: clip.rate)
        let decoded = try Video.run(H264Decoder(), samples)  // every frame held, the decoder gone
        #expect(decoded.count == 12)
        if borrowedWhenPacked {
            #expect(decoded.allSatisfy { $0.borrowsMemory })
            let addresses = Set(decoded.map { frame in frame.withUnsafeBytes(plane: 0) { $0.baseAddress } })
            #expect(addresses.count == 12)  // one buffer per frame held: none was reused under a holder
        } else {
            #expect(!decoded.contains { $0.borrowsMemory })
        }
        #expect(try Video.frameHashes(path) == decoded.map(Self.md5))
    }

    /// AnnexBReader → H264Decoder → Y4MMuxer writes the bytes of `ffmpeg -i x.h264 -f yuv4mpegpipe`:
    /// frames, order and header (size, rate, the SPS's pixel aspect ratio, H.264's chroma siting).
    @Test func decodingToY4MMatchesTheCLI() throws {
        let clip = try VideoClip(count: 20)
        let path = clip.dir.file("cli.h264")
        // x264 with B-frames, from a y4m whose A1:1 reaches the SPS.
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-i", clip.y4mPath, "-c:v", "libx264", "-preset", "veryfast", "-g", "8", "-f", "h264", path]
        )
        let reader = try AnnexBReader(path: path)
        let decoder = H264Decoder()
        let output = MemoryOutput()
        let muxer = Y4MMuxer(output: output)
        while let accessUnit = try reader.next() { try decoder.process(accessUnit, into: { try muxer.write($0) }) }
        try decoder.finish(into: { try muxer.write($0) })
        try muxer.finish()
        #expect(muxer.frameCount == 20)
        let cli = try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-f", "yuv4mpegpipe", "-"]).stdout
        #expect(
            String(decoding: output.bytes.prefix { $0 != 0x0A }, as: UTF8.self)
                == String(decoding: cli.prefix { $0 != 0x0A }, as: UTF8.self))
        #expect(output.bytes == [UInt8](cli))
    }

    @Test func rejectsBadInput() throws {
        let raw = try VideoClip(count: 1).frames[0]
        #expect { try Video.run(H264Decoder(), [raw]) } throws: { ($0 as? MediaError)?.code == .formatMismatch }
        let clip = try VideoClip(count: 3)
        var encoded = try Video.run(try H264Encoder(), clip.frames)
        encoded[1].data = [0, 0, 1, 0] + encoded[1].data  // a length past the end
        #expect { try Video.run(H264Decoder(), encoded) } throws: { ($0 as? MediaError)?.sampleIndex == 1 }
    }

    /// A stream whose parameter sets change mid-way (Main, then High profile) decodes whole: the new
    /// SPS/PPS are fed in-band before the first sample that carries them.
    @Test func parameterSetChange() throws {
        let clip = try VideoClip(count: 20)
        var main = H264Encoder.Settings()
        main.profile = "main"
        main.preset = "veryfast"
        var high = main
        high.profile = "high"
        let first = try Video.run(try H264Encoder(settings: main), Array(clip.frames.prefix(10)))
        let second = try Video.run(try H264Encoder(settings: high), Array(clip.frames.suffix(10)))
        #expect(first.first?.format.video?.h264 != second.first?.format.video?.h264)
        let decoded = try Video.run(H264Decoder(), first + second)
        #expect(decoded.count == 20)
        #expect(decoded.map(\.timing.presentationTime) == clip.frames.map(\.timing.presentationTime))
        let path = clip.dir.file("both.h264")
        try Video.write(Video.annexB(first) + Video.annexB(second), to: path)
        #expect(try Video.frameHashes(path) == decoded.map(Self.md5))
    }

    /// A 10-bit (High 10) stream decodes to yuv420p10le frames, the same as ffmpeg's (framemd5 of the
    /// 16-bit little-endian planes), not refused as an unsupported format.
    @Test func tenBitDecodesToTheSameFramesAsFFmpeg() throws {
        let clip = try VideoClip(count: 2)
        let path = clip.dir.file("10bit.h264")
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-i", clip.y4mPath, "-c:v", "libx264", "-pix_fmt", "yuv420p10le", "-f", "h264", path])
        let samples = Video.avccSamples(
            annexB: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), width: 320, height: 240, rate: clip.rate)
        #expect(samples.count == 2)
        let decoded = try Video.run(H264Decoder(), samples)
        #expect(decoded.map(\.format.video?.pixelFormat) == [.yuv420p10le, .yuv420p10le])
        #expect(decoded.first?.planes.map(\.count) == [320 * 2 * 240, 160 * 2 * 120, 160 * 2 * 120])
        #expect(try Video.frameHashes(path) == decoded.map(Self.md5))
    }

    /// A raw `.h264` has no times: ContainerDemuxer times it in decode order (presentation = decode
    /// time, decode times from the reorder delay before zero, as the ffmpeg CLI does), AnnexBReader
    /// likewise from zero, and `ffmpeg -c copy` writes such times into an MP4. With B-frames the
    /// frames come out of the decoder in another order than those times; it times them by decode time
    /// instead, as the CLI does: from the demuxer at exactly 0, 1, 2, ... frame durations, the frames
    /// being the CLI's; from the others strictly increasing, every frame there.
    @Test(arguments: [0, 3]) func untimedRawStreamDecodesInPresentationOrder(bFrames: Int) throws {
        let clip = try VideoClip(count: 30)
        let path = clip.dir.file("bf\(bFrames).h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", clip.y4mPath, "-c:v", "libx264", "-preset", "veryfast", "-bf", "\(bFrames)", "-g",
                "12",
                "-f", "h264", path
            ])
        let copy = clip.dir.file("copy.mp4")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-c", "copy", copy])
        let hashes = try Video.frameHashes(path)
        #expect(hashes.count == 30)

        let demuxed = try Self.samples(of: ContainerDemuxer.streamSource(path: path, stream: 0))
        let decoded = try Video.run(H264Decoder(), demuxed)
        #expect(decoded.map(\.timing.presentationTime) == (0..<30).map { clip.rate.time(ofFrame: Int64($0)) })
        #expect(decoded.map(Self.md5) == hashes)

        for (name, samples) in [
            ("AnnexBReader", try Self.samples(of: AnnexBReader(path: path))),
            ("copy.mp4", try Self.samples(of: ContainerDemuxer.streamSource(path: copy, stream: 0)))
        ] {
            let frames = try Video.run(H264Decoder(), samples)
            let times = frames.map(\.timing.presentationTime)
            #expect(frames.count == 30, "\(name)")
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(name): \(times)")
            #expect(frames.map(Self.md5) == hashes, "\(name)")
        }
    }

    /// Every sample of `source`.
    static func samples(of source: some MediaSource) throws -> [MediaSample] {
        var source = source
        var samples: [MediaSample] = []
        while let sample = try source.next() { samples.append(sample) }
        return samples
    }

    /// FFmpeg's framemd5 hash of a tightly packed frame: the MD5 of its planes in order.
    static func md5(_ frame: MediaSample) -> String {
        let result = try? ExternalTool.run("md5sum", ["-"], stdin: Data(frame.planes.flatMap { $0 }))
        return result.map { String($0.output.prefix(32)) } ?? ""
    }
}
