import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ``MediaExportSession`` judged by the ffmpeg CLI: the 1280×720 preset on a 1080p movie gives what the
/// equivalent `ffmpeg` command gives (codecs, sizes, frame counts, durations); the M4A preset the audio
/// alone; a cancel removes the partial file; a stop leaves a shorter file that decodes cleanly.
@Suite(.timeLimit(.minutes(5)), .ffmpegLeakGate) struct MediaExportSessionTests {
    /// A 1920×1080 24 fps H.264 + 48 kHz stereo AAC MP4 of `seconds`, by ffmpeg.
    static func movie(_ dir: TemporaryDirectory, seconds: Int = 2) throws -> String {
        let path = dir.file("movie-\(seconds).mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=24:duration=\(seconds)", "-f",
                "lavfi",
                "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)", "-ac", "2", "-c:v", "libx264",
                "-preset", "ultrafast", "-c:a", "aac", "-shortest", path
            ])
        return path
    }

    /// Per stream: codec, size (video), frames decoded and duration, as ffprobe counts them.
    static func probe(_ path: String) throws -> [(codec: String, size: String, frames: Int, duration: Double)] {
        let result = try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries",
                "stream=codec_name,width,height,nb_read_frames,duration", "-of", "csv=p=0", path
            ])
        return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            // codec_name,width,height,duration,nb_read_frames (audio: codec_name,duration,nb_read_frames)
            if f.count >= 5 { return (f[0], "\(f[1])x\(f[2])", Int(f[4]) ?? -1, Double(f[3]) ?? -1) }
            return (f[0], "", Int(f.last ?? "") ?? -1, Double(f[1]) ?? -1)
        }
    }

    @Test func the1280x720PresetGivesWhatTheEquivalentFFmpegCommandGives() throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir)
        let ours = dir.file("ours.mp4"), theirs = dir.file("theirs.mp4")
        let session = try MediaExportSession(input: movie, outputPath: ours, preset: .h264At1280x720)
        var fractions: [Double] = []
        let result = try session.export { fractions.append($0.fractionCompleted ?? -1) }
        #expect(!result.wasStoppedEarly)
        #expect(fractions.allSatisfy { (0...1).contains($0) }, "\(fractions)")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", movie, "-vf", "scale=1280:720", "-c:v", "libx264", "-c:a", "aac", "-b:a", "128k",
                theirs
            ])
        let (mine, reference) = (try Self.probe(ours), try Self.probe(theirs))
        #expect(mine.map(\.codec) == ["h264", "aac"], "\(mine)")
        #expect(mine.map(\.codec) == reference.map(\.codec))
        #expect(mine.map(\.size) == reference.map(\.size), "\(mine) vs \(reference)")
        #expect(mine.map(\.frames) == reference.map(\.frames), "\(mine) vs \(reference)")
        for (a, b) in zip(mine, reference) {
            #expect(abs(a.duration - b.duration) <= 0.043, "\(a.codec): \(a.duration) s vs \(b.duration) s")
        }
        try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", ours, "-f", "null", "-"])
    }

    @Test func theM4APresetKeepsTheAudioAlone() throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir)
        let ours = dir.file("ours.m4a"), theirs = dir.file("theirs.m4a")
        _ = try MediaExportSession(input: movie, outputPath: ours, preset: .appleM4A).export()
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", movie, "-vn", "-c:a", "aac", "-b:a", "128k", theirs])
        let (mine, reference) = (try Self.probe(ours), try Self.probe(theirs))
        #expect(mine.map(\.codec) == ["aac"], "\(mine)")
        #expect(mine.map(\.frames) == reference.map(\.frames), "\(mine) vs \(reference)")
    }

    @Test func aCancelRemovesThePartialFile() throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir, seconds: 6)
        let output = dir.file("cancelled.mp4")
        let session = try MediaExportSession(input: movie, outputPath: output, preset: .h264)
        let error = try #require(throws: MediaError.self) {
            _ = try session.export { if ($0.fractionCompleted ?? 0) > 0.1 { session.cancel() } }
        }
        #expect(error.code == .cancelled)
        #expect(error.message.contains("partial file was removed"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: output))
        // Cancelled before it starts: nothing is opened or written.
        let early = try MediaExportSession(input: movie, outputPath: output, preset: .h264)
        early.cancel()
        #expect(throws: MediaError.self) { _ = try early.export() }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aStopLeavesAShorterFileThatDecodes() throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir, seconds: 6)
        let output = dir.file("stopped.mp4")
        let stop = StopSignal()
        let result = try MediaExportSession(input: movie, outputPath: output, preset: .h264).export(stop: stop) {
            if ($0.fractionCompleted ?? 0) > 0.1 { stop.request() }
        }
        #expect(result.wasStoppedEarly)
        try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", output, "-f", "null", "-"])
        let streams = try Self.probe(output)
        #expect(streams.map(\.codec) == ["h264", "aac"])
        #expect(streams.allSatisfy { $0.duration > 0 && $0.duration < 5.5 }, "\(streams)")
    }
}
