import Foundation
import MediaCore
@testable import MediaFormats
import MediaTestSupport
import Testing

/// Y4MReader against what FFmpeg writes and decodes: formats, rates, odd sizes, every byte of every plane.
@Suite(.timeLimit(.minutes(2))) struct Y4MReaderTests {
    @Test(arguments: [
        ("yuv420p", PixelFormat.yuv420p, 176, 144),
        ("yuv422p", .yuv422p, 176, 144),
        ("yuv444p", .yuv444p, 176, 144),
        ("gray", .gray, 176, 144),
        ("yuv420p", .yuv420p, 175, 143),
        ("yuv422p", .yuv422p, 33, 17)
    ])
    func framesEqualFFmpegRawOutput(ffmpegFormat: String, pixelFormat: PixelFormat, width: Int, height: Int) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("x.y4m")
        try VideoTest.makeTestSource(
            path, width: width, height: height, pixelFormat: ffmpegFormat, container: "yuv4mpegpipe")
        let raw = try VideoTest.ffmpegRaw(path)

        let reader = try Y4MReader(path: path)
        var expected = VideoFormat.raw(pixelFormat, width: width, height: height, frameRate: FrameRate(30000, 1001))
        expected.pixelAspectRatio = .square  // ffmpeg writes A1:1
        expected.chromaLocation = pixelFormat == .yuv420p ? .center : nil  // and C420jpeg for 4:2:0
        #expect(reader.format == expected)
        #expect(reader.header.hasPrefix("YUV4MPEG2 W\(width) H\(height) F30000:1001"))
        var source = reader
        let frames = try VideoTest.drain(&source)
        try #require(frames.count == 10)
        let frameBytes = pixelFormat.frameByteCount(width: width, height: height)
        try #require(raw.count == 10 * frameBytes)
        for (n, frame) in frames.enumerated() {
            #expect(frame.format == .video(reader.format))
            #expect(frame.planes.map(\.count) == reader.format.planeByteCounts)
            #expect(VideoTest.packed(frame) == Array(raw[n * frameBytes..<(n + 1) * frameBytes]), "frame \(n)")
            #expect(frame.timing.presentationTime == MediaTime(value: Int64(n) * 1001, timescale: 30000))
            #expect(frame.timing.decodeTime == frame.timing.presentationTime)
            #expect(frame.timing.duration == MediaTime(value: 1001, timescale: 30000))
            #expect(frame.flags == [.keyframe])
            #expect(frame.frameCount == 1)
        }
        #expect(reader.framesRead == 10)
        #expect(try reader.next() == nil)
        #expect(try reader.next() == nil)

        // The same bytes held in memory give the same frames.
        var fromBytes = try Y4MReader(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(try VideoTest.drain(&fromBytes) == frames)
    }

    @Test func interlacedStreamAndOtherRatesArePassedThrough() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("i.y4m")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-frames:v", "3",
                "-vf", "setfield=tff", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-y", path
            ])
        let reader = try Y4MReader(path: path)
        #expect(reader.interlacing == "t")
        #expect(reader.format.frameRate == FrameRate(25, 1))
        var source = reader
        let frames = try VideoTest.drain(&source)
        let raw = try VideoTest.ffmpegRaw(path)
        #expect(frames.flatMap(VideoTest.packed) == raw)
        #expect(frames.map(\.timing.presentationTime) == [0, 1, 2].map { MediaTime(value: $0, timescale: 25) })
    }

    /// The A and C tags as FFmpeg's y4m demuxer reads them: what the CLI writes into an H.264 SPS.
    @Test(arguments: [
        ("A1:1 C420jpeg", PixelAspectRatio?.some(.square), ChromaLocation?.some(.center)),
        ("A0:0 C420mpeg2", nil, .left),
        ("A4:3 C420paldv", PixelAspectRatio(4, 3), .topLeft),
        ("C420", nil, .center),
        ("A1:1", .square, .center),
        ("Ax:y C422", nil, nil),
        // A ratio past 32 bits (FFmpeg's) is ignored: scaled, its products overflowed 64 bits.
        ("A9223372036854775807:1", nil, .center)
    ])
    func aspectAndChromaSiting(tags: String, aspect: PixelAspectRatio?, location: ChromaLocation?) throws {
        let reader = try Y4MReader(bytes: VideoTest.ascii("YUV4MPEG2 W16 H16 F25:1 \(tags)\n"))
        #expect(reader.format.pixelAspectRatio == aspect)
        #expect(reader.format.chromaLocation == location)
    }

    @Test func parametersInAnyOrderWithUnknownOnesAndFrameParameters() throws {
        let width = 18, height = 16
        let frameBytes = PixelFormat.yuv444p.frameByteCount(width: width, height: height)
        let pixels0 = (0..<frameBytes).map { UInt8($0 % 251) }
        let pixels1 = (0..<frameBytes).map { UInt8(($0 * 7) % 256) }
        let bytes =
            VideoTest.ascii("YUV4MPEG2 C444 XFOO=1 H16 W18  F24000:1001 Ip A10:11 Zzz\n")
            + VideoTest.ascii("FRAME\n") + pixels0 + VideoTest.ascii("FRAME XBAR=2\n") + pixels1
        var reader = try Y4MReader(bytes: bytes)
        var expected = VideoFormat.raw(.yuv444p, width: 18, height: 16, frameRate: FrameRate(24000, 1001))
        expected.pixelAspectRatio = PixelAspectRatio(10, 11)
        #expect(reader.format == expected)
        #expect(reader.chromaTag == "444")
        #expect(reader.interlacing == "p")
        let frames = try VideoTest.drain(&reader)
        #expect(frames.map(VideoTest.packed) == [pixels0, pixels1])
        // The result agrees with FFmpeg's reading of the same file.
        let dir = try TemporaryDirectory()
        let path = dir.file("p.y4m")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try VideoTest.ffmpegRaw(path) == pixels0 + pixels1)
    }

    @Test(arguments: [
        ("", FrameRate(25, 1)),
        (" F0:0", FrameRate(25, 1)),
        (" F50:1", FrameRate(50, 1))
    ])
    func missingFrameRateIs25LikeFFmpeg(rateTag: String, rate: FrameRate) throws {
        let bytes = VideoTest.ascii("YUV4MPEG2 W16 H16\(rateTag)\nFRAME\n") + [UInt8](repeating: 16, count: 384)
        var reader = try Y4MReader(bytes: bytes)
        #expect(reader.format.frameRate == rate)
        #expect(reader.format.pixelFormat == .yuv420p)  // no C: 4:2:0
        let frames = try VideoTest.drain(&reader)
        #expect(frames.count == 1)
        #expect(frames.first?.timing.duration == rate.frameDuration)
    }

    @Test(arguments: ["C420jpeg", "C420paldv", "C420mpeg2", "C420"])
    func every420TagIsYUV420p(tag: String) throws {
        let reader = try Y4MReader(bytes: VideoTest.ascii("YUV4MPEG2 W16 H16 F30:1 \(tag)\n"))
        #expect(reader.format.pixelFormat == .yuv420p)
        #expect(reader.chromaTag == String(tag.dropFirst()))
        #expect(try reader.next() == nil)  // no frames at all is an empty stream, not an error
    }
}
