import Foundation
import MediaCore
import MediaFFmpeg
import MediaFormats
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct VideoConverterTests {
    /// The CLI's conversion of the clip's yuv420p to `pixelFormat`, as raw bytes.
    static func cli(_ clip: VideoClip, from: String, input: String, to: String, size: String? = nil) throws -> [UInt8] {
        var args = [
            "-v", "error", "-f", "rawvideo", "-pix_fmt", from, "-s", "\(clip.width)x\(clip.height)", "-i", input
        ]
        if let size { args += ["-s", size] }
        args += ["-pix_fmt", to, "-sws_flags", "bicubic", "-f", "rawvideo", "-"]
        return [UInt8](try ExternalTool.check("ffmpeg", args).stdout)
    }

    /// yuv420p → nv12/bgra/rgb24 and back give the CLI's bytes (`-sws_flags bicubic`), timing untouched.
    @Test(arguments: [PixelFormat.nv12, .bgra, .rgb24])
    func convertsLikeTheCLI(pixelFormat: PixelFormat) throws {
        let clip = try VideoClip(count: 3)
        let there = try Video.run(try VideoConverter(to: pixelFormat), clip.frames)
        #expect(there.count == 3)
        #expect(there.map(\.timing) == clip.frames.map(\.timing))
        #expect(
            there.allSatisfy {
                $0.format == .video(.raw(pixelFormat, width: 320, height: 240, frameRate: FrameRate(24)))
            })
        let cliThere = try Self.cli(clip, from: "yuv420p", input: clip.yuvPath, to: pixelFormat.rawValue)
        let oursThere = there.flatMap { $0.planes.flatMap { $0 } }
        #expect(oursThere.count == cliThere.count)
        #expect(oursThere == cliThere, "\(pixelFormat) bytes differ from the CLI's")

        let otherPath = clip.dir.file("other.raw")
        try Video.write(cliThere, to: otherPath)
        let back = try Video.run(try VideoConverter(to: .yuv420p), there)
        let cliBack = try Self.cli(clip, from: pixelFormat.rawValue, input: otherPath, to: "yuv420p")
        #expect(back.flatMap { $0.planes.flatMap { $0 } } == cliBack, "\(pixelFormat) → yuv420p differs from the CLI's")
        #expect(zip(clip.frames, back).allSatisfy { Video.lumaPSNR($0, $1) >= 35 })
    }

    /// 320x240 → 160x120 gives the CLI's scaled frames.
    @Test func scalesLikeTheCLI() throws {
        let clip = try VideoClip(count: 2)
        let small = try Video.run(try VideoConverter(to: .yuv420p, width: 160, height: 120), clip.frames)
        #expect(small.allSatisfy { $0.planes.map(\.count) == [19_200, 4800, 4800] })
        #expect(small.map(\.timing) == clip.frames.map(\.timing))
        let cli = try Self.cli(clip, from: "yuv420p", input: clip.yuvPath, to: "yuv420p", size: "160x120")
        #expect(small.flatMap { $0.planes.flatMap { $0 } } == cli)
    }

    /// A y4m with a pixel aspect ratio and chroma siting, scaled to 160x240 and written by Y4MMuxer, is
    /// `ffmpeg -i in.y4m -vf scale=160:240 -f yuv4mpegpipe` byte for byte: the same pixels, the aspect
    /// ratio scaled with the picture (1:1 → 2:1, the display shape kept), the chroma siting kept. A frame
    /// already in the output format passes through, its aspect ratio and siting untouched.
    @Test func scalingKeepsTheDisplayShapeAsTheScaleFilterDoes() throws {
        let dir = try TemporaryDirectory()
        let y4m = dir.file("in.y4m")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "3", "-pix_fmt",
                "yuv420p",
                "-chroma_sample_location", "left", "-f", "yuv4mpegpipe", y4m
            ])
        let reader = try Y4MReader(path: y4m)
        #expect(reader.format.pixelAspectRatio == PixelAspectRatio(1, 1))
        #expect(reader.format.chromaLocation == .left)
        var frames: [MediaSample] = []
        while let frame = try reader.next() { frames.append(frame) }

        let scaled = try Video.run(try VideoConverter(to: .yuv420p, width: 160, height: 240), frames)
        #expect(scaled.first?.format.video?.pixelAspectRatio == PixelAspectRatio(2, 1))
        #expect(scaled.first?.format.video?.chromaLocation == .left)
        let output = MemoryOutput()
        let muxer = Y4MMuxer(output: output)
        for frame in scaled { try muxer.write(frame) }
        try muxer.finish()
        let cli = try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", y4m, "-vf", "scale=160:240", "-f", "yuv4mpegpipe", "-"]
        ).stdout
        let cliHeader = String(decoding: cli.prefix { $0 != 0x0A }, as: UTF8.self)
        #expect(cliHeader.contains(" A2:1 "), "\(cliHeader)")
        let cliWithoutRange = cliHeader.split(separator: " ").filter { !$0.hasPrefix("XCOLORRANGE=") }.joined(
            separator: " ")
        #expect(String(decoding: output.bytes.prefix { $0 != 0x0A }, as: UTF8.self) == cliWithoutRange)
        #expect(Array(output.bytes.drop { $0 != 0x0A }) == Array([UInt8](cli).drop { $0 != 0x0A }))

        let same = try Video.run(try VideoConverter(to: .yuv420p), frames)
        #expect(same.map(\.format) == frames.map(\.format))
        #expect(
            zip(same, frames).allSatisfy { $0.sharesStorage(with: $1) },
            "an unchanged frame is passed on, not converted")
    }

    /// A 1280×720 H.264 movie of `frames` frames written by ffmpeg, and the frames ``H264Decoder``
    /// decodes from it (lent: 1280 is a multiple of FFmpeg's line alignment).
    static func decoded720p(frames: Int, in dir: TemporaryDirectory) throws -> (movie: String, frames: [MediaSample]) {
        let movie = dir.file("in.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25", "-frames:v", "\(frames)", "-c:v",
                "libx264", "-preset", "ultrafast", movie
            ])
        let reader = try ContainerDemuxer.streamSource(path: movie, stream: 0)
        var packets: [MediaSample] = []
        while let packet = try reader.next() { packets.append(packet) }
        return (movie, try Video.run(H264Decoder(), packets))
    }

    /// Frames a decoder lends (their planes are FFmpeg's, read in place by the scaler) scale to what
    /// `ffmpeg -vf scale=320:180` gives, byte for byte.
    @Test func decodedFramesScaleInPlaceAsTheScaleFilterDoes() throws {
        let dir = try TemporaryDirectory()
        let (movie, decoded) = try Self.decoded720p(frames: 6, in: dir)
        #expect(decoded.count == 6)
        let lent = decoded.allSatisfy { $0.borrowsMemory }
        #expect(lent, "1280-wide frames are lent by the decoder")
        let scaled = try Video.run(try VideoConverter(to: .yuv420p, width: 320, height: 180), decoded)
        let cli = try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", movie, "-vf", "scale=320:180", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
        ).stdout
        #expect(scaled.flatMap { $0.planes.flatMap { $0 } } == [UInt8](cli))
    }

    /// Scaled frames whose rows come packed (640×360) are lent, as a decoder lends its frames, and
    /// H.264-encode to the packets their copies encode to (the encoder takes a lent frame by reference).
    @Test func scaledFramesAreLentAndEncodeAsTheirCopiesDo() throws {
        let dir = try TemporaryDirectory()
        let scaled = try Video.run(
            try VideoConverter(to: .yuv420p, width: 640, height: 360), try Self.decoded720p(frames: 8, in: dir).frames)
        #expect(scaled.count == 8)
        let lent = scaled.allSatisfy { $0.borrowsMemory }
        #expect(lent, "640-wide scaled frames are lent")
        let copies = scaled.map { sample -> MediaSample in
            var copy = sample
            copy.planes = sample.planes
            return copy
        }
        let owned = copies.allSatisfy { !$0.borrowsMemory }
        #expect(owned)
        var settings = H264Encoder.Settings()
        settings.preset = "ultrafast"
        let fromLent = try Video.run(try H264Encoder(settings: settings), scaled)
        let fromCopies = try Video.run(try H264Encoder(settings: settings), copies)
        #expect(fromLent.count == 8)
        #expect(fromLent.map(\.data) == fromCopies.map(\.data))
        #expect(fromLent.map(\.timing) == fromCopies.map(\.timing))
    }

    /// Padded input rows give the same output as packed ones.
    @Test func honoursStrides() throws {
        let clip = try VideoClip(count: 1)
        let frame = clip.frames[0]
        var padded = frame
        padded.format = .video(
            VideoFormat(
                codec: .raw(.yuv420p), width: 320, height: 240, frameRate: FrameRate(24), bytesPerRow: [336, 176, 176]))
        padded.planes = frame.planes.enumerated().map { index, plane in
            let width = index == 0 ? 320 : 160
            let stride = index == 0 ? 336 : 176
            var out: [UInt8] = []
            for row in 0..<(plane.count / width) {
                out += plane[row * width..<(row + 1) * width] + [UInt8](repeating: 7, count: stride - width)
            }
            return out
        }
        let a = try Video.run(try VideoConverter(to: .bgra), [frame])
        let b = try Video.run(try VideoConverter(to: .bgra), [padded])
        #expect(a.first?.planes == b.first?.planes)
        #expect(a.first?.planes.first?.count == 320 * 240 * 4)
    }

    /// A plane too short for its declared size throws invalidData naming the sample index.
    @Test func shortPlaneIsAnError() throws {
        let clip = try VideoClip(count: 3)
        var frames = clip.frames
        frames[2].planes[1] = Array(frames[2].planes[1].prefix(100))
        #expect { try Video.run(try VideoConverter(to: .rgb24), frames) } throws: {
            let error = $0 as? MediaError
            return error?.code == .invalidData && error?.sampleIndex == 2 && "\($0)".contains("plane 1")
        }
        #expect(throws: MediaError.self) { try VideoConverter(to: .rgb24, width: 0) }
    }
}
