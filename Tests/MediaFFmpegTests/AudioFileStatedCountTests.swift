import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// A file that holds more frames than its header states plays them all, as ffmpeg decodes it: an MP3
/// whose LAME tag counts one second, followed by another second of frames (two files concatenated),
/// decodes through ``AudioFile`` to what ffmpeg decodes, frame for frame, and a frame seek past the
/// stated end lands on ffmpeg's frame there; ``AudioFileSummary`` counts the same frames.
@Suite(.timeLimit(.minutes(2)), .ffmpegLeakGate) struct AudioFileStatedCountTests {
    static func concatenatedMP3(_ dir: TemporaryDirectory) throws -> String {
        let first = dir.file("first.mp3"), second = dir.file("second.mp3"), both = dir.file("both.mp3")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1", "-ac", "2",
                "-c:a", "libmp3lame", first
            ])
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=1", "-ac", "2",
                "-c:a", "libmp3lame", "-write_xing", "0", "-id3v2_version", "0", second
            ])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: first)) + Data(contentsOf: URL(fileURLWithPath: second))
        try bytes.write(to: URL(fileURLWithPath: both))
        return both
    }

    static func decodeAll(_ file: AudioFile) throws -> [Float] {
        var samples: [Float] = []
        while let pcm = try file.read() { samples += pcm.data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } }
        return samples
    }

    @Test func framesBeyondTheStatedCountPlayAsFFmpegPlaysThem() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.concatenatedMP3(dir)
        let reference = RawAudio.floats(try ExternalTool.decode(path))
        let file = try AudioFile(path: path, outputFormat: PCMFormat(.f32))
        let decoded = try Self.decodeAll(file)
        #expect(decoded.count == reference.count, "\(decoded.count / 2) frames, ffmpeg \(reference.count / 2)")
        #expect((zip(decoded, reference).map { abs($0 - $1) }.max() ?? 1) <= 1e-6)
        let summary = try AudioFileSummary(path: path)
        #expect(summary.validFrames == Int64(reference.count / 2))
        // A seek into the second second lands where ffmpeg's decode has that frame.
        let target = 66_150  // 1.5 s
        try file.seek(toFrame: Int64(target))
        let after = try Self.decodeAll(file)
        #expect(after.count == reference.count - target * 2)
        #expect((zip(after, reference[(target * 2)...]).map { abs($0 - $1) }.max() ?? 1) <= 1e-6)
    }

    /// An MP3 cut off inside a frame: ffmpeg's decoder decodes the cut frame, concealing what is missing,
    /// and so does ``AudioFile``: the same frames, sample for sample.
    @Test func aFrameCutOffByTheEndDecodesAsFFmpegDecodesIt() throws {
        let dir = try TemporaryDirectory()
        let whole = dir.file("whole.mp3"), cut = dir.file("cut.mp3")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=2", "-ac", "2",
                "-c:a", "libmp3lame", whole
            ])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count * 2 / 5).write(to: URL(fileURLWithPath: cut))
        let reference = RawAudio.floats(try ExternalTool.decode(cut))
        let decoded = try Self.decodeAll(try AudioFile(path: cut, outputFormat: PCMFormat(.f32)))
        #expect(decoded.count == reference.count, "\(decoded.count / 2) frames, ffmpeg \(reference.count / 2)")
        #expect((zip(decoded, reference).map { abs($0 - $1) }.max() ?? 1) <= 1e-6)
        #expect(try AudioFileSummary(path: cut).validFrames == Int64(reference.count / 2))
    }
}
