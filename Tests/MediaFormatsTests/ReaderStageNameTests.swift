import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Every reader names itself as the error's stage, whether it fails while parsing the header (in its
/// initializer) or while reading (`stage` is never nil).
@Suite(.timeLimit(.minutes(2))) struct ReaderStageNameTests {
    static let garbage: [UInt8] = Array("this is not a media file at all, just text".utf8)

    func stage(of body: () throws -> Void) -> String? {
        do {
            try body()
            return "no error"
        } catch let error as MediaError {
            return error.stage
        } catch {
            return "not a MediaError"
        }
    }

    @Test func wavReader() throws {
        #expect(stage { _ = try WAVReader(bytes: Self.garbage) } == "WAVReader")
        // A header cut inside the 'fmt ' chunk.
        let cut = Array(WAVTest.simpleFile(frames: 10).file.prefix(30))
        #expect(stage { _ = try WAVReader(bytes: cut) } == "WAVReader")
        let file = WAVTest.simpleFile(frames: 1).file
        #expect(stage { _ = try WAVReader(bytes: file, framesPerSample: 0) } == "WAVReader")
    }

    @Test func cafReader() {
        #expect(stage { _ = try CAFReader(bytes: Self.garbage) } == "CAFReader")
        let header: [UInt8] = Array("caff".utf8) + [0, 1, 0, 0]
        #expect(stage { _ = try CAFReader(bytes: header) } == "CAFReader")
    }

    @Test func seekingNamesTheReaderToo() throws {
        let caf = try CAFReader(path: CAFTest.ringPath)
        #expect(stage { try caf.seek(toPacket: -1) } == "CAFReader")
        #expect(stage { try caf.seek(toFrame: caf.totalFrames + 1) } == "CAFReader")
        let any = try AudioFileReader(path: CAFTest.ringPath)
        #expect(stage { try any.seek(toPacket: -1) } == "AudioFileReader")
        #expect(stage { try any.seek(toFrame: -1) } == "AudioFileReader")
    }

    @Test func adtsReader() {
        #expect(stage { _ = try ADTSReader(bytes: Self.garbage).next() } == "ADTSReader")
    }

    @Test func annexBReader() {
        #expect(stage { _ = try AnnexBReader(bytes: [0, 0, 1, 0x65, 0x88, 0x84]).next() } == "AnnexBReader")
    }

    @Test func y4mReader() {
        #expect(stage { _ = try Y4MReader(bytes: Self.garbage) } == "Y4MReader")
    }

    @Test func audioFileReaderForAIFFAUAndOthers() throws {
        let directory = try TemporaryDirectory()
        let text = directory.file("text.aiff")
        try Data(Self.garbage).write(to: URL(fileURLWithPath: text))
        #expect(stage { _ = try AudioFileReader(path: text) } == "AudioFileReader")
        // An AIFF whose header ends inside its COMM chunk.
        let aiff = directory.file("cut.aiff")
        try ExternalTool.check("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", aiff, "synth", "0.1", "sine", "440"])
        let cut = directory.file("cut-short.aiff")
        try Data(try Data(contentsOf: URL(fileURLWithPath: aiff)).prefix(24)).write(to: URL(fileURLWithPath: cut))
        #expect(stage { _ = try AudioFileReader(path: cut) } == "AudioFileReader")
        // An AU file (NeXT/Sun) cut inside its header.
        let au = directory.file("cut.au")
        try Data(Array(".snd".utf8) + [0, 0, 0]).write(to: URL(fileURLWithPath: au))
        #expect(stage { _ = try AudioFileReader(path: au) } == "AudioFileReader")
    }
}
