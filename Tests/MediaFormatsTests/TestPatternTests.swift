import Foundation
import MediaCore
@testable import MediaFormats
import MediaTestSupport
import Testing

/// TestPatternGenerator: lengths, exact timing, plane layout, moving bars, the frame number box,
/// determinism, FFmpeg's acceptance of the frames and agreement with its colour conversion.
@Suite(.timeLimit(.minutes(2))) struct TestPatternTests {
    @Test func frameCountAndExactTiming() throws {
        var generator = try TestPatternGenerator(
            width: 64, height: 48, frameRate: FrameRate(30000, 1001), length: .frames(12))
        #expect(generator.totalFrames == 12)
        #expect(generator.format == .raw(.yuv420p, width: 64, height: 48, frameRate: FrameRate(30000, 1001)))
        let frames = try VideoTest.drain(&generator)
        #expect(frames.count == 12)
        for (n, frame) in frames.enumerated() {
            #expect(frame.timing.presentationTime == MediaTime(value: Int64(n) * 1001, timescale: 30000))
            #expect(frame.timing.decodeTime == frame.timing.presentationTime)
            #expect(frame.timing.duration == MediaTime(value: 1001, timescale: 30000))
            #expect(frame.flags == [.keyframe])
            #expect(frame.frameCount == 1)
            #expect(frame.format == .video(generator.format))
        }
        #expect(generator.framesGenerated == 12)
        #expect(try generator.next() == nil)
        #expect(try generator.next() == nil)
    }

    @Test(arguments: [
        (MediaTime(value: 1, timescale: 1), FrameRate(30000, 1001), 30),  // 29.97: up
        (MediaTime(value: 1, timescale: 3), FrameRate(30), 10),  // exact: not rounded up
        (MediaTime(value: 1001, timescale: 30000), FrameRate(30000, 1001), 1),
        (MediaTime(value: 1, timescale: 1000), FrameRate(25), 1),  // 0.025 frames: up
        (MediaTime(value: 0, timescale: 1), FrameRate(25), 0),
        (MediaTime(value: 10, timescale: 1), FrameRate(24000, 1001), 240)  // 239.76: up
    ])
    func durationIsRoundedUpToFrames(duration: MediaTime, rate: FrameRate, frames: Int) throws {
        var generator = try TestPatternGenerator(width: 16, height: 16, frameRate: rate, length: .duration(duration))
        #expect(generator.totalFrames == Int64(frames))
        var count = 0
        while try generator.next() != nil { count += 1 }
        #expect(count == frames)
    }

    @Test(arguments: PixelFormat.allCases, [(16, 16), (17, 19), (176, 144)])
    func planesHaveTheFormatsLayout(pixelFormat: PixelFormat, size: (Int, Int)) throws {
        var generator = try TestPatternGenerator(
            width: size.0, height: size.1, pixelFormat: pixelFormat, length: .frames(2))
        let frames = try VideoTest.drain(&generator)
        #expect(frames.count == 2)
        for frame in frames {
            #expect(frame.planes.map(\.count) == generator.format.planeByteCounts)
        }
        #expect(frames[0].planes != frames[1].planes)
    }

    @Test func barsScrollByTheStepAndTheNumberBoxChanges() throws {
        let width = 176, height = 144, step = 4
        var generator = try TestPatternGenerator(width: width, height: height, length: .frames(12), scrollStep: step)
        let frames = try VideoTest.drain(&generator)
        let box = generator.numberBox
        #expect(generator.digitCount == 2)
        #expect(box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height)
        func lumaRow(_ frame: MediaSample, _ y: Int) -> [UInt8] { Array(frame.planes[0][y * width..<(y + 1) * width]) }
        func boxLuma(_ frame: MediaSample) -> [UInt8] {
            (box.y..<box.y + box.height).flatMap { lumaRow(frame, $0)[box.x..<box.x + box.width] }
        }
        let belowBox = box.y + box.height + 1
        for n in 0..<frames.count - 1 {
            // The bars move: row of frame n+1 is row of frame n shifted left by the step.
            let now = lumaRow(frames[n], belowBox)
            let next = lumaRow(frames[n + 1], belowBox)
            #expect(next == (0..<width).map { now[($0 + step) % width] }, "frame \(n + 1)")
            #expect(next != now)
            // The digits change with the frame number.
            #expect(boxLuma(frames[n]) != boxLuma(frames[n + 1]), "frame \(n)/\(n + 1)")
        }
        // The box is dark with white digits: only black and white luma inside.
        let inBox = Set(boxLuma(frames[7]))
        #expect(inBox == [16, 235])
        // Seven bars across the row: seven distinct luma levels outside the box.
        #expect(Set(lumaRow(frames[0], belowBox)).count == 7)
    }

    @Test func numberBoxDependsOnlyOnTheFrameNumber() throws {
        var still = try TestPatternGenerator(width: 96, height: 64, length: .frames(20), scrollStep: 0)
        var moving = try TestPatternGenerator(width: 96, height: 64, length: .frames(20), scrollStep: 7)
        let a = try VideoTest.drain(&still)
        let b = try VideoTest.drain(&moving)
        let box = still.numberBox
        func boxLuma(_ frame: MediaSample) -> [UInt8] {
            let rows: Range<Int> = box.y..<(box.y + box.height)
            return rows.flatMap { (row: Int) -> [UInt8] in
                let start: Int = row * 96 + box.x
                return Array(frame.planes[0][start..<(start + box.width)])
            }
        }
        for n in 0..<20 {
            #expect(boxLuma(a[n]) == boxLuma(b[n]))
            if n > 0 {
                // Still bars: frames differ only by the number.
                #expect(a[n].planes != a[n - 1].planes)
                #expect(Array(a[n].planes[0].suffix(96 * 8)) == Array(a[n - 1].planes[0].suffix(96 * 8)))
            }
        }
        // Frames 3 and 13 share their last digit: the right digit's cells are equal, the left ones not.
        let cell = max(1, 64 / 48)
        func digitLuma(_ frame: MediaSample, position: Int) -> [UInt8] {
            let left = box.x + cell * (1 + 6 * position)
            let rows: Range<Int> = (box.y + cell)..<(box.y + 8 * cell)
            return rows.flatMap { (row: Int) -> [UInt8] in
                let start: Int = row * 96 + left
                return Array(frame.planes[0][start..<(start + 5 * cell)])
            }
        }
        #expect(digitLuma(a[3], position: 1) == digitLuma(a[13], position: 1))
        #expect(digitLuma(a[3], position: 0) != digitLuma(a[13], position: 0))
    }

    @Test(arguments: [PixelFormat.yuv420p, .nv12, .bgra, .rgb24])
    func sameSettingsGiveSameBytes(pixelFormat: PixelFormat) throws {
        var a = try TestPatternGenerator(
            width: 33, height: 21, frameRate: FrameRate(24), pixelFormat: pixelFormat, length: .frames(5))
        var b = try TestPatternGenerator(
            width: 33, height: 21, frameRate: FrameRate(24), pixelFormat: pixelFormat, length: .frames(5))
        let first = try VideoTest.drain(&a)
        #expect(first == (try VideoTest.drain(&b)))
        #expect(Set(first.map(\.planes)).count == 5)
    }

    @Test(arguments: [(15, 16), (16, 15), (0, 100), (8193, 16), (16, 9000), (-16, 16)])
    func invalidSizesThrow(width: Int, height: Int) {
        do {
            _ = try TestPatternGenerator(width: width, height: height, length: .frames(1))
            Issue.record("expected an error for \(width)x\(height)")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("\(width)x\(height)"))
        }
    }

    /// The code a failed creation throws, or `nil` when it succeeds.
    static func errorCode(_ make: () throws -> TestPatternGenerator) -> MediaError.Code? {
        do {
            _ = try make()
            return nil
        } catch let error as MediaError {
            return error.code
        } catch {
            return .io
        }
    }

    @Test func otherInvalidArgumentsThrow() {
        #expect(
            Self.errorCode {
                try TestPatternGenerator(width: 16, height: 16, frameRate: FrameRate(0), length: .frames(1))
            } == .invalidArgument)
        #expect(
            Self.errorCode { try TestPatternGenerator(width: 16, height: 16, length: .frames(-1)) } == .invalidArgument)
        #expect(
            Self.errorCode {
                try TestPatternGenerator(width: 16, height: 16, length: .duration(MediaTime(value: -1, timescale: 1)))
            } == .invalidArgument)
        #expect(
            Self.errorCode { try TestPatternGenerator(width: 16, height: 16, length: .duration(.invalid)) }
                == .invalidArgument)
        #expect(
            Self.errorCode { try TestPatternGenerator(width: 16, height: 16, length: .frames(1), scrollStep: 17) }
                == .invalidArgument)
        #expect(
            Self.errorCode { try TestPatternGenerator(width: 16, height: 16, length: .frames(1), scrollStep: 16) }
                == nil)
    }

    @Test func unlimitedKeepsGoing() throws {
        var generator = try TestPatternGenerator(width: 16, height: 16, length: .unlimited)
        #expect(generator.totalFrames == nil)
        #expect(generator.digitCount == 6)
        for _ in 0..<50 { #expect(try generator.next() != nil) }
        #expect(generator.framesGenerated == 50)
    }

    /// The frames as FFmpeg sees them: written raw, read by `ffmpeg -f rawvideo` without complaint, and
    /// every frame arriving with its own content (framemd5 hashes all distinct).
    @Test(arguments: [(PixelFormat.yuv420p, 176, 144), (.yuv420p, 175, 143), (.nv12, 64, 36), (.bgra, 31, 17)])
    func ffmpegReadsTheRawFrames(pixelFormat: PixelFormat, width: Int, height: Int) throws {
        var generator = try TestPatternGenerator(
            width: width, height: height, pixelFormat: pixelFormat, length: .frames(15))
        let frames = try VideoTest.drain(&generator)
        let dir = try TemporaryDirectory()
        let path = dir.file("p.raw")
        try Data(frames.flatMap(VideoTest.packed)).write(to: URL(fileURLWithPath: path))
        let result = try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-xerror", "-f", "rawvideo", "-pix_fmt", pixelFormat.description, "-s",
                "\(width)x\(height)",
                "-r", "30", "-i", path, "-f", "framemd5", "-"
            ])
        let hashes = result.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last
        }
        #expect(hashes.count == 15)
        #expect(Set(hashes).count == 15)
        #expect(result.stderr.isEmpty)
    }

    /// Our BT.601 conversion agrees with FFmpeg's: FFmpeg turns our yuv420p and nv12 frames into RGB, and
    /// the centre of each bar is within 3 of our own rgb24 picture.
    @Test(arguments: [PixelFormat.yuv420p, .nv12, .yuv444p])
    func colourConversionAgreesWithFFmpeg(pixelFormat: PixelFormat) throws {
        let width = 224, height = 64
        var yuv = try TestPatternGenerator(width: width, height: height, pixelFormat: pixelFormat, length: .frames(1))
        var rgb = try TestPatternGenerator(width: width, height: height, pixelFormat: .rgb24, length: .frames(1))
        let yuvFrame = try #require(try yuv.next())
        let ours = try #require(try rgb.next()).planes[0]
        let dir = try TemporaryDirectory()
        let path = dir.file("p.yuv")
        try Data(VideoTest.packed(yuvFrame)).write(to: URL(fileURLWithPath: path))
        let theirs = [UInt8](
            try ExternalTool.check(
                "ffmpeg",
                [
                    "-v", "error", "-f", "rawvideo", "-pix_fmt", pixelFormat.description, "-s", "\(width)x\(height)",
                    "-i", path,
                    "-f", "rawvideo", "-pix_fmt", "rgb24", "-"
                ]
            ).stdout)
        #expect(theirs.count == ours.count)
        guard theirs.count == ours.count else { return }
        let y = height - 4
        for bar in 0..<7 {
            let x = bar * width / 7 + width / 14
            let i = (y * width + x) * 3
            for c in 0..<3 {
                #expect(
                    abs(Int(theirs[i + c]) - Int(ours[i + c])) <= 3,
                    "bar \(bar) component \(c): \(theirs[i + c]) vs \(ours[i + c])")
            }
        }
    }
}
