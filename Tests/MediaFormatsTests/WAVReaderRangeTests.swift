import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// `WAVReader(path:frames:)`: a part of a file (what each segment of a parallel encode reads), judged
/// against the frames ffmpeg decodes from the whole file.
@Suite(.timeLimit(.minutes(2))) struct WAVReaderRangeTests {
    /// A 3 s, 44.1 kHz, s24 stereo file sox wrote (6 bytes a frame, so a frame offset that is wrong by a
    /// byte shows), and its frames as ffmpeg decodes them.
    static func file(in dir: TemporaryDirectory) throws -> (path: String, frames: [UInt8]) {
        let path = dir.file("noise.wav")
        try WAVTest.sox(["-n", "-b", "24", "-c", "2", "-r", "44100", path, "synth", "3", "whitenoise"])
        return (path, try WAVTest.ffmpegRaw(path, "s24le"))
    }

    @Test func readsExactlyTheFramesOfTheRangeWithTheirTiming() throws {
        let dir = try TemporaryDirectory()
        let (path, all) = try Self.file(in: dir)
        let reader = try WAVReader(path: path, frames: 70_001..<100_003, framesPerSample: 4096)
        #expect(reader.frameCount == 132_300 && reader.framesRead == 70_001)
        var bytes: [UInt8] = []
        var starts: [Int64] = []
        while let sample = try reader.next() {
            bytes += sample.data
            starts.append(sample.timing.presentationTime.value)
        }
        #expect(bytes == Array(all[(70_001 * 6)..<(100_003 * 6)]))
        #expect(starts.first == 70_001 && starts.dropFirst().first == 70_001 + 4096)
        #expect(reader.framesRead == 100_003)
    }

    @Test func aRangeBeyondTheEndStopsAtTheEnd() throws {
        let dir = try TemporaryDirectory()
        let (path, all) = try Self.file(in: dir)
        let tail = try WAVReader(path: path, frames: 132_000..<200_000)
        #expect(try WAVTest.readAll(tail).bytes == Array(all[(132_000 * 6)...]))
        let past = try WAVReader(path: path, frames: 140_000..<150_000)
        #expect(try past.next() == nil)
    }

    @Test func aNegativeStartIsAnInvalidArgument() throws {
        let dir = try TemporaryDirectory()
        let (path, _) = try Self.file(in: dir)
        #expect {
            try WAVReader(path: path, frames: -1..<10)
        } throws: { error in
            (error as? MediaError)?.code == .invalidArgument && (error as? MediaError)?.stage == "WAVReader"
        }
    }
}
