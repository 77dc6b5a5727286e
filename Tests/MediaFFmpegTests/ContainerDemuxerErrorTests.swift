import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ContainerDemuxer on input it cannot take: cut, garbage, empty and missing files, from a path and
/// from bytes (a typed error naming the input and what is wrong, never a crash or a hang); streams it
/// does not hand out; sources that are not read (bounded queues).
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerErrorTests {
    typealias Fixture = DemuxerFixture

    /// Runs `body` on a thread of its own and waits at most `seconds` for it: a hang fails the test
    /// instead of stalling the run.
    static func withinTimeLimit<T: Sendable>(_ seconds: Double = 20, _ body: @escaping @Sendable () -> T) throws -> T {
        let result = LockedBox<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            result.value = body()
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + seconds) == .success, let value = result.value else {
            throw Fixture.FixtureError(description: "did not finish within \(seconds) s")
        }
        return value
    }

    /// The error opening (and reading every stream of) `path` or `bytes` throws, or `nil` if none.
    static func openError(path: String? = nil, bytes: [UInt8]? = nil) throws -> MediaError? {
        try withinTimeLimit {
            do {
                let demuxer = try path.map { try ContainerDemuxer(path: $0) } ?? ContainerDemuxer(bytes: bytes ?? [])
                _ = try Fixture.readAll(demuxer)
                return nil
            } catch {
                return error as? MediaError ?? MediaError(.invalidArgument, "not a MediaError: \(error)")
            }
        }
    }

    /// An MP4 written the ffmpeg CLI's default way (moov after mdat), cut in half.
    static func cutMP4(in dir: TemporaryDirectory) throws -> String {
        let whole = try Fixture.make("mp4", in: dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.file("cut.mp4")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        return cut
    }

    /// Deterministic noise (an LCG), so a failure can be reproduced.
    static func garbage(count: Int) -> [UInt8] {
        var state: UInt32 = 0x1234_5678
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test func mp4CutBeforeItsMoovIsInvalidDataNamingTheFileAndTheMissingBox() throws {
        let dir = try TemporaryDirectory()
        let cut = try Self.cutMP4(in: dir)
        let error = try #require(try Self.openError(path: cut))
        #expect(error.code == .invalidData)
        #expect(error.message.contains(cut), "\(error)")
        #expect(error.message.contains("without a moov box"), "\(error)")
        #expect(error.ffmpegCall == "avformat_open_input")
        let fromBytes = try #require(try Self.openError(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: cut)))))
        #expect(fromBytes.code == .invalidData)
        #expect(fromBytes.message.contains("in-memory input"), "\(fromBytes)")
        #expect(fromBytes.message.contains("without a moov box"), "\(fromBytes)")
    }

    /// A top-level box whose 64-bit size reaches near 2^63 (a damaged file): the walk that explains the
    /// failed open stops there instead of trapping on the sum of the offsets.
    @Test func aBoxSizeNear2To63IsInvalidDataNotATrap() throws {
        let ftyp: [UInt8] = [0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 2, 0]
        let huge: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF8]
        let bytes = ftyp + huge + [UInt8](repeating: 0, count: 64)
        let dir = try TemporaryDirectory()
        let path = dir.file("huge-box.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = try #require(try Self.openError(path: path))
        #expect(error.code == .invalidData, "\(error)")
        #expect(error.message.contains(path) && error.message.contains("ftyp, mdat"), "\(error)")
        let fromBytes = try #require(try Self.openError(bytes: bytes))
        #expect(fromBytes.code == .invalidData, "\(fromBytes)")
        #expect(fromBytes.message.contains("ftyp, mdat"), "\(fromBytes)")
    }

    @Test func garbageNamedMP4IsInvalidData() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("garbage.mp4")
        try Data(Self.garbage(count: 64 * 1024)).write(to: URL(fileURLWithPath: path))
        let error = try #require(try Self.openError(path: path))
        #expect(error.code == .invalidData, "\(error)")
        #expect(error.message.contains(path), "\(error)")
        let fromBytes = try #require(try Self.openError(bytes: Self.garbage(count: 64 * 1024)))
        #expect(fromBytes.code == .invalidData, "\(fromBytes)")
        #expect(fromBytes.message.contains("in-memory input (65536 bytes)"), "\(fromBytes)")
    }

    @Test func emptyInputIsTruncated() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("empty.mp4")
        try Data().write(to: URL(fileURLWithPath: path))
        let error = try #require(try Self.openError(path: path))
        #expect(error.code == .truncated, "\(error)")
        #expect(error.message.contains(path) && error.message.contains("empty"), "\(error)")
        let fromBytes = try #require(try Self.openError(bytes: []))
        #expect(fromBytes.code == .truncated, "\(fromBytes)")
        #expect(
            fromBytes.message.contains("in-memory input (0 bytes)") && fromBytes.message.contains("empty"),
            "\(fromBytes)")
    }

    @Test func missingFileIsAnIOError() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("missing.mp4")
        let error = try #require(try Self.openError(path: path))
        #expect(error.code == .io)
        #expect(error.message.contains(path) && error.message.contains("does not exist"), "\(error)")
    }

    @Test func unknownFormatNameIsAnInvalidArgument() throws {
        #expect(throws: MediaError.self) { try ContainerDemuxer(bytes: [0, 1, 2], formatName: "no-such-format") }
        do {
            _ = try ContainerDemuxer(bytes: [0, 1, 2], formatName: "no-such-format")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("no-such-format"))
        }
    }

    /// A fast-start MP4 (moov first) cut inside mdat opens, hands out the packets that are there, then
    /// throws `.truncated` (every source, once its queue is empty).
    @Test func mp4CutInsideItsMdatReadsWhatIsThereThenThrowsTruncated() throws {
        let dir = try TemporaryDirectory()
        let whole = dir.file("fast.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-f", "lavfi", "-i",
                "testsrc2=size=320x240:rate=25",
                "-t", "3", "-c:a", "aac", "-c:v", "libx264", "-movflags", "+faststart", whole
            ])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.file("fastcut.mp4")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let outcome = try Self.withinTimeLimit {
            () -> (video: Int, audio: Int, error: MediaError?, again: MediaError?) in
            do throws(MediaError) {
                let demuxer = try ContainerDemuxer(path: cut)
                let video = try demuxer.source(stream: 0)
                let audio = try demuxer.source(stream: 1)
                var counts = (video: 0, audio: 0)
                var failure: MediaError?
                do throws(MediaError) {
                    while try video.next() != nil { counts.video += 1 }
                } catch { failure = error }
                var again: MediaError?
                do throws(MediaError) {
                    while try audio.next() != nil { counts.audio += 1 }
                } catch { again = error }
                return (counts.video, counts.audio, failure, again)
            } catch {
                return (0, 0, error, nil)
            }
        }
        #expect(outcome.video > 10 && outcome.video < 75)
        #expect(outcome.audio > 10 && outcome.audio < 131)
        let error = try #require(outcome.error as MediaError?)
        #expect(error.code == .truncated, "\(error)")
        #expect(error.message.contains(cut) && error.message.contains("cut short"), "\(error)")
        #expect(outcome.again == error)
    }

    /// A subtitle stream (mov_text) and a data stream (a QuickTime timecode track) are listed, with
    /// no format, and refused by `source(stream:)`.
    @Test func subtitleAndDataStreamsAreListedButNotHandedOut() throws {
        let dir = try TemporaryDirectory()
        let srt = dir.file("subs.srt")
        try "1\n00:00:00,000 --> 00:00:01,000\nhello\n\n2\n00:00:01,500 --> 00:00:02,500\nworld\n".write(
            toFile: srt, atomically: true, encoding: .utf8)
        let subtitled = dir.file("subs.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-i", srt, "-c:a", "aac", "-c:s",
                "mov_text", subtitled
            ])
        let timecoded = dir.file("tc.mov")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "1", "-c:v", "libx264",
                "-timecode", "01:00:00:00", timecoded
            ])

        for (path, index, codec) in [(subtitled, 1, "mov_text"), (timecoded, 1, "unknown")] {
            let probed = try Fixture.probeStreams(path)
            let demuxer = try ContainerDemuxer(path: path)
            #expect(demuxer.streams.map(\.codecName) == probed.map(\.codecName))
            let stream = demuxer.streams[index]
            #expect(stream.format == nil && !stream.isAudio && !stream.isVideo)
            #expect(stream.codecName == codec)
            do {
                _ = try demuxer.source(stream: index)
                Issue.record("source(stream: \(index)) of \(path) did not throw")
            } catch {
                #expect(error.code == .unsupportedFormat)
                #expect(error.message.contains("stream \(index)") && error.message.contains(codec), "\(error)")
            }
            // The other stream reads in full, the refused stream's packets dropped.
            let other = try demuxer.source(stream: 0)
            var count = 0
            while try other.next() != nil { count += 1 }
            #expect(count == probed[0].packetCount)
        }
    }

    @Test func sourcesAreOnePerStreamAndIndicesAreChecked() throws {
        let dir = try TemporaryDirectory()
        let demuxer = try ContainerDemuxer(path: Fixture.make("mp4", in: dir))
        #expect { try demuxer.source(stream: 7) } throws: { ($0 as? MediaError)?.code == .invalidArgument }
        #expect { try demuxer.source(stream: -1) } throws: { ($0 as? MediaError)?.code == .invalidArgument }
        var first: ContainerDemuxer.StreamSource? = try demuxer.source(stream: 0)
        #expect(first?.format == demuxer.streams[0].format)
        #expect { try demuxer.source(stream: 0) } throws: { ($0 as? MediaError)?.code == .invalidArgument }
        first = nil
        let second = try demuxer.source(stream: 0)
        #expect(try second.next() != nil)
    }

    /// A source that is not read fills its queue up to the limit; then reading another stream throws
    /// `.queueFull` naming it. Reading it lets the other go on, and nothing is lost.
    @Test func anUnreadSourceStopsTheOthersAtTheQueueLimitWithoutLosingPackets() throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make("mp4", in: dir)
        let demuxer = try ContainerDemuxer(path: path)
        demuxer.queueLimit = .init(packets: 8, bytes: 1 << 30)
        let video = try demuxer.source(stream: 0)
        let audio = try demuxer.source(stream: 1)
        var videoSamples: [MediaSample] = []
        var audioSamples: [MediaSample] = []
        var overflows = 0
        while true {
            do {
                guard let sample = try video.next() else { break }
                videoSamples.append(sample)
            } catch {
                #expect(error.code == .queueFull)
                #expect(error.message.contains("stream 1") && error.message.contains("8 packets"), "\(error)")
                overflows += 1
                // Drain the audio queue: exactly the limit is waiting.
                for _ in 0..<8 { audioSamples.append(try #require(try audio.next())) }
                guard overflows < 100 else { break }
            }
        }
        while let sample = try audio.next() { audioSamples.append(sample) }
        #expect(overflows > 3)
        #expect(videoSamples.count == 75 && audioSamples.count == 131)
        let reference = try Fixture.readAll(ContainerDemuxer(path: path))
        #expect(reference[0] == videoSamples && reference[1] == audioSamples)

        // The byte limit works too, and a released source's packets are dropped instead of queued.
        let again = try ContainerDemuxer(path: path)
        again.queueLimit = .init(packets: 4096, bytes: 2000)
        let v = try again.source(stream: 0)
        var a: ContainerDemuxer.StreamSource? = try again.source(stream: 1)
        #expect { while try v.next() != nil {} } throws: { ($0 as? MediaError)?.code == .queueFull }
        #expect(a != nil)
        a = nil
        var rest = 0
        while try v.next() != nil { rest += 1 }
        #expect(rest > 0)
    }
}
