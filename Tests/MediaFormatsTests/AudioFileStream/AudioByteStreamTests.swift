import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// ``AudioFileReader`` over an ``AudioByteStream`` whose bytes another thread pushes in pieces of any
/// size: the same samples as a read of the file (packets, timing, trims; PCM bytes), seeks back and
/// forward, and a cancel that wakes a reader waiting for bytes.
@Suite(.timeLimit(.minutes(2))) struct AudioByteStreamTests {
    /// Files ffmpeg writes: MP3 (with its LAME tag's trims), ADTS, ALAC in CAF (its `pakt` after the
    /// audio, held until it arrives), s24 WAVE.
    static func files(_ dir: TemporaryDirectory) throws -> [String] {
        let source = dir.file("source.wav")
        try ExternalTool.check(
            "sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", source, "synth", "2", "sine", "440", "sine", "660"])
        return try [
            ("mp3", ["-c:a", "libmp3lame"]), ("aac", ["-c:a", "aac"]), ("caf", ["-c:a", "alac"]),
            ("wav", ["-c:a", "pcm_s24le"])
        ].map { ext, codec in
            let path = dir.file("file.\(ext)")
            try ExternalTool.check("ffmpeg", ["-v", "error", "-i", source] + codec + [path])
            return path
        }
    }

    /// Pushes `bytes` from another thread in pieces of 1 to 3,000 bytes, then finishes.
    static func pushed(_ bytes: [UInt8], name: String) -> AudioByteStream {
        let stream = AudioByteStream(name: name)
        Thread.detachNewThread {
            var generator = SplitMix64(seed: UInt64(bytes.count))
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int(generator.next() % 3_000) + 1)
                stream.push(bytes[start..<end])
                start = end
            }
            stream.finish()
        }
        return stream
    }

    @Test func aPushedFileGivesTheSamplesOfTheFile() throws {
        let dir = try TemporaryDirectory()
        for path in try Self.files(dir) {
            let expected = try AudioFileReaderTests.readAll(try AudioFileReader(path: path))
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let reader = try AudioFileReader(stream: Self.pushed(bytes, name: path))
            #expect(reader.format == (try AudioFileReader(path: path)).format, "\(path)")
            let samples = try AudioFileReaderTests.readAll(reader)
            if reader.format.pcm != nil {
                // PCM comes one sample a batch, and the stream's batches are smaller: the same bytes.
                #expect(samples.flatMap(\.data) == expected.flatMap(\.data), "\(path)")
                #expect(samples.map(\.frameCount).reduce(0, +) == expected.map(\.frameCount).reduce(0, +))
            } else {
                #expect(samples.map(\.data) == expected.map(\.data), "\(path)")
                #expect(samples.map(\.timing) == expected.map(\.timing), "\(path)")
                #expect(samples.map(\.trimAtStart) == expected.map(\.trimAtStart), "\(path)")
                #expect(samples.map(\.trimAtEnd) == expected.map(\.trimAtEnd), "\(path)")
            }
        }
    }

    @Test func seeksGoBackAtOnceAndForwardAsTheBytesArrive() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.files(dir)[0]  // the MP3
        let all = try AudioFileReaderTests.readAll(try AudioFileReader(path: path))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let reader = try AudioFileReader(stream: Self.pushed(bytes, name: path))
        for target in [Int64(all.count - 3), 5, 0, Int64(all.count / 2)] {
            try reader.seek(toPacket: target)
            let sample = try #require(try reader.next())
            #expect(sample.data == all[Int(target)].data, "packet \(target)")
            #expect(sample.timing == all[Int(target)].timing, "packet \(target)")
        }
    }

    @Test func cancelWakesAReaderWaitingForBytes() async throws {
        let stream = AudioByteStream(name: "https://127.0.0.1/slow.mp3")
        stream.push([0x49, 0x44, 0x33])  // the start of an ID3 tag: the reader waits for more
        let result = Task.detached { () -> MediaError? in
            do {
                _ = try AudioFileReader(stream: stream, fileTypeHint: .mp3)
                return nil
            } catch {
                return error as? MediaError
            }
        }
        stream.cancel()
        let error = try #require(await result.value)
        #expect(error.code == .cancelled)
        #expect(error.message.contains("https://127.0.0.1/slow.mp3"))
        stream.push([1, 2, 3])
        #expect(stream.count == 3, "bytes pushed after cancel are dropped")
    }
}
