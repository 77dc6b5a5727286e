import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `ContainerDemuxer(formatName:inputName:read:)`, the input that arrives through a read function (an
/// SRT socket's MPEG-TS in the ingest server), and `nextSample()`, which hands out every stream's
/// samples in the order of the input. Judged against ffprobe's packet counts of the same file.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerReadingTests {
    /// Hands out `bytes` in pieces of 1 to 1,316 bytes (an SRT message's payload at most), as a socket
    /// would; 0 at the end. A reference type, as the read function keeps its position between calls.
    final class Pieces {
        let bytes: [UInt8]
        var position = 0
        var generator = SystemRandomNumberGenerator()
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            let count = min(buffer.count, bytes.count - position, Int.random(in: 1...1_316, using: &generator))
            guard count > 0 else { return 0 }
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[position..<position + count]))
            }
            position += count
            return count
        }
    }

    /// Reads every sample of `demuxer` with `nextSample()`, counting them per stream and checking that each
    /// stream's decode times never go back.
    static func readAll(_ demuxer: ContainerDemuxer) throws -> [Int: Int] {
        // A stream is read while its source lives.
        var sources: [ContainerDemuxer.StreamSource] = []
        for stream in demuxer.streams where stream.format != nil {
            sources.append(try demuxer.source(stream: stream.index))
        }
        defer { withExtendedLifetime(sources) {} }
        var counts: [Int: Int] = [:]
        var last: [Int: MediaTime] = [:]
        while let (index, sample) = try demuxer.nextSample() {
            counts[index, default: 0] += 1
            if let previous = last[index] {
                #expect(sample.timing.effectiveDecodeTime >= previous, "stream \(index) went back")
            }
            last[index] = sample.timing.effectiveDecodeTime
        }
        return counts
    }

    /// An MPEG-TS read in pieces of any size gives every packet of every stream, as ffprobe counts them.
    @Test func aStreamReadInPiecesGivesEveryPacket() throws {
        let dir = try TemporaryDirectory()
        let path = try DemuxerFixture.make("ts", in: dir)
        let pieces = Pieces(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let demuxer = try ContainerDemuxer(formatName: "mpegts", inputName: "the test's socket") { buffer in
            pieces.read(into: buffer)
        }
        let counts = try Self.readAll(demuxer)
        let video = try #require(demuxer.firstVideoStream)
        let audio = try #require(demuxer.firstAudioStream)
        #expect(counts[video] == (try ExternalTool.packetCount(path, stream: "v:0")), "\(counts)")
        #expect(counts[audio] == (try ExternalTool.packetCount(path, stream: "a:0")))
    }

    /// What the read function throws ends the input: the demuxer throws its code, naming the input.
    @Test func aReadErrorIsThrownWithItsCodeNamingTheInput() throws {
        let dir = try TemporaryDirectory()
        let path = try DemuxerFixture.make("ts", in: dir)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let pieces = Pieces(Array(bytes.prefix(bytes.count / 2)))
        let demuxer = try ContainerDemuxer(formatName: "mpegts", inputName: "the test's socket") {
            buffer throws(MediaError) in
            let count = pieces.read(into: buffer)
            if count == 0 { throw MediaError(.io, "the connection was reset") }
            return count
        }
        #expect {
            _ = try Self.readAll(demuxer)
        } throws: { error in
            let error = error as? MediaError
            return error?.code == .io && error?.message.contains("the test's socket") == true
                && error?.message.contains("the connection was reset") == true
        }
    }

    /// An ADTS header that does not fit its packet (a damaged packet): without `onDamagedPacket` the read
    /// throws; with it, that one packet is dropped and reported, and every other packet comes.
    @Test func aDamagedPacketIsDroppedAndReportedWhenAsked() throws {
        let dir = try TemporaryDirectory()
        let path = try DemuxerFixture.make("ts", in: dir)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        // The 20th ADTS header in the file (0xFFF1 sync, AAC-LC): its 13-bit frame length made 8 bytes larger.
        var found = 0
        var damaged: Int?
        for offset in 188..<(bytes.count - 7) where bytes[offset] == 0xFF && bytes[offset + 1] == 0xF1 {
            found += 1
            if found == 20 {
                damaged = offset
                break
            }
        }
        let at = try #require(damaged)
        let length = (Int(bytes[at + 3] & 0x03) << 11) | (Int(bytes[at + 4]) << 3) | (Int(bytes[at + 5]) >> 5)
        let longer = length + 8
        bytes[at + 3] = (bytes[at + 3] & 0xFC) | UInt8((longer >> 11) & 0x03)
        bytes[at + 4] = UInt8((longer >> 3) & 0xFF)
        bytes[at + 5] = (bytes[at + 5] & 0x1F) | UInt8((longer & 0x07) << 5)
        let audioSent = try ExternalTool.packetCount(path, stream: "a:0")

        let strict = Pieces(bytes)
        let failing = try ContainerDemuxer(formatName: "mpegts", inputName: "strict") { strict.read(into: $0) }
        #expect(throws: MediaError.self) { _ = try Self.readAll(failing) }

        let lenient = Pieces(bytes)
        let demuxer = try ContainerDemuxer(formatName: "mpegts", inputName: "lenient") { lenient.read(into: $0) }
        let reported = LockedBox<[MediaError]>([])
        demuxer.onDamagedPacket = { error in reported.withLock { $0.append(error) } }
        let counts = try Self.readAll(demuxer)
        #expect(counts[try #require(demuxer.firstAudioStream)] == audioSent - 1)
        #expect(
            reported.value.count == 1 && reported.value.first?.message.contains("ADTS") == true, "\(reported.value)")
    }
}
