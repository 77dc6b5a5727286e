import Foundation
import Logging
import MediaPipeline
import MediaTestSupport
import Testing

/// An M4A's edit list against the samples it edits (issue 33's "counts that agree with the file"): a
/// claim the samples contradict is a warning naming the track and the `elst`'s byte offset, and what
/// is read is what the samples hold, as ffmpeg decodes it; an edit shorter than the media is an edit,
/// applied without a word; an export of a track with nothing to present fails instead of leaving an
/// empty file.
@Suite(.timeLimit(.minutes(5)), .ffmpegLeakGate) struct ContainerDemuxerEditListTests {
    /// Two seconds of a 440 Hz tone as AAC in an M4A written by the ffmpeg CLI (one edit: media time
    /// 1024, the priming, for 2000 ms of the movie's 1000 Hz timescale), and the byte offset of its `elst`.
    static func tone(in dir: TemporaryDirectory) throws -> (bytes: [UInt8], elst: Int) {
        let path = dir.file("tone.m4a")
        try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac", path])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let elst = try #require(Data(bytes).range(of: Data("elst".utf8))).lowerBound - 4
        return (bytes, elst)
    }

    /// `bytes` with the first edit's segment duration (`field` 0) or media time (`field` 1) set to `value`.
    static func edited(_ bytes: [UInt8], elst: Int, field: Int, _ value: UInt32) -> [UInt8] {
        var copy = bytes
        let at = elst + 16 + 4 * field  // size, type, version/flags, entry count, then the entry
        for i in 0..<4 { copy[at + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
        return copy
    }

    /// The frames the demuxer's samples present (frame counts less their trims), and its diagnostics.
    static func read(_ bytes: [UInt8]) throws -> (frames: Int, diagnostics: [MediaDiagnostic]) {
        let demuxer = try ContainerDemuxer(bytes: bytes)
        let source = try demuxer.source(stream: try #require(demuxer.firstAudioStream))
        var frames = 0
        while let sample = try source.next() { frames += sample.frameCount - sample.trimAtStart - sample.trimAtEnd }
        return (frames, demuxer.diagnostics)
    }

    /// The frames `ffmpeg` decodes from `bytes`.
    static func ffmpegFrames(_ bytes: [UInt8], in dir: TemporaryDirectory) throws -> Int {
        let path = dir.file("ffmpeg-input.m4a")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-"]).stdout
            .count / 2
    }

    @Test func anEditLongerThanTheSamplesIsAWarningAndTheSamplesAreRead() throws {
        let dir = try TemporaryDirectory()
        let (bytes, elst) = try Self.tone(in: dir)
        let original = try Self.read(bytes)
        #expect(original.diagnostics.isEmpty)
        #expect(original.frames == 88_200)  // the edit's 2 s exactly

        let long = Self.edited(bytes, elst: elst, field: 0, 20_000)  // claims 20 s
        let read = try Self.read(long)
        #expect(read.frames == (try Self.ffmpegFrames(long, in: dir)))  // every frame after the priming
        let warning = try #require(read.diagnostics.first)
        #expect(read.diagnostics.count == 1)
        #expect(warning.level == .warning)
        #expect(warning[DiagnosticKey.code] == "editBeyondMedia")
        #expect(warning[DiagnosticKey.byteOffset] == String(elst))
        #expect(warning.message.contains("presents 20.000 s but its samples hold 2.000 s"), "\(warning.message)")
    }

    @Test func anEditShorterThanTheSamplesIsAnEditAndNoWarning() throws {
        let dir = try TemporaryDirectory()
        let (bytes, elst) = try Self.tone(in: dir)
        let read = try Self.read(Self.edited(bytes, elst: elst, field: 0, 500))
        #expect(read.diagnostics.isEmpty)
        #expect(read.frames == 22_050)  // 0.5 s, sample-exact (ffmpeg 5.1 rounds up to whole packets)
    }

    @Test func anEditPastTheEndIsAWarningAndItsExportFailsLeavingNoFile() throws {
        let dir = try TemporaryDirectory()
        let (bytes, elst) = try Self.tone(in: dir)
        let far = Self.edited(bytes, elst: elst, field: 1, 10_000_000)  // media time 226.8 s
        #expect(try Self.ffmpegFrames(far, in: dir) == 0)
        let read = try Self.read(far)
        #expect(read.frames == 0)
        let warning = try #require(read.diagnostics.first)
        #expect(warning[DiagnosticKey.code] == "editPastMediaEnd")
        #expect(warning.message.contains("starts at media time 226.757 s"), "\(warning.message)")

        let input = dir.file("far.m4a")
        try Data(far).write(to: URL(fileURLWithPath: input))
        let output = dir.file("out.mp4")
        let session = try MediaExportSession(input: input, outputPath: output, preset: .h264)
        #expect {
            _ = try session.export()
        } throws: { error in
            let error = error as? MediaError
            return error?.code == .invalidData && error?.message.contains("editPastMediaEnd") == false
                && error?.message.contains("nothing to export") == true
                && error?.message.contains("nothing of the track is presented") == true
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A damaged `moov` (an `stts` whose entry count runs past its box) ends the check without a
    /// diagnostic or a trap; libavformat judges the file.
    @Test func aSampleTableThatDoesNotFitEndsTheCheck() throws {
        let dir = try TemporaryDirectory()
        var (bytes, elst) = try Self.tone(in: dir)
        bytes = Self.edited(bytes, elst: elst, field: 0, 20_000)
        let stts = try #require(Data(bytes).range(of: Data("stts".utf8))).lowerBound - 4
        for i in 0..<4 { bytes[stts + 12 + i] = 0xFF }  // entry count 2^32 - 1
        let diagnostics = (try? ContainerDemuxer(bytes: bytes))?.diagnostics ?? []
        #expect(diagnostics.isEmpty)
    }

    /// ffmpeg's H.264 with B-frames in MP4: the edit starts at the first composition offset and presents
    /// the whole duration, which the samples hold once their `ctts` offsets count; no warning. (It was
    /// reported as `editBeyondMedia` before the offsets counted.) The same edit made 1 s longer still is.
    @Test func bFramesCompositionOffsetsAreHeldNotBeyond() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("b.mp4")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-t", "3", "-c:v", "libx264", "-bf",
            "3", path
        ])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Data(bytes).range(of: Data("ctts".utf8)) != nil, "the fixture has composition offsets")
        #expect(try ContainerDemuxer(bytes: bytes).diagnostics.isEmpty)
        let elst = try #require(Data(bytes).range(of: Data("elst".utf8))).lowerBound - 4
        // segment_duration is in the movie's timescale (1000 here): 3 s → 4 s.
        let longer = Self.edited(bytes, elst: elst, field: 0, 4_000)
        #expect(try ContainerDemuxer(bytes: longer).diagnostics.map(\.code) == ["editBeyondMedia"])
    }
}
