import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// H.264 beyond 8-bit 4:2:0: High 10 and High 4:2:2 streams written by the ffmpeg CLI's
/// libx264 decode (to the same bytes as `ffmpeg -f yuv4mpegpipe`), and `h264-encoder` re-encodes them to
/// 8-bit 4:2:0 by default or keeps 10 bits with `--pixel-format`, each stream byte for byte the CLI's with
/// the same `-pix_fmt`.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct H264HighBitDepthTests {
    static let encoder = TestPaths.executable("h264-encoder")

    /// Writes `frames` frames of FFmpeg's `testsrc2` as an Annex-B stream of `pixelFormat` (libx264).
    static func writeStream(_ path: String, pixelFormat: String, frames: Int = 12) throws {
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames:v", "\(frames)",
                "-pix_fmt", pixelFormat, "-c:v", "libx264", "-preset", "ultrafast", "-f", "h264", "-y", path
            ])
    }

    /// `profile` and `pix_fmt` of the first video stream, and its frame count.
    static func probe(_ path: String) throws -> (profile: String, pixelFormat: String, frames: Int) {
        let json = try ExternalTool.ffprobeJSON(path, ["-count_frames", "-show_streams", "-select_streams", "v:0"])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        let frames = Int(stream["nb_read_frames"] as? String ?? "") ?? -1
        return (stream["profile"] as? String ?? "", stream["pix_fmt"] as? String ?? "", frames)
    }

    @Test(arguments: [
        ("yuv420p10le", "420p10"), ("yuv422p10le", "422p10"), ("yuv444p10le", "444p10"), ("yuv422p", "422")
    ])
    func decodesToTheCLIsYUV4MPEGBytes(pixelFormat: String, chromaTag: String) throws {
        let dir = try TemporaryDirectory()
        let stream = dir.file("in.h264")
        try Self.writeStream(stream, pixelFormat: pixelFormat)
        let ours = dir.file("ours.y4m")
        var pipeline = Pipeline(
            source: try AnnexBReader(path: stream, defaultFrameRate: FrameRate(25)), stages: [H264Decoder()],
            sink: Y4MMuxer(output: try FileOutput(path: ours)))
        let result = try pipeline.run()
        #expect(result.samplesWritten == 12)
        let theirs = dir.file("cli.y4m")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", stream, "-strict", "-1", "-f", "yuv4mpegpipe", "-y", theirs])
        let ourBytes = try Data(contentsOf: URL(fileURLWithPath: ours))
        let header = String(decoding: ourBytes.prefix(while: { $0 != 0x0A }), as: UTF8.self)
        #expect(header.contains(" C\(chromaTag) "), "header: \(header)")
        // The frames, byte for byte (the headers differ only where the CLI writes its own aspect default).
        let frames = { (data: Data) in data.suffix(from: data.firstIndex(of: 0x0A).map { $0 + 1 } ?? 0) }
        #expect(frames(ourBytes) == frames(try Data(contentsOf: URL(fileURLWithPath: theirs))))
        // And Y4MReader reads ffmpeg's file back as the same pixel format.
        let reader = try Y4MReader(path: theirs)
        #expect(reader.format.pixelFormat?.rawValue == pixelFormat)
    }

    @Test(
        arguments: [
            // (input, --pixel-format or nil, expected pix_fmt, expected profile)
            ("yuv420p10le", nil, "yuv420p", "High"), ("yuv420p10le", "yuv420p10le", "yuv420p10le", "High 10"),
            ("yuv422p10le", nil, "yuv420p", "High"), ("yuv422p10le", "yuv422p10le", "yuv422p10le", "High 4:2:2"),
            ("yuv422p", nil, "yuv420p", "High"), ("yuv420p", "yuv422p", "yuv422p", "High 4:2:2")
        ] as [(String, String?, String, String)])
    func reencodesAsTheCLIDoesWithTheSamePixelFormat(
        input: String, requested: String?, expected: String, profile: String
    ) throws {
        let dir = try TemporaryDirectory()
        let stream = dir.file("in.h264")
        try Self.writeStream(stream, pixelFormat: input)
        let ours = dir.file("ours.h264")
        let run = try ExternalTool.run(
            Self.encoder, ["-o", ours, "-i", stream, "-q"] + (requested.map { ["--pixel-format", $0] } ?? []))
        #expect(run.status == 0, "h264-encoder: \(run.stderr)")
        let probed = try Self.probe(ours)
        #expect(probed.pixelFormat == expected)
        #expect(probed.profile == profile)
        #expect(probed.frames == 12)
        let cli = dir.file("cli.h264")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", stream, "-pix_fmt", expected, "-c:v", "libx264", "-f", "h264", "-y", cli])
        #expect(try Data(contentsOf: URL(fileURLWithPath: ours)) == (try Data(contentsOf: URL(fileURLWithPath: cli))))
    }

    @Test func refusesAPixelFormatLibx264DoesNotTake() throws {
        let run = try ExternalTool.run(Self.encoder, ["-o", "/dev/null", "--pixel-format", "bgra"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--pixel-format 'bgra' is not one of"))
    }

    @Test func tenBitTestPatternIsTheEightBitOneShiftedUpTwoBits() throws {
        var eight = try TestPatternGenerator(width: 64, height: 48, pixelFormat: .yuv422p, length: .frames(1))
        var ten = try TestPatternGenerator(width: 64, height: 48, pixelFormat: .yuv422p10le, length: .frames(1))
        let a = try #require(try eight.next())
        let b = try #require(try ten.next())
        #expect(b.planes.count == 3)
        for plane in 0..<3 {
            let bytes = b.planes[plane]
            #expect(bytes.count == 2 * a.planes[plane].count)
            let words = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
            #expect(words == a.planes[plane].map { UInt16($0) << 2 })
        }
        #expect(PixelFormat.yuv422p10le.frameByteCount(width: 64, height: 48) == 2 * 64 * 48 * 2)
    }
}
