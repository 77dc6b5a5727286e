import Foundation
import MediaCore
@testable import MediaFormats
import MediaTestSupport
import Testing

/// Y4MReader on damaged and hostile input: typed errors with offsets and frame indices, no hang.
@Suite(.timeLimit(.minutes(2))) struct Y4MReaderErrorTests {
    /// 10 frames of 176x144 yuv420p from FFmpeg, with the length of its header line (newline included).
    static func ffmpegY4M() throws -> (bytes: [UInt8], headerLength: Int) {
        let dir = try TemporaryDirectory()
        let path = dir.file("x.y4m")
        try VideoTest.makeTestSource(path, width: 176, height: 144, pixelFormat: "yuv420p", container: "yuv4mpegpipe")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let newline = try #require(bytes.firstIndex(of: 0x0A))
        return (bytes, newline + 1)
    }

    static let frameBytes = PixelFormat.yuv420p.frameByteCount(width: 176, height: 144)

    static func error(_ bytes: [UInt8]) -> MediaError? {
        do {
            var reader = try Y4MReader(bytes: bytes)
            _ = try VideoTest.drain(&reader)
            return nil
        } catch let error as MediaError {
            return error
        } catch {
            return nil
        }
    }

    @Test func truncatedMidFrameDeliversWholeFramesThenNamesTheFrame() throws {
        let (whole, headerLength) = try Self.ffmpegY4M()
        let frameStride = 6 + Self.frameBytes
        let cut = Array(whole.prefix(headerLength + 3 * frameStride + 6 + Self.frameBytes / 2))
        var reader = try Y4MReader(bytes: cut)
        var wholeReader = try Y4MReader(bytes: whole)
        let expected = try VideoTest.drain(&wholeReader)
        let (frames, error) = VideoTest.drainUntilError(&reader)
        #expect(frames == Array(expected.prefix(3)))
        let thrown = try #require(error)
        #expect(thrown.code == .truncated)
        #expect(thrown.sampleIndex == 3)
        #expect(thrown.byteOffset == Int64(headerLength + 3 * frameStride))
        #expect(thrown.stage == "Y4MReader")
        #expect(thrown.description.contains("frame 3"))
        // The error sticks; the frames already returned stay valid.
        #expect(throws: thrown) { try reader.next() }
        #expect(frames[2].planes.map(\.count) == [176 * 144, 88 * 72, 88 * 72])
    }

    @Test func truncatedInsideFrameLine() throws {
        let (whole, headerLength) = try Self.ffmpegY4M()
        let cut = Array(whole.prefix(headerLength + 6 + Self.frameBytes + 3))  // "FRA"
        var reader = try Y4MReader(bytes: cut)
        let (frames, error) = VideoTest.drainUntilError(&reader)
        #expect(frames.count == 1)
        #expect(error?.code == .truncated)
        #expect(error?.sampleIndex == 1)
    }

    @Test func headerWidthSmallerThanTheDataFailsAtTheSecondFrame() throws {
        let (whole, headerLength) = try Self.ffmpegY4M()
        let header = String(decoding: whole.prefix(headerLength), as: UTF8.self).replacingOccurrences(
            of: "W176", with: "W160")
        let bytes = VideoTest.ascii(header) + whole.dropFirst(headerLength)
        var reader = try Y4MReader(bytes: bytes)
        let (frames, error) = VideoTest.drainUntilError(&reader)
        #expect(frames.count == 1)
        let thrown = try #require(error)
        #expect(thrown.code == .invalidData)
        #expect(thrown.sampleIndex == 1)
        let smallFrame = PixelFormat.yuv420p.frameByteCount(width: 160, height: 144)
        #expect(thrown.byteOffset == Int64(headerLength + 6 + smallFrame))
    }

    @Test func headerWidthLargerThanTheDataFailsWithoutHanging() throws {
        let (whole, headerLength) = try Self.ffmpegY4M()
        let header = String(decoding: whole.prefix(headerLength), as: UTF8.self).replacingOccurrences(
            of: "W176", with: "W192")
        let bytes = VideoTest.ascii(header) + whole.dropFirst(headerLength)
        var reader = try Y4MReader(bytes: bytes)
        let (frames, error) = VideoTest.drainUntilError(&reader)
        let thrown = try #require(error)
        #expect(frames.count == 1)  // frame 0 swallows the next FRAME line; frame 1 starts inside pixels
        #expect(thrown.code == .invalidData)
        #expect(thrown.sampleIndex == 1)
    }

    @Test(arguments: ["C420p12", "C444alpha", "C411", "Cmono16"])
    func unsupportedChromaTagIsNamed(tag: String) throws {
        let error = Self.error(VideoTest.ascii("YUV4MPEG2 W16 H16 F25:1 \(tag)\n"))
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains(tag) == true)
    }

    @Test(arguments: [
        ("YUV4MPEG2 H16 F25:1\n", "W"),
        ("YUV4MPEG2 W16 F25:1\n", "H"),
        ("YUV4MPEG2 W0 H16\n", "W"),
        ("YUV4MPEG2 W-4 H16\n", "W"),
        ("YUV4MPEG2 W16 Hx\n", "H"),
        ("YUV4MPEG2 W99999 H16\n", "W"),
        ("YUV4MPEG2 W16 H16 F25\n", "F"),
        ("YUV4MPEG2 W16 H16 Fa:b\n", "F"),
        ("YUV4MPEGX W16 H16\n", "YUV4MPEG2"),
        ("YUV4MPEG2W16 H16\n", "YUV4MPEG2")
    ])
    func badHeaderIsInvalidData(header: String, named: String) throws {
        let error = Self.error(VideoTest.ascii(header))
        #expect(error?.code == .invalidData)
        #expect(error?.byteOffset == 0)
        #expect(error?.message.contains(named) == true)
    }

    @Test func garbageAndEmptyInput() throws {
        var random = SplitMix64(seed: 7)
        let garbage = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(Self.error(garbage)?.code == .invalidData)
        #expect(Self.error([])?.code == .truncated)
        #expect(Self.error(VideoTest.ascii("YUV4"))?.code == .truncated)
        #expect(Self.error(VideoTest.ascii("YUV4MPEG2 W16 H16"))?.code == .truncated)  // no newline, then the end
    }

    @Test func megabyteHeaderWithoutNewlineIsRejectedEarly() throws {
        let bytes = VideoTest.ascii("YUV4MPEG2 W16 H16 X") + [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        let error = Self.error(bytes)
        #expect(error?.code == .invalidData)
        #expect(error?.message.contains("1024") == true)
        // The same from a file: nothing near the whole megabyte is read.
        let dir = try TemporaryDirectory()
        let path = dir.file("long.y4m")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: MediaError.self) { try Y4MReader(path: path) }
    }

    @Test func frameLineThatIsNotFRAME() throws {
        let header = "YUV4MPEG2 W16 H16 F25:1\n"
        let frame = VideoTest.ascii("FRAME\n") + [UInt8](repeating: 0x80, count: 384)
        let bytes = VideoTest.ascii(header) + frame + VideoTest.ascii("FRAMX\n") + [UInt8](repeating: 0x80, count: 384)
        var reader = try Y4MReader(bytes: bytes)
        let (frames, error) = VideoTest.drainUntilError(&reader)
        #expect(frames.count == 1)
        #expect(error?.code == .invalidData)
        #expect(error?.sampleIndex == 1)
        #expect(error?.byteOffset == Int64(header.utf8.count + frame.count))

        let long = VideoTest.ascii(header + "FRAME ") + [UInt8](repeating: UInt8(ascii: "x"), count: 5000)
        var longReader = try Y4MReader(bytes: long)
        let (_, longError) = VideoTest.drainUntilError(&longReader)
        #expect(longError?.code == .invalidData)
        #expect(longError?.sampleIndex == 0)
    }

    @Test func missingFileIsIOError() {
        #expect(throws: MediaError.self) { try Y4MReader(path: "/nonexistent/dir/x.y4m") }
        do {
            _ = try Y4MReader(path: "/nonexistent/dir/x.y4m")
        } catch {
            #expect(error.code == .io)
        }
    }
}
