import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// An Annex-B stream in which a start code is followed only by zero bytes (trailing_zero_8bits, H.264 B.1),
/// after every NAL unit and at the end: ffmpeg decodes every frame of it with `-xerror`; AnnexBReader →
/// H264Decoder gives the same frames, and `h264-encoder` re-encodes all of them (counted by ffprobe).
/// (Not "NAL unit … holds only zero bytes" at the first such run.)
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct H264TrailingZerosTests {
    /// `00 00 01 00 00 00 00` after every NAL unit of a 10-frame x264 stream.
    static func paddedStream(in dir: TemporaryDirectory) throws -> (path: String, frames: Int) {
        let source = dir.file("source.h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames:v", "10", "-c:v",
                "libx264", "-preset", "veryfast", "-f", "h264", source
            ])
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        var padded: [UInt8] = []
        for unit in try AnnexBScanner.split(bytes) {
            padded += [0, 0, 0, 1] + unit.bytes + [0, 0, 1, 0, 0, 0, 0]
        }
        let path = dir.file("padded.h264")
        try Data(padded).write(to: URL(fileURLWithPath: path))
        return (path, 10)
    }

    @Test func ffmpegOurDecoderAndTheExampleAllGiveEveryFrame() throws {
        let dir = try TemporaryDirectory()
        let (path, frames) = try Self.paddedStream(in: dir)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.suffix(7) == [0, 0, 1, 0, 0, 0, 0])

        // ffmpeg, strict: every frame, no error.
        let ffmpeg = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "framemd5", "-"])
        #expect(ffmpeg.status == 0 && ffmpeg.stderr.isEmpty, "\(ffmpeg.stderr)")
        let hashes: [String] = ffmpeg.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(hashes.count == frames)

        // Ours: the same frames, no access unit without a frame.
        let reader = try AnnexBReader(path: path, readSize: 997)  // runs split across reads too
        let decoder = H264Decoder()
        var decoded: [MediaSample] = []
        while let sample = try reader.next() { try decoder.process(sample, into: { decoded.append($0) }) }
        try decoder.finish(into: { decoded.append($0) })
        #expect(reader.accessUnitCount == Int64(frames))
        #expect(decoder.missingFrameCount == 0)
        #expect(decoded.map(H264DecoderTests.md5) == hashes)

        // The example: exit 0, every frame re-encoded.
        let out = dir.file("re.h264")
        let run = try ExternalTool.run(
            TestPaths.executable("h264-encoder"), ["--input", path, "--preset", "veryfast", "--output", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("\(frames) frames in, \(frames) frames out"), "\(run.stderr)")
        let probe = try ExternalTool.ffprobeJSON(out, ["-count_frames", "-show_streams", "-select_streams", "v:0"])
        let stream = try #require((probe["streams"] as? [[String: Any]])?.first)
        #expect(stream["nb_read_frames"] as? String == "\(frames)")
    }
}
