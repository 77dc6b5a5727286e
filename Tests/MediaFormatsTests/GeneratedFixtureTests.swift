import Foundation
@testable import MediaTestSupport
import Testing

/// The test inputs made once from ffmpeg's generators: the copy a test gets is what ffmpeg writes, a
/// test that changes its copy leaves the next test's alone, and an input other than a generator is
/// never cached.
@Suite(.timeLimit(.minutes(1))) struct GeneratedFixtureTests {
    @Test func aGeneratedInputIsMadeOnceAndEachTestGetsItsOwnCopyOfWhatFFmpegWrites() throws {
        let dir = try TemporaryDirectory()
        // A seed no earlier run used, so that this run makes the fixture.
        let seed = UInt32.random(in: 1...UInt32.max)
        let arguments = [
            "-v", "error", "-f", "lavfi", "-i", "anoisesrc=r=8000:a=0.5:seed=\(seed):d=0.1", "-c:a", "pcm_s16le",
            "-fflags", "+bitexact"
        ]
        let cached = try GeneratedFixture.cachePath(for: arguments, extension: "wav")
        #expect(!FileManager.default.fileExists(atPath: cached))
        try GeneratedFixture.ffmpeg(arguments + [dir.file("first.wav")])
        #expect(FileManager.default.fileExists(atPath: cached))
        try ExternalTool.check("ffmpeg", arguments + [dir.file("direct.wav")])
        let direct = try Data(contentsOf: URL(fileURLWithPath: dir.file("direct.wav")))
        #expect(direct.count == 44 + 800 * 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("first.wav"))) == direct)

        // The first test changes its copy; the second still gets ffmpeg's file.
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: dir.file("first.wav")))
        try GeneratedFixture.ffmpeg(arguments + [dir.file("second.wav")])
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("second.wav"))) == direct)
        try FileManager.default.removeItem(atPath: cached)
    }

    @Test func onlyGeneratorsAreCached() {
        #expect(GeneratedFixture.isGeneratorsOnly(["-f", "lavfi", "-i", "sine", "-f", "lavfi", "-i", "testsrc2"]))
        #expect(!GeneratedFixture.isGeneratorsOnly(["-f", "lavfi", "-i", "sine", "-i", "/tmp/in.wav"]))
        #expect(!GeneratedFixture.isGeneratorsOnly(["-f", "wav", "-i", "/tmp/in.wav"]))
        #expect(!GeneratedFixture.isGeneratorsOnly(["-v", "error"]))
    }
}
