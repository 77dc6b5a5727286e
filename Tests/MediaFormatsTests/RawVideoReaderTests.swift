import Foundation
import MediaCore
@testable import MediaFormats
import MediaTestSupport
import Testing

/// RawVideoReader against FFmpeg's rawvideo output, and its handling of a partial last frame.
@Suite(.timeLimit(.minutes(2))) struct RawVideoReaderTests {
    @Test(arguments: [
        ("nv12", PixelFormat.nv12, 176, 144),
        ("bgra", .bgra, 176, 144),
        ("rgb24", .rgb24, 176, 144),
        ("yuv420p", .yuv420p, 175, 143),
        ("nv12", .nv12, 33, 17)
    ])
    func framesEqualFFmpegRawOutput(ffmpegFormat: String, pixelFormat: PixelFormat, width: Int, height: Int) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("x.raw")
        try VideoTest.makeTestSource(
            path, width: width, height: height, rate: "25", frames: 7, pixelFormat: ffmpegFormat, container: "rawvideo")
        let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // ffmpeg reading its own file back as rawvideo gives the same bytes: the file is what FFmpeg means by the format.
        let decoded = try VideoTest.ffmpegRaw(
            path, extra: ["-f", "rawvideo", "-pix_fmt", ffmpegFormat, "-s", "\(width)x\(height)"])
        #expect(decoded == raw)

        let reader = try RawVideoReader(
            path: path, width: width, height: height, pixelFormat: pixelFormat, frameRate: FrameRate(25))
        #expect(reader.format == .raw(pixelFormat, width: width, height: height, frameRate: FrameRate(25)))
        let frameBytes = reader.frameByteCount
        try #require(raw.count == 7 * frameBytes)
        var source = reader
        let frames = try VideoTest.drain(&source)
        try #require(frames.count == 7)
        for (n, frame) in frames.enumerated() {
            #expect(frame.planes.count == pixelFormat.planeCount)
            #expect(frame.planes.map(\.count) == reader.format.planeByteCounts)
            #expect(VideoTest.packed(frame) == Array(raw[n * frameBytes..<(n + 1) * frameBytes]), "frame \(n)")
            #expect(frame.timing.presentationTime == MediaTime(value: Int64(n), timescale: 25))
            #expect(frame.timing.decodeTime == frame.timing.presentationTime)
            #expect(frame.timing.duration == MediaTime(value: 1, timescale: 25))
            #expect(frame.flags == [.keyframe])
        }
        #expect(try reader.next() == nil)

        var fromBytes = try RawVideoReader(
            bytes: raw, width: width, height: height, pixelFormat: pixelFormat, frameRate: FrameRate(25))
        #expect(try VideoTest.drain(&fromBytes) == frames)
    }

    @Test func nv12PlanesAreLumaThenInterleavedChroma() throws {
        // One 16x16 frame: Y all 1; Cb/Cr pairs 2, 3. The chroma plane is 16 bytes wide and 8 rows high.
        let bytes = [UInt8](repeating: 1, count: 256) + Array([[UInt8]](repeating: [2, 3], count: 64).joined())
        var reader = try RawVideoReader(
            bytes: bytes, width: 16, height: 16, pixelFormat: .nv12, frameRate: FrameRate(30))
        let frames = try VideoTest.drain(&reader)
        #expect(frames.count == 1)
        #expect(frames.first?.planes[0] == [UInt8](repeating: 1, count: 256))
        #expect(frames.first?.planes[1].count == 128)
        #expect(frames.first?.planes[1].prefix(4) == [2, 3, 2, 3])
    }

    @Test(arguments: [false, true])
    func partialLastFrameIsTruncatedAfterTheWholeFrames(fromFile: Bool) throws {
        let frameBytes = PixelFormat.rgb24.frameByteCount(width: 20, height: 18)
        let bytes = (0..<(3 * frameBytes + 100)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var reader: RawVideoReader
        let dir = try TemporaryDirectory()
        if fromFile {
            let path = dir.file("p.rgb")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            reader = try RawVideoReader(
                path: path, width: 20, height: 18, pixelFormat: .rgb24, frameRate: FrameRate(30))
        } else {
            reader = try RawVideoReader(
                bytes: bytes, width: 20, height: 18, pixelFormat: .rgb24, frameRate: FrameRate(30))
        }
        let (frames, error) = VideoTest.drainUntilError(&reader)
        #expect(frames.map(VideoTest.packed) == (0..<3).map { Array(bytes[$0 * frameBytes..<($0 + 1) * frameBytes]) })
        let thrown = try #require(error)
        #expect(thrown.code == .truncated)
        #expect(thrown.sampleIndex == 3)
        #expect(thrown.byteOffset == Int64(3 * frameBytes))
        #expect(thrown.stage == "RawVideoReader")
        #expect(thrown.message.contains("100"))
        #expect(throws: thrown) { try reader.next() }
    }

    @Test func emptyInputHasNoFrames() throws {
        let reader = try RawVideoReader(
            bytes: [], width: 16, height: 16, pixelFormat: .yuv420p, frameRate: FrameRate(30))
        #expect(try reader.next() == nil)
        #expect(try reader.next() == nil)
        #expect(reader.framesRead == 0)
    }

    @Test(arguments: [
        (0, 16, FrameRate(30)), (16, -1, FrameRate(30)), (8193, 16, FrameRate(30)), (16, 16, FrameRate(0, 1)),
        (16, 16, FrameRate(30, 0))
    ])
    func invalidArgumentsThrow(width: Int, height: Int, rate: FrameRate) {
        do {
            _ = try RawVideoReader(bytes: [1, 2, 3], width: width, height: height, pixelFormat: .gray, frameRate: rate)
            Issue.record("expected an error for \(width)x\(height) @ \(rate)")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }
}
