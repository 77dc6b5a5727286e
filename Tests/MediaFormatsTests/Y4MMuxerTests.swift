import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Y4MMuxer against what FFmpeg's yuv4mpegpipe muxer writes, and its refusals.
@Suite(.timeLimit(.minutes(2))) struct Y4MMuxerTests {
    /// A y4m that ffmpeg wrote, read by Y4MReader and written again by Y4MMuxer, comes out byte for byte
    /// (FFmpeg's `XCOLORRANGE` header extension aside: VideoFormat does not carry the colour range).
    @Test(arguments: [
        ("yuv420p", [String](), 176, 144),
        ("yuv420p", ["-chroma_sample_location", "left"], 176, 144),
        ("yuv420p", ["-chroma_sample_location", "topleft"], 175, 143),
        ("yuv422p", [], 33, 17),
        ("yuv444p", [], 176, 144),
        ("gray", [], 176, 144)
    ])
    func rewritesFFmpegY4MByteForByte(ffmpegFormat: String, options: [String], width: Int, height: Int) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("ffmpeg.y4m")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30000/1001", "-frames:v",
                "5",
                "-pix_fmt", ffmpegFormat
            ] + options + ["-f", "yuv4mpegpipe", "-y", path])
        var theirs = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let headerEnd = try #require(theirs.firstIndex(of: 0x0A))
        let header = String(decoding: theirs[..<headerEnd], as: UTF8.self)
        let withoutRange = header.split(separator: " ").filter { !$0.hasPrefix("XCOLORRANGE=") }.joined(separator: " ")
        theirs.replaceSubrange(..<headerEnd, with: Array(withoutRange.utf8))

        let reader = try Y4MReader(path: path)
        let output = MemoryOutput()
        let muxer = Y4MMuxer(output: output)
        while let frame = try reader.next() { try muxer.write(frame) }
        try muxer.finish()
        #expect(muxer.frameCount == 5)
        let ours = output.bytes
        #expect(String(decoding: ours.prefix { $0 != 0x0A }, as: UTF8.self) == withoutRange)
        #expect(ours == theirs)
    }

    /// Frames with padded rows are written without the padding; without a frame rate in the format the
    /// first frame's duration gives it.
    @Test func stridesAreDroppedAndTheRateComesFromTheDuration() throws {
        var format = VideoFormat.raw(.gray, width: 3, height: 2)
        format.bytesPerRow = [5]
        let timing = SampleTiming(presentationTime: .zero, duration: MediaTime(value: 1001, timescale: 24000))
        let frame = MediaSample(
            format: .video(format), planes: [[1, 2, 3, 0, 0, 4, 5, 6]], timing: timing, frameCount: 1)
        let output = MemoryOutput()
        let muxer = Y4MMuxer(output: output)
        try muxer.write(frame)
        try muxer.finish()
        #expect(output.bytes == Array("YUV4MPEG2 W3 H2 F24000:1001 Ip A0:0 Cmono\nFRAME\n".utf8) + [1, 2, 3, 4, 5, 6])
    }

    /// The muxer is a class: two references write one stream through one output, so frames written
    /// through them in turn give one header and every frame, as one reference gives, and the count
    /// is shared (a copied struct wrote a second header into the stream and counted apart).
    @Test func twoReferencesWriteOneStream() throws {
        let rate = FrameRate(25)
        let frames = (0..<4).map { index in
            MediaSample(
                format: .video(.raw(.gray, width: 2, height: 2, frameRate: rate)),
                planes: [[UInt8](repeating: UInt8(index), count: 4)],
                timing: SampleTiming(presentationTime: rate.time(ofFrame: Int64(index)), duration: rate.frameDuration),
                frameCount: 1)
        }
        let single = MemoryOutput()
        let one = Y4MMuxer(output: single)
        for frame in frames { try one.write(frame) }
        try one.finish()

        let shared = MemoryOutput()
        let first = Y4MMuxer(output: shared)
        let second = first
        for (index, frame) in frames.enumerated() { try (index.isMultiple(of: 2) ? first : second).write(frame) }
        try second.finish()
        #expect(first.frameCount == 4 && second.frameCount == 4)
        #expect(shared.bytes == single.bytes)
        let frameBytes = (0..<4).flatMap { Array("FRAME\n".utf8) + [UInt8](repeating: UInt8($0), count: 4) }
        #expect(shared.bytes == Array("YUV4MPEG2 W2 H2 F25:1 Ip A0:0 Cmono\n".utf8) + frameBytes)
    }

    /// What YUV4MPEG2 cannot carry: a typed error with the frame's index, nothing of that frame written,
    /// the frames before it still a stream ffmpeg decodes.
    @Test func refusals() throws {
        let dir = try TemporaryDirectory()
        let rate = FrameRate(25)
        func frame(_ pixels: PixelFormat, _ width: Int, _ height: Int, index: Int64, bytes: Int? = nil) -> MediaSample {
            let format = VideoFormat.raw(pixels, width: width, height: height, frameRate: rate)
            let planes = (0..<pixels.planeCount).map { plane in
                let size = pixels.planeSize(plane, width: width, height: height)
                return [UInt8](repeating: UInt8(16 + plane), count: bytes ?? size.bytesPerRow * size.rows)
            }
            let timing = SampleTiming(presentationTime: rate.time(ofFrame: index), duration: rate.frameDuration)
            return MediaSample(format: .video(format), planes: planes, timing: timing, frameCount: 1)
        }
        let cases: [(MediaSample, MediaError.Code, String)] = [
            (frame(.nv12, 16, 16, index: 1), .formatMismatch, "VideoConverter"),
            (frame(.yuv420p, 32, 16, index: 1), .formatMismatch, "first frame"),
            (frame(.yuv444p, 16, 16, index: 1), .formatMismatch, "first frame"),
            (frame(.yuv420p, 16, 16, index: 1, bytes: 10), .invalidData, "plane 0")
        ]
        for (bad, code, mention) in cases {
            let path = dir.file("out.y4m")
            let muxer = CheckedSink(Y4MMuxer(output: try FileOutput(path: path)))  // stamps; refuses after an error
            try muxer.write(frame(.yuv420p, 16, 16, index: 0))
            do {
                try muxer.write(bad)
                Issue.record("\(bad.format) was written")
            } catch let error as MediaError {
                #expect(error.code == code, "\(error)")
                #expect(error.sampleIndex == 1, "\(error)")
                #expect(error.description.contains(mention), "\(error)")
            }
            #expect(throws: MediaError.self) { try muxer.write(frame(.yuv420p, 16, 16, index: 2)) }
            try muxer.finish()
            let decoded = try ExternalTool.check(
                "ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "framemd5", "-"])
            #expect(decoded.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 1, "\(mention)")
        }

        // No rate in the format and no duration on the first frame.
        let muxer = Y4MMuxer(output: MemoryOutput())
        let unknown = MediaSample(
            format: .video(.raw(.gray, width: 2, height: 2)), planes: [[0, 0, 0, 0]],
            timing: SampleTiming(presentationTime: .zero, duration: .invalid), frameCount: 1)
        #expect { try muxer.write(unknown) } throws: { ($0 as? MediaError)?.code == .invalidArgument }
    }
}
