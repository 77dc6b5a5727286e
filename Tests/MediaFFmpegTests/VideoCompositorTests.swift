import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The compositor against FFmpeg's `overlay` and `xstack` on the same inputs (PSNR per frame), an image
/// with alpha blended as `overlay` blends it, text whose box is where it was put, rates sampled at the
/// canvas's with repeats and drops counted, and a layout changed between two frames.
@Suite(.timeLimit(.minutes(5)), .ffmpegLeakGate) struct VideoCompositorTests {
    static let canvas = VideoCompositor.Canvas(width: 1280, height: 720, frameRate: FrameRate(30))

    /// Makes `name` in `dir`: `frames` frames of the lavfi `generator` as yuv420p Y4M.
    static func makeY4M(_ dir: TemporaryDirectory, _ name: String, _ generator: String, frames: Int) throws -> String {
        let path = dir.file(name)
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", generator, "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", path])
        return path
    }

    /// Every frame of `source`.
    static func frames(_ source: any MediaSource) throws -> [MediaSample] {
        var source = source
        var frames: [MediaSample] = []
        while let frame = try source.next() { frames.append(frame) }
        return frames
    }

    /// `ffmpeg -filter_complex graph` on `inputs` as raw yuv420p frames of the canvas's size.
    static func ffmpegFrames(_ dir: TemporaryDirectory, inputs: [String], graph: String, frames: Int) throws -> [Data] {
        let output = dir.file("ffmpeg.yuv")
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-y"] + inputs.flatMap { ["-i", $0] } + [
                "-filter_complex", graph, "-frames:v", "\(frames)", "-f", "rawvideo", "-pix_fmt", "yuv420p", output
            ])
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        let size = canvas.width * canvas.height * 3 / 2
        return stride(from: 0, to: data.count, by: size).map { data.subdata(in: $0..<min($0 + size, data.count)) }
    }

    /// The PSNR of two yuv420p frames over all three planes, in dB (infinity when identical).
    static func psnr(_ frame: MediaSample, _ reference: Data) -> Double {
        let ours = frame.planes.flatMap { $0 }
        guard ours.count == reference.count else { return 0 }
        var sum = 0.0
        reference.withUnsafeBytes { theirs in
            for index in 0..<ours.count {
                let difference = Double(ours[index]) - Double(theirs[index])
                sum += difference * difference
            }
        }
        guard sum > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(ours.count)))
    }

    @Test func pictureInPictureIsWhatFfmpegOverlayGives() throws {
        let dir = try TemporaryDirectory()
        let main = try Self.makeY4M(dir, "main.y4m", "testsrc2=size=1280x720:rate=30", frames: 4)
        let inset = try Self.makeY4M(dir, "inset.y4m", "mandelbrot=size=640x360:rate=30", frames: 4)
        let layout = VideoCompositor.Layout.inset(on: Self.canvas)  // 320x180, 16 px from the bottom right
        #expect(layout.x == 944 && layout.y == 524 && layout.width == 320 && layout.height == 180)
        let compositor = try VideoCompositor(
            canvas: Self.canvas,
            inputs: [
                VideoCompositor.Input(source: try Y4MReader(path: main), layout: .fullCanvas(Self.canvas)),
                VideoCompositor.Input(source: try Y4MReader(path: inset), layout: layout)
            ])
        let ours = try Self.frames(compositor)
        let theirs = try Self.ffmpegFrames(
            dir, inputs: [main, inset], graph: "[1:v]scale=320:180[s];[0:v][s]overlay=944:524", frames: 4)
        #expect(ours.count == 4 && theirs.count == 4)
        for (index, (frame, reference)) in zip(ours, theirs).enumerated() {
            let value = Self.psnr(frame, reference)
            #expect(value >= 45, "frame \(index): \(value) dB")
        }
        #expect(ours.map { $0.timing.presentationTime } == (0..<4).map { MediaTime(value: Int64($0), timescale: 30) })
    }

    @Test func aTwoByTwoGridIsWhatFfmpegXstackGives() throws {
        let dir = try TemporaryDirectory()
        let generators = ["testsrc2", "mandelbrot", "rgbtestsrc", "smptebars"]
        let paths = try generators.enumerated().map { index, name in
            try Self.makeY4M(dir, "in\(index).y4m", "\(name)=size=640x360:rate=30", frames: 3)
        }
        let layouts = VideoCompositor.Layout.grid(on: Self.canvas, columns: 2, rows: 2)
        let compositor = try VideoCompositor(
            canvas: Self.canvas,
            inputs: try zip(paths, layouts).map { VideoCompositor.Input(source: try Y4MReader(path: $0), layout: $1) })
        let ours = try Self.frames(compositor)
        let theirs = try Self.ffmpegFrames(
            dir, inputs: paths, graph: "xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0", frames: 3)
        #expect(ours.count == 3)
        for (index, (frame, reference)) in zip(ours, theirs).enumerated() {
            let value = Self.psnr(frame, reference)
            #expect(value >= 45, "frame \(index): \(value) dB")
        }
    }

    @Test func anImageWithAlphaBlendsAsFfmpegOverlayBlendsIt() throws {
        let dir = try TemporaryDirectory()
        let main = try Self.makeY4M(dir, "main.y4m", "testsrc2=size=1280x720:rate=30", frames: 3)
        // A 200x100 PNG: colours across, alpha rising from 0 to 255 across.
        let logo = dir.file("logo.png")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i",
                "color=c=white:s=200x100,format=rgba,geq=r='X':g='Y*2':b='255-X':a='X*255/199'", "-frames:v", "1", logo
            ])
        let picture = try StillImage.load(path: logo)
        #expect(picture.format.video?.pixelFormat == .bgra)
        let compositor = try VideoCompositor(
            canvas: Self.canvas,
            inputs: [
                VideoCompositor.Input(source: try Y4MReader(path: main), layout: .fullCanvas(Self.canvas)),
                .still(picture, layout: VideoCompositor.Layout(x: 100, y: 50, zIndex: 1))
            ])
        let ours = try Self.frames(compositor)
        #expect(ours.count == 3)  // the still does not keep the composition going
        let theirs = try Self.ffmpegFrames(
            dir, inputs: [main, logo], graph: "[0:v][1:v]overlay=100:50", frames: 3)
        for (index, (frame, reference)) in zip(ours, theirs).enumerated() {
            let value = Self.psnr(frame, reference)
            #expect(value >= 45, "frame \(index): \(value) dB")
        }
        // Half opacity: halfway between the canvas without the image and with it (luma, where it is opaque).
        let plain = try Self.frames(
            VideoCompositor(
                canvas: Self.canvas,
                inputs: [VideoCompositor.Input(source: try Y4MReader(path: main), layout: .fullCanvas(Self.canvas))]))
        let half = try Self.frames(
            VideoCompositor(
                canvas: Self.canvas,
                inputs: [
                    VideoCompositor.Input(source: try Y4MReader(path: main), layout: .fullCanvas(Self.canvas)),
                    .still(picture, layout: VideoCompositor.Layout(x: 100, y: 50, zIndex: 1, alpha: 0.5))
                ]))
        let pixel = (50 + 60) * 1280 + 100 + 198
        let expected = (Int(plain[0].planes[0][pixel]) + Int(ours[0].planes[0][pixel])) / 2
        #expect(abs(Int(half[0].planes[0][pixel]) - expected) <= 1)
    }

    @Test func textIsDrawnInItsBoxWhereItWasPut() throws {
        let dir = try TemporaryDirectory()
        let main = try Self.makeY4M(dir, "main.y4m", "color=c=black:size=1280x720:rate=30", frames: 2)
        let text = VideoCompositor.TextOverlay(
            .string("Score: 2–1 ✓ 100% 'quoted': done"), size: 40, color: .white,
            box: VideoCompositor.Color(red: 0, green: 0, blue: 255), boxBorder: 10)
        let compositor = try VideoCompositor(
            canvas: Self.canvas,
            inputs: [
                VideoCompositor.Input(source: try Y4MReader(path: main), layout: .fullCanvas(Self.canvas)),
                try .text(text, on: Self.canvas, layout: VideoCompositor.Layout(x: 200, y: 400, zIndex: 1))
            ])
        let frame = try #require(try Self.frames(compositor).last)
        let luma = frame.planes[0]
        let blue = VideoCompositor.Color(red: 0, green: 0, blue: 255)
        // Pure blue (BT.601 limited): Y 41, Cb 240. Just inside the box's top left corner.
        let textLuma: Int = Int(luma[402 * 1280 + 202])
        #expect(abs(textLuma - 41) <= 2, "luma \(textLuma)")
        #expect(frame.planes[1][201 * 640 + 101] >= 235, "Cb \(frame.planes[1][201 * 640 + 101])")
        _ = blue
        // Outside the box: the black canvas.
        #expect(luma[390 * 1280 + 190] == 16)
        // White glyphs in the text's row.
        let row = luma[(430 * 1280 + 210)..<(430 * 1280 + 700)]
        #expect(row.contains { $0 > 200 }, "no text drawn")
        // Its temporary text file is gone once the layer is built.
        let left = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("mediapipeline-text-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aCroppedInputIsWhatFfmpegCropThenOverlayGives() throws {
        let dir = try TemporaryDirectory()
        let main = try Self.makeY4M(dir, "main.y4m", "testsrc2=size=1280x720:rate=30", frames: 3)
        let other = try Self.makeY4M(dir, "other.y4m", "mandelbrot=size=640x360:rate=30", frames: 3)
        let crop = VideoCompositor.Crop(x: 100, y: 60, width: 320, height: 180)
        let compositor = try VideoCompositor(
            canvas: Self.canvas,
            inputs: [
                VideoCompositor.Input(source: try Y4MReader(path: main), layout: .fullCanvas(Self.canvas)),
                // Cropped as it is, and cropped then scaled down by half.
                VideoCompositor.Input(
                    source: try Y4MReader(path: other),
                    layout: VideoCompositor.Layout(x: 40, y: 40, zIndex: 1, crop: crop)),
                VideoCompositor.Input(
                    source: try Y4MReader(path: other),
                    layout: VideoCompositor.Layout(x: 600, y: 300, width: 160, height: 90, zIndex: 2, crop: crop))
            ])
        let ours = try Self.frames(compositor)
        let theirs = try Self.ffmpegFrames(
            dir, inputs: [main, other],
            graph:
                "[1:v]split[a][b];[a]crop=320:180:100:60[c];[b]crop=320:180:100:60,scale=160:90[d];[0:v][c]overlay=40:40[e];[e][d]overlay=600:300",
            frames: 3)
        #expect(ours.count == 3)
        for (index, (frame, reference)) in zip(ours, theirs).enumerated() {
            let value = Self.psnr(frame, reference)
            #expect(value >= 45, "frame \(index): \(value) dB")
        }
    }

    @Test func aTimecodeLayerCountsTheCanvasFrames() throws {
        let small = VideoCompositor.Canvas(width: 320, height: 96, frameRate: FrameRate(25), background: .black)
        let timecode = try VideoCompositor.Input.text(
            VideoCompositor.TextOverlay(.timecode, size: 32), on: small, layout: VideoCompositor.Layout(x: 8, y: 8))
        let compositor = try VideoCompositor(
            canvas: small, duration: MediaTime(value: 3, timescale: 25), inputs: [timecode])
        let frames = try Self.frames(compositor)
        #expect(frames.count == 3)
        // The digits change from frame to frame (00:00:00:00, :01, :02): the text rows differ, and white
        // glyph pixels are there in each.
        let rows = frames.map { Array($0.planes[0][(8 * 320)..<(60 * 320)]) }
        #expect(Set(rows).count == 3, "the timecode did not change between frames")
        #expect(rows.allSatisfy { $0.contains { $0 > 200 } }, "no text drawn")
    }

    @Test func inputsAtOtherRatesAreRepeatedOrDroppedAndCounted() throws {
        let slow = try TestPatternGenerator(width: 64, height: 48, frameRate: FrameRate(15), length: .frames(15))
        let fast = try TestPatternGenerator(width: 64, height: 48, frameRate: FrameRate(60), length: .frames(60))
        let small = VideoCompositor.Canvas(width: 128, height: 48, frameRate: FrameRate(30))
        let slowInput = VideoCompositor.Input(source: slow, layout: VideoCompositor.Layout(x: 0, y: 0))
        let fastInput = VideoCompositor.Input(source: fast, layout: VideoCompositor.Layout(x: 64, y: 0))
        let compositor = try VideoCompositor(canvas: small, inputs: [slowInput, fastInput])
        let frames = try Self.frames(compositor)
        #expect(frames.count == 30)  // both last 1 s
        #expect(slowInput.controls.repeatedFrames == 15, "\(slowInput.controls.repeatedFrames)")
        #expect(slowInput.controls.droppedFrames == 0)
        #expect(fastInput.controls.droppedFrames == 30, "\(fastInput.controls.droppedFrames)")
        #expect(fastInput.controls.repeatedFrames == 0)
    }

    @Test func aLayoutChangedBetweenTwoFramesShowsInTheNext() throws {
        let small = VideoCompositor.Canvas(width: 64, height: 32, frameRate: FrameRate(30), background: .black)
        let white = MediaSample(
            format: .video(.raw(.yuv420p, width: 8, height: 8)),
            planes: [
                [UInt8](repeating: 235, count: 64), [UInt8](repeating: 128, count: 16),
                [UInt8](repeating: 128, count: 16)
            ],
            timing: SampleTiming(presentationTime: .zero, decodeTime: .zero, duration: .invalid), frameCount: 1)
        let square = VideoCompositor.Input.still(white, layout: VideoCompositor.Layout(x: 0, y: 0))
        let compositor = try VideoCompositor(
            canvas: small, duration: MediaTime(value: 3, timescale: 30), inputs: [square])
        let first = try #require(try compositor.next())
        square.controls.layout.x = 32
        let second = try #require(try compositor.next())
        #expect(first.planes[0][0] == 235 && first.planes[0][32] == 16)
        #expect(second.planes[0][0] == 16 && second.planes[0][32] == 235)
        square.controls.remove()
        let third = try #require(try compositor.next())
        #expect(third.planes[0].allSatisfy { $0 == 16 })
        #expect(try compositor.next() == nil)  // its duration: 3 frames
    }

    @Test func badInputsAreRefusedByName() throws {
        #expect(throws: MediaError.self) { try VideoCompositor(canvas: .init(width: 641, height: 360)) }
        do {
            _ = try StillImage.load(path: "/nonexistent/logo.png")
            Issue.record("a missing image loaded")
        } catch {
            #expect(error.message.contains("/nonexistent/logo.png"))
        }
        let input = VideoCompositor.Input(source: try TestPatternGenerator(width: 64, height: 48, length: .frames(1)))
        _ = try VideoCompositor(canvas: Self.canvas, inputs: [input])
        #expect(throws: MediaError.self) { try VideoCompositor(canvas: Self.canvas, inputs: [input]) }
    }
}
