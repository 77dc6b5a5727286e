import Foundation
import MediaCore
import MediaTestSupport
import Testing

/// `SynchronizedStart` with two sources on two threads, as a graph runs them: video frames from 0 s and
/// PCM from 0.5 s start together at 0.5 s (the buffer that straddles it cut there, exactly; the picture
/// with the frame nearest the start, even just before it); the video
/// source keeps reading while it waits and hands out what it captured nearest the start; a source that
/// gives nothing makes the other throw `stalled` naming it.
@Suite(.timeLimit(.minutes(1))) struct SynchronizedStartTests {
    /// A source handing out `samples`, each after `delay` seconds (a live device's pace).
    struct Paced: MediaSource {
        var samples: [MediaSample]
        var delay: Double
        mutating func next() throws -> MediaSample? {
            guard !samples.isEmpty else { return nil }
            Thread.sleep(forTimeInterval: delay)
            return samples.removeFirst()
        }
    }

    /// Video frames every 1/30 s from 0, `count` of them.
    static func frames(_ count: Int) -> [MediaSample] {
        (0..<count).map {
            MediaSample(
                format: .video(.raw(.gray, width: 2, height: 2, frameRate: FrameRate(30))), data: [0, 0, 0, 0],
                timing: SampleTiming(
                    presentationTime: MediaTime(value: Int64($0), timescale: 30),
                    duration: MediaTime(value: 1, timescale: 30)),
                frameCount: 1)
        }
    }

    /// Mono s16 PCM from `start` (in 48 kHz frames), `count` buffers of 480 frames holding their frame index.
    static func pcm(from start: Int64, _ count: Int) -> [MediaSample] {
        let format = AudioFormat.pcm(.s16, sampleRate: 48_000, channelLayout: .mono)
        return (0..<count).map { index in
            let first = start + Int64(index * 480)
            let values = (0..<480).flatMap { frame -> [UInt8] in
                let value = Int16(truncatingIfNeeded: first + Int64(frame))
                return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
            }
            return MediaSample(
                format: .audio(format), data: values,
                timing: SampleTiming.audio(startFrame: first, frameCount: 480, sampleRate: 48_000), frameCount: 480)
        }
    }

    /// Reads `source` to its end on a thread of its own. (A pthread lock, not a semaphore, hands the result
    /// over: ThreadSanitizer, which runs these tests, sees pthread locks.)
    final class Reader: Sendable {
        private let result = Locked<Result<[MediaSample], MediaError>?>(nil)
        init(_ source: sending SynchronizedStart.Source) {
            nonisolated(unsafe) var source = source  // sent here, read only on the thread below
            Thread.detachNewThread { [result] in
                var samples: [MediaSample] = []
                do {
                    while let sample = try source.next() { samples.append(sample) }
                    result.withLock { $0 = .success(samples) }
                } catch {
                    let failure = error as? MediaError ?? MediaError(.invalidData, "\(error)")
                    result.withLock { $0 = .failure(failure) }
                }
            }
        }
        func wait() throws -> [MediaSample] {
            while true {
                if let done = result.withLock({ $0 }) { return try done.get() }
                usleep(1_000)
            }
        }
    }

    @Test func bothStartAtTheLaterFirstSampleThePCMCutExactly() throws {
        let start = SynchronizedStart(sources: 2)
        // The audio's first sample comes after about 10 video frames (its device is slow to start).
        let video = Reader(start.source(Paced(samples: Self.frames(60), delay: 0.002), index: 0))
        let audio = Reader(start.source(Paced(samples: Self.pcm(from: 23_900, 20), delay: 0.03), index: 1))
        let frames = try video.wait()
        let buffers = try audio.wait()
        #expect(start.startTime == MediaTime(value: 23_900, timescale: 48_000))
        // Video: the first frame at or after 23900/48000 s (0.4979 s) is frame 15 (0.5 s), and every later one.
        #expect(
            frames.first?.timing.presentationTime == MediaTime(value: 15, timescale: 30),
            "\(frames.first?.timing as Any)")
        #expect(frames.count == 45)
        // Audio starts with its own first sample, whole.
        #expect(buffers.first?.timing.presentationTime == MediaTime(value: 23_900, timescale: 48_000))
        #expect(buffers.count == 20)
    }

    /// The audio starts at 0.51 s: frame 15 (0.5 s) is on screen then and nearer to it (10 ms) than frame 16
    /// (23 ms after), so the picture starts with it; frame 14, a frame and a third before, goes.
    @Test func theFrameNearestTheStartBeginsThePictureEvenBeforeIt() throws {
        let start = SynchronizedStart(sources: 2)
        let video = Reader(start.source(Paced(samples: Self.frames(60), delay: 0.002), index: 0))
        let audio = Reader(start.source(Paced(samples: Self.pcm(from: 24_480, 20), delay: 0.03), index: 1))
        let frames = try video.wait()
        _ = try audio.wait()
        #expect(
            frames.first?.timing.presentationTime == MediaTime(value: 15, timescale: 30),
            "\(frames.first?.timing as Any)")
        #expect(frames.count == 45)
    }

    @Test func aBufferThatStraddlesTheStartIsCutThere() throws {
        let start = SynchronizedStart(sources: 2)
        // Video from 0.5 s (frame 15), audio from 0.49375 s: the buffer 23700..<24180 straddles 24000.
        let video = Reader(start.source(Paced(samples: Array(Self.frames(40).dropFirst(15)), delay: 0.03), index: 0))
        let audio = Reader(start.source(Paced(samples: Self.pcm(from: 23_700, 10), delay: 0.001), index: 1))
        let frames = try video.wait()
        let buffers = try audio.wait()
        #expect(frames.first?.timing.presentationTime == MediaTime(value: 15, timescale: 30))
        let first = try #require(buffers.first)
        // The buffer from 23700 is cut where 0.5 s (frame 24000) starts: its first 300 frames go, so the
        // first buffer handed out starts at 24000 exactly, holds frame 24000 first and 180 frames.
        #expect(first.timing.presentationTime.converted(to: 48_000) == MediaTime(value: 24_000, timescale: 48_000))
        let firstValue = Int16(first.data[0]) | Int16(first.data[1]) << 8
        #expect(firstValue == Int16(truncatingIfNeeded: 24_000), "first frame \(firstValue)")
        #expect(first.frameCount == 180 && buffers.count == 10)
    }

    @Test func aSourceThatGivesNothingIsNamed() throws {
        let start = SynchronizedStart(sources: 2, timeout: .milliseconds(300))
        let video = Reader(start.source(Paced(samples: Self.frames(200), delay: 0.01), index: 0))
        let silent = Reader(start.source(Paced(samples: Self.pcm(from: 0, 1), delay: 1), index: 1))
        do {
            _ = try video.wait()
            Issue.record("the video source did not stall")
        } catch let error as MediaError {
            #expect(error.code == .stalled && error.message.contains("source 1"), "\(error)")
        }
        _ = try? silent.wait()
    }
}
