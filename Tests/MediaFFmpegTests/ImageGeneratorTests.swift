import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `ImageGenerator` against the ffmpeg CLI: the exact frame at 20 random times in each of three files
/// with B-frames (MP4, Matroska, MOV at 30000/1001) is the frame `ffmpeg -ss T -i file -frames:v 1`
/// gives, byte for byte, asked in a random order (seeks back and forth, decoding on); in an MPEG-TS file
/// (no index, a 1.4 s start), where `ffmpeg -ss` lands on a frame it cannot decode whole, it is the frame
/// of a decode of the whole file that comes first at or after the time; the
/// keyframe mode gives the last keyframe ffprobe lists at or before the time; scaled pictures are
/// ffmpeg's scaled frame; a PNG holds ffmpeg's pixels and a JPEG is close to them.
@Suite(.timeLimit(.minutes(5)), .ffmpegLeakGate) struct ImageGeneratorTests {
    /// A movie of `seconds` of testsrc2 at `size` and `rate`, H.264 with `bFrames` B-frames and a keyframe
    /// every `gop` frames, in `dir` as `name` (the container is the extension's).
    static func movie(
        _ dir: TemporaryDirectory, _ name: String, size: String, rate: String, bFrames: Int, gop: Int, seconds: Int = 8
    ) throws -> String {
        let path = dir.file(name)
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=\(seconds)",
            "-c:v", "libx264", "-preset", "veryfast", "-bf", "\(bFrames)", "-g", "\(gop)", "-pix_fmt", "yuv420p", path
        ])
        return path
    }

    /// The frames `ffmpeg -ss T -i path -frames:v 1` gives for each of `times` (seconds), as raw pixels of
    /// `pixelFormat` (scaled to `size` when given): one ffmpeg run, one input and one output per time.
    static func ffmpegFrames(
        _ dir: TemporaryDirectory, _ path: String, at times: [String], pixelFormat: String = "yuv420p",
        size: String? = nil
    ) throws -> [Data] {
        var arguments = ["-v", "error", "-y"]
        for time in times { arguments += ["-ss", time, "-i", path] }
        for index in times.indices {
            arguments +=
                ["-map", "\(index):v", "-frames:v", "1"] + (size.map { ["-s", $0] } ?? []) + [
                    "-f", "rawvideo", "-pix_fmt", pixelFormat, dir.file("ffmpeg-\(index).raw")
                ]
        }
        try ExternalTool.check("ffmpeg", arguments)
        return try times.indices.map { try Data(contentsOf: URL(fileURLWithPath: dir.file("ffmpeg-\($0).raw"))) }
    }

    /// `count` times in [0, `limit`) ms, from a generator seeded with `seed` (so a failure can be rerun).
    static func randomTimes(_ count: Int, below limit: Int, seed: UInt64) -> [Int] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(limit))
        }
    }

    static func seconds(_ milliseconds: Int) -> String {
        String(format: "%d.%03d", milliseconds / 1000, milliseconds % 1000)
    }

    @Test(arguments: [
        ("mp4", "320x240", "25", 3, 30), ("mkv", "256x144", "24", 2, 24), ("mov", "320x180", "30000/1001", 3, 15)
    ])
    func exactFramesAreFFmpegsAtTwentyRandomTimes(container: String, size: String, rate: String, bFrames: Int, gop: Int)
        throws
    {
        let dir = try TemporaryDirectory()
        let path = try Self.movie(dir, "movie.\(container)", size: size, rate: rate, bFrames: bFrames, gop: gop)
        let seed = UInt64(container.utf8.reduce(0) { $0 &* 31 &+ Int($1) })
        // And times just before keyframes (every 1.2 s, 1 s, 0.5 s): their frame is presented before the
        // keyframe, whose decode time is before the time asked. (The seek further back is the MPEG-TS test's.)
        let times = Self.randomTimes(20, below: 7_900, seed: seed) + [1_150, 2_350, 950, 1_950, 450, 950]
        let reference = try Self.ffmpegFrames(dir, path, at: times.map(Self.seconds))
        let generator = try ImageGenerator(path: path)
        for (time, expected) in zip(times, reference) {
            let frame = try generator.image(at: MediaTime(value: Int64(time), timescale: 1000))
            // Compared outside #expect, which would write out a diff of the bytes (minutes for a frame).
            let same = Data(frame.planes.flatMap { $0 }) == expected
            #expect(
                same,
                "\(container): the frame at \(Self.seconds(time)) s (ours at \(frame.timing.presentationTime)) is not ffmpeg's"
            )
            #expect(frame.timing.presentationTime >= MediaTime(value: Int64(time), timescale: 1000))
        }
    }

    @Test func inMPEGTSTheExactFrameIsTheWholeDecodesFrameAtOrAfterTheTime() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.movie(dir, "movie.ts", size: "320x180", rate: "30000/1001", bFrames: 3, gop: 15)
        // Every frame, decoded from the start: frame i is at i × 1001/30000 s into the file.
        let whole = try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
        ).stdout
        let frameBytes = 320 * 180 * 3 / 2
        #expect(whole.count == 240 * frameBytes, "\(whole.count / frameBytes) frames")
        let generator = try ImageGenerator(path: path)
        for time in Self.randomTimes(12, below: 7_900, seed: 3) {
            let index = (time * 30 + 1000) / 1001  // ceil(time / 1000 s × 30000/1001 frames a second)
            let frame = try generator.image(at: MediaTime(value: Int64(time), timescale: 1000))
            let expected = whole.subdata(in: (index * frameBytes)..<((index + 1) * frameBytes))
            // Compared outside #expect, which would write out a diff of the bytes (minutes for a frame).
            let same = Data(frame.planes.flatMap { $0 }) == expected
            #expect(
                same,
                "the frame at \(Self.seconds(time)) s (ours at \(frame.timing.presentationTime)) is not frame \(index)")
        }
    }

    @Test func keyframeModeGivesTheLastKeyframeAtOrBeforeTheTime() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.movie(dir, "movie.mp4", size: "320x240", rate: "25", bFrames: 3, gop: 30)
        let packets = try ExternalTool.check(
            "ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", path]
        ).output
        let keyframes = packets.split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",")
            return fields.count == 2 && fields[1].hasPrefix("K") ? Double(fields[0]) : nil
        }.sorted()
        #expect(keyframes.count >= 4, "\(packets)")
        let generator = try ImageGenerator(path: path)
        let exact = try ImageGenerator(path: path)
        generator.tolerance = .keyframe
        for time in Self.randomTimes(8, below: 7_900, seed: 7) + [0, 1_200, 1_199] {
            let frame = try generator.image(at: MediaTime(value: Int64(time), timescale: 1000))
            let expected = try #require(keyframes.last { $0 <= Double(time) / 1000 + 1e-9 })
            let got = try #require(frame.timing.presentationTime.seconds)
            #expect(abs(got - expected) < 1e-6, "keyframe for \(time) ms: \(got), ffprobe's \(expected)")
            // Its pixels are the exact frame's at that time (which the test above holds to ffmpeg's).
            let same = frame.planes == (try exact.image(at: frame.timing.presentationTime)).planes
            #expect(same, "the keyframe for \(time) ms is not the exact frame at its time")
        }
    }

    @Test func scaledPicturesAndImageFilesAreFFmpegs() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.movie(dir, "movie.mp4", size: "320x240", rate: "25", bFrames: 3, gop: 30)
        let generator = try ImageGenerator(path: path)
        generator.scaling = .exactly(width: 160, height: 90)
        generator.pixelFormat = .rgb24
        let scaled = try generator.image(at: MediaTime(value: 3_030, timescale: 1000))
        let reference = try Self.ffmpegFrames(dir, path, at: ["3.030"], pixelFormat: "rgb24", size: "160x90")
        let same = Data(scaled.planes[0]) == reference[0]
        #expect(same, "160x90 rgb24 differs from ffmpeg -s 160x90 -pix_fmt rgb24")

        generator.scaling = .fitting(width: 200, height: 200)
        generator.pixelFormat = nil
        guard case .video(let fitted) = try generator.image(at: .seconds(1)).format else {
            Issue.record("not video")
            return
        }
        #expect((fitted.width, fitted.height) == (200, 150))

        generator.scaling = nil
        let png = dir.file("ours.png")
        let jpeg = dir.file("ours.jpg")
        try Data(try generator.imageData(at: MediaTime(value: 2_345, timescale: 1000), as: .png)).write(
            to: URL(fileURLWithPath: png))
        try Data(try generator.imageData(at: MediaTime(value: 2_345, timescale: 1000), as: .jpeg())).write(
            to: URL(fileURLWithPath: jpeg))
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-ss", "2.345", "-i", path, "-frames:v", "1", dir.file("ffmpeg.png")])
        func rgb(_ file: String) throws -> Data {
            try ExternalTool.check("ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
                .stdout
        }
        let theirs = try rgb(dir.file("ffmpeg.png"))
        let samePNG = try rgb(png) == theirs
        #expect(samePNG, "our PNG's pixels are not those of ffmpeg's PNG of the same frame")
        let ours = try rgb(jpeg)
        #expect(ours.count == theirs.count)
        var sum = 0.0
        for index in 0..<min(ours.count, theirs.count) {
            let difference = Double(ours[index]) - Double(theirs[index])
            sum += difference * difference
        }
        let psnr = 10 * log10(255 * 255 / max(sum / Double(max(1, ours.count)), 1e-9))
        #expect(psnr >= 30, "JPEG at quality 0.9: PSNR \(psnr) dB against ffmpeg's PNG")
        let stream = try ExternalTool.probeFirstStream(jpeg)
        #expect(stream["codec_name"] as? String == "mjpeg" && stream["pix_fmt"] as? String == "yuvj420p", "\(stream)")
    }

    @Test func aContactSheetHoldsEachPictureInItsCell() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.movie(dir, "movie.mp4", size: "320x240", rate: "25", bFrames: 3, gop: 30)
        let generator = try ImageGenerator(path: path)
        let times = ["0.500", "1.000", "2.000", "4.000", "6.000"]
        let sheet = try generator.contactSheet(
            columns: 3, rows: 2, cellWidth: 160, cellHeight: 160,
            at: times.map { MediaTime(value: Int64(Double($0)! * 1000), timescale: 1000) })
        guard case .video(let format) = sheet.format else {
            Issue.record("not video")
            return
        }
        #expect((format.width, format.height, format.pixelFormat) == (480, 320, .rgb24))
        let cells = try Self.ffmpegFrames(dir, path, at: times, pixelFormat: "rgb24", size: "160x120")
        let pixels = sheet.planes[0]
        for (index, cell) in cells.enumerated() {
            // 160x120 centred in a 160x160 cell: 20 black rows above.
            let left = (index % 3) * 160
            let top = (index / 3) * 160 + 20
            var region = Data()
            for row in 0..<120 {
                let start = ((top + row) * 480 + left) * 3
                region.append(contentsOf: pixels[start..<(start + 160 * 3)])
            }
            let same = region == cell
            #expect(same, "cell \(index) is not ffmpeg's frame at \(times[index]) s scaled to 160x120")
            let above = ((top - 1) * 480 + left) * 3
            #expect(pixels[above..<(above + 480)].allSatisfy { $0 == 0 }, "cell \(index) is not on black")
        }
        let empty = (160 + 40) * 480 * 3 + 2 * 160 * 3
        #expect(pixels[empty..<(empty + 480)].allSatisfy { $0 == 0 }, "the sixth cell is not empty")
    }

    @Test func whatItCannotDoIsATypedErrorNamingIt() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.movie(dir, "movie.mp4", size: "160x120", rate: "25", bFrames: 0, gop: 25, seconds: 2)
        let generator = try ImageGenerator(path: path)
        do {
            _ = try generator.image(at: .seconds(3))
            Issue.record("a time after the last frame gave a picture")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("1.96 s"), "\(error)")
        }
        // The generator is still usable after that.
        #expect(try generator.image(at: .seconds(1)).timing.presentationTime == .seconds(1))

        let audio = dir.file("tone.wav")
        try GeneratedFixture.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", audio])
        #expect(throws: MediaError.self) { try ImageGenerator(path: audio) }
        do {
            _ = try ImageGenerator(path: audio)
        } catch {
            #expect(error.code == .unsupportedFormat && error.message.contains("no video stream"), "\(error)")
        }
        let mpeg4 = dir.file("part2.mp4")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:duration=1", "-c:v", "mpeg4", mpeg4
        ])
        do {
            _ = try ImageGenerator(path: mpeg4)
            Issue.record("an MPEG-4 Part 2 stream was taken")
        } catch {
            #expect(error.code == .unsupportedFormat && error.message.contains("mpeg4"), "\(error)")
        }
        #expect(throws: MediaError.self) { try ImageGenerator(path: dir.file("missing.mp4")) }

        for (bad, words) in [("a/%s.png", "%d"), ("a/%d-%d.png", "more than one"), ("a/frame.gif", ".png")] {
            do {
                _ = try ImageWriter(path: dir.file(bad))
                Issue.record("ImageWriter took \(bad)")
            } catch {
                #expect(error.code == .invalidArgument && error.message.contains(words), "\(error)")
            }
        }
        #expect(throws: MediaError.self) { try ImageEncoder(format: .jpeg(quality: 1.5)) }
    }

    @Test func anImageWriterNumbersItsFilesOrReplacesOne() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.movie(dir, "movie.mp4", size: "160x120", rate: "25", bFrames: 0, gop: 25, seconds: 2)
        let generator = try ImageGenerator(path: path)
        let numbered = CheckedSink(try ImageWriter(path: dir.file("f-%03d.jpg"), startNumber: 7))
        let single = try ImageWriter(path: dir.file("latest.png"))
        try generator.images(every: MediaTime(value: 1, timescale: 2)) { _, picture in
            try numbered.write(picture)
            try single.write(picture)
        }
        try numbered.finish()
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(names == ["f-007.jpg", "f-008.jpg", "f-009.jpg", "f-010.jpg", "latest.png", "movie.mp4"], "\(names)")
        // The single file holds the last picture, the frame at 1.5 s.
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-ss", "1.5", "-i", path, "-frames:v", "1", dir.file("ref.png")])
        func rgb(_ file: String) throws -> Data {
            try ExternalTool.check("ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
                .stdout
        }
        let same = try rgb(dir.file("latest.png")) == (try rgb(dir.file("ref.png")))
        #expect(same, "latest.png does not hold the frame at 1.5 s")
    }
}
