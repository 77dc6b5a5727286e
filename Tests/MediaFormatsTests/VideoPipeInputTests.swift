import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Y4MReader and RawVideoReader on a pipe (a FIFO), whose length is unknown up front: the same frames
/// as from the file, and a cut inside a frame still ends in a truncation error naming the frame.
@Suite(.timeLimit(.minutes(2))) struct VideoPipeInputTests {
    /// Starts `sh -c "head -c <count> <source> > <fifo>"` (the whole file when `count` is nil) and
    /// returns the process, to be waited for once the reader has read.
    static func feed(_ source: String, into fifo: String, count: Int? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let head = count.map { "head -c \($0)" } ?? "cat"
        process.arguments = ["-c", "\(head) \"$0\" > \"$1\"", source, fifo]
        try process.run()
        return process
    }

    static func makeFIFO(_ path: String) throws {
        try ExternalTool.check("mkfifo", [path])
    }

    @Test func y4mFromAPipeEqualsY4MFromTheFile() throws {
        let dir = try TemporaryDirectory()
        let file = dir.file("x.y4m")
        try VideoTest.makeTestSource(
            file, width: 65, height: 33, frames: 6, pixelFormat: "yuv420p", container: "yuv4mpegpipe")
        var fromFile = try Y4MReader(path: file)
        let expected = try VideoTest.drain(&fromFile)
        #expect(expected.count == 6)

        let fifo = dir.file("pipe.y4m")
        try Self.makeFIFO(fifo)
        let writer = try Self.feed(file, into: fifo)
        defer { if writer.isRunning { writer.terminate() }; writer.waitUntilExit() }
        var fromPipe = try Y4MReader(path: fifo)
        #expect(fromPipe.format == fromFile.format)
        #expect(try VideoTest.drain(&fromPipe) == expected)
    }

    @Test func y4mPipeCutInsideAFrame() throws {
        let dir = try TemporaryDirectory()
        let file = dir.file("x.y4m")
        try VideoTest.makeTestSource(
            file, width: 64, height: 32, frames: 6, pixelFormat: "yuv422p", container: "yuv4mpegpipe")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let headerLength = try #require(bytes.firstIndex(of: 0x0A)) + 1
        let frameStride = 6 + PixelFormat.yuv422p.frameByteCount(width: 64, height: 32)

        let fifo = dir.file("pipe.y4m")
        try Self.makeFIFO(fifo)
        let writer = try Self.feed(file, into: fifo, count: headerLength + 2 * frameStride + 100)
        defer { if writer.isRunning { writer.terminate() }; writer.waitUntilExit() }
        var reader = try Y4MReader(path: fifo)
        let (frames, error) = VideoTest.drainUntilError(&reader)
        #expect(frames.count == 2)
        #expect(error?.code == .truncated)
        #expect(error?.sampleIndex == 2)
        #expect(error?.byteOffset == Int64(headerLength + 2 * frameStride))
    }

    @Test func rawVideoFromAPipeWithAPartialLastFrame() throws {
        let dir = try TemporaryDirectory()
        let file = dir.file("x.nv12")
        try VideoTest.makeTestSource(
            file, width: 48, height: 30, rate: "25", frames: 4, pixelFormat: "nv12", container: "rawvideo")
        let frameBytes = PixelFormat.nv12.frameByteCount(width: 48, height: 30)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(bytes.count == 4 * frameBytes)

        let fifo = dir.file("pipe.nv12")
        try Self.makeFIFO(fifo)
        // 3 whole frames and the luma plane plus 10 chroma bytes of the fourth.
        let writer = try Self.feed(file, into: fifo, count: 3 * frameBytes + 48 * 30 + 10)
        defer { if writer.isRunning { writer.terminate() }; writer.waitUntilExit() }
        var reader = try RawVideoReader(path: fifo, width: 48, height: 30, pixelFormat: .nv12, frameRate: FrameRate(25))
        let (frames, error) = VideoTest.drainUntilError(&reader)
        #expect(frames.map(VideoTest.packed) == (0..<3).map { Array(bytes[$0 * frameBytes..<($0 + 1) * frameBytes]) })
        #expect(error?.code == .truncated)
        #expect(error?.sampleIndex == 3)
        #expect(error?.byteOffset == Int64(3 * frameBytes))
        #expect(error?.message.contains("\(48 * 30 + 10)") == true)
    }
}
