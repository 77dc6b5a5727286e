import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// ``AudioFileReader``: samples from any container, exact packet seeking and frame seeks that trim.
@Suite(.timeLimit(.minutes(2))) struct AudioFileReaderTests {
    static func readAll(_ reader: AudioFileReader) throws -> [MediaSample] {
        var samples: [MediaSample] = []
        while let sample = try reader.next() { samples.append(sample) }
        return samples
    }

    @Test func adtsPacketsAreTheFramesInOrder() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFileStreamParserTests.ffmpegADTS(in: dir)
        let reader = try AudioFileReader(path: path)
        #expect(reader.properties.fileType == .adts)
        #expect(reader.format == .aac(sampleRate: 44_100, channelLayout: .stereo, audioSpecificConfig: [0x12, 0x10]))
        let samples = try Self.readAll(reader)
        #expect(samples.count == (try ffprobePacketCount(path)))
        let bytes = try fileBytes(path)
        #expect(samples.map(\.data) == frameRanges(bytes).map { Array(bytes[($0.lowerBound + 7)..<$0.upperBound]) })
        #expect(
            samples.enumerated().allSatisfy {
                $1.timing.presentationTime == MediaTime(value: Int64($0 * 1024), timescale: 44_100)
            })
        #expect(try reader.next() == nil)
    }

    @Test func seekingToAnyPacketGivesThatPacket() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFileStreamParserTests.ffmpegADTS(in: dir)
        let all = try Self.readAll(try AudioFileReader(path: path))
        let reader = try AudioFileReader(path: path)
        var generator = SystemRandomNumberGenerator()
        var targets = (0..<60).map { _ in Int64.random(in: 0..<Int64(all.count), using: &generator) }
        targets += [0, Int64(all.count - 1), 3, 2, 1]
        for target in targets {
            try reader.seek(toPacket: target)
            let sample = try #require(try reader.next())
            #expect(sample.data == all[Int(target)].data, "packet \(target)")
            #expect(sample.timing == all[Int(target)].timing, "packet \(target)")
        }
        try reader.seek(toPacket: Int64(all.count))
        #expect(try reader.next() == nil)
        #expect(throws: MediaError.self) { try reader.seek(toPacket: Int64(all.count) + 1) }
    }

    @Test func aFrameSeekStartsEarlyAndTrimsUpToTheTarget() throws {
        let dir = try TemporaryDirectory()
        let path = try AudioFileStreamParserTests.ffmpegADTS(in: dir)
        let reader = try AudioFileReader(path: path)
        try reader.seek(toFrame: 10_000)  // in packet 9 (frames 9216..<10240); AAC starts two packets early
        let first = try #require(try reader.next())
        #expect(first.timing.presentationTime == MediaTime(value: 7 * 1024, timescale: 44_100))
        #expect(first.trimAtStart == 1024)
        _ = try reader.next()
        let target = try #require(try reader.next())
        #expect(target.timing.presentationTime == MediaTime(value: 9 * 1024, timescale: 44_100))
        #expect(target.trimAtStart == 10_000 - 9 * 1024)
        #expect(try reader.next()?.trimAtStart == 0)
    }
}
