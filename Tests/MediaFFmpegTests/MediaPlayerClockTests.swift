import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ``MediaPlayer`` in real time: without audio the video is paced by the host clock the player hands its
/// output (a presenting sink that takes a frame only when it is less than 0.2 s ahead of that clock), the
/// periodic time observer reports the position as it moves, and pause holds it; with streams of different
/// lengths, the video goes on after the audio's end on that host clock, and a video that ends first holds
/// its last frame until the audio's end and still seeks.
@Suite(.tags(.realTime), .timeLimit(.minutes(2)), .ffmpegLeakGate) struct MediaPlayerClockTests {
    /// Takes a frame only while the last one taken is less than 0.2 s ahead of the player's clock, and
    /// records how far ahead of the clock each frame came.
    final class PacedCollector: PresentingSink {
        let clock: @Sendable () -> MediaTime?
        private let state = Locked<(last: Double, leads: [Double])>((-1, []))
        init(clock: @escaping @Sendable () -> MediaTime?) { self.clock = clock }
        var name: String { "PacedCollector" }
        var now: Double { clock()?.seconds ?? 0 }
        var isReadyForMoreMediaData: Bool {
            let now = self.now
            return state.withLock { $0.last - now < 0.2 }
        }
        func flush() {}
        func write(_ sample: MediaSample) throws {
            let pts = sample.timing.presentationTime.seconds ?? 0
            let now = self.now
            state.withLock { s in
                s.last = pts
                s.leads.append(pts - now)
            }
        }
        private let finished = Locked<Date?>(nil)
        func finish() throws { finished.withLock { $0 = Date() } }
        var leads: [Double] { state.withLock { $0.leads } }
        var isFinished: Bool { finishedAt != nil }
        var finishedAt: Date? { finished.withLock { $0 } }
    }

    /// Writes PCM in real time (sleeps each sample's length), and records when it finished.
    struct RealTimeAudio: MediaSink {
        let finished: Locked<Date?>
        mutating func write(_ sample: MediaSample) throws {
            guard case .audio(let format) = sample.format else { return }
            Thread.sleep(forTimeInterval: Double(sample.frameCount) / Double(format.sampleRate))
        }
        mutating func finish() throws { finished.withLock { $0 = Date() } }
    }

    /// A `video`-s testsrc2 at 25 fps and an `audio`-s sine (AAC).
    static func movie(_ dir: TemporaryDirectory, video: Int, audio: Int) throws -> String {
        let path = dir.file("v\(video)a\(audio).mp4")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=\(video)", "-f", "lavfi",
            "-i", "sine=frequency=440:sample_rate=44100:duration=\(audio)", "-c:v", "libx264", "-c:a", "aac", path
        ])
        return path
    }

    /// A presenting output whose sinks (one per run) are kept.
    static func pacedOutput(_ made: Locked<[PacedCollector]>) -> MediaPlayer.VideoOutput {
        .presenting { clock in
            let sink = PacedCollector(clock: clock)
            made.withLock { $0.append(sink) }
            return sink
        }
    }

    /// 1 s of audio (written at once) and 2 s of video: after the audio's end the video goes on, paced by
    /// the host clock from where the audio ended (it used to wait for ever for a clock that had
    /// stopped). A seek then starts the run afresh at the target.
    @Test func theVideoGoesOnAfterTheAudioEnds() throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir, video: 2, audio: 1)
        let made = Locked<[PacedCollector]>([])
        let wav = dir.file("audio.wav")
        let player = try MediaPlayer(
            path: movie, audio: .sink { _ in WAVMuxer(output: try FileOutput(path: wav)) },
            video: Self.pacedOutput(made))
        let started = Date()
        try player.play()
        try waitUntil("the video passes 1.3 s", timeout: .seconds(10), every: .milliseconds(20)) {
            player.currentTime >= 1.3
        }
        // The audio, written at once, was heard at once: the last 0.3 s are the host clock's.
        #expect(Date().timeIntervalSince(started) >= 0.25, "1.3 s of video in less than the 0.3 s past the audio")
        let first = try #require(made.withLock { $0.first })
        #expect(first.leads.allSatisfy { $0 < 0.3 }, "\(first.leads.max() ?? 0) s ahead of the clock")
        try player.seek(to: 0.5)
        try waitUntil("the run ends", timeout: .seconds(10), every: .milliseconds(20)) { !player.isPlaying }
        let sinks = made.withLock { $0 }
        #expect(sinks.count == 2, "the seek after the audio's end started the run afresh")
        if let again = sinks.last {
            #expect(again.leads.count == 38, "frames 0.48 (on screen at 0.5)...1.96 s: \(again.leads.count)")
            #expect(again.leads.allSatisfy { $0 < 0.3 }, "\(again.leads.max() ?? 0) s ahead of the clock")
        }
        #expect(try AudioPlayerTests.floats(wav).count >= 22_050, "the audio from 0.5 s was played again")
    }

    /// 1 s of video and 2 s of audio played in real time: the video output is finished only once the
    /// audio has finished (a window keeps the last picture), and a seek while the video holds its end
    /// starts it again at the target.
    @Test func aVideoShorterThanTheAudioHoldsItsEndAndStillSeeks() throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir, video: 1, audio: 2)
        let made = Locked<[PacedCollector]>([])
        let audioFinished = Locked<Date?>(nil)
        let player = try MediaPlayer(
            path: movie, audio: .sink { _ in RealTimeAudio(finished: audioFinished) }, video: Self.pacedOutput(made))
        try player.play()
        try waitUntil("the audio passes 1.3 s", timeout: .seconds(10), every: .milliseconds(20)) {
            player.currentTime >= 1.3
        }
        let sink = try #require(made.withLock { $0.first })
        #expect(sink.leads.count == 25 && !sink.isFinished, "the video's end did not wait for the audio's")
        try player.seek(to: 0.2)
        try waitUntil("the run ends", timeout: .seconds(10), every: .milliseconds(20)) { !player.isPlaying }
        #expect(made.withLock { $0.count } == 1)
        #expect(sink.leads.count == 25 + 20, "frames 0.2...0.96 s after the seek: \(sink.leads.count - 25)")
        let videoEnd = try #require(sink.finishedAt)
        let audioEnd = try #require(audioFinished.withLock { $0 })
        #expect(videoEnd >= audioEnd, "the video finished \(audioEnd.timeIntervalSince(videoEnd)) s before the audio")
    }

    @Test func theObserverFollowsTheClockAndPauseHoldsIt() async throws {
        let dir = try TemporaryDirectory()
        let movie = try MediaPlayerTests.movie(dir, seconds: 2, audio: false)
        let collector = Locked<PacedCollector?>(nil)
        let player = try MediaPlayer(
            path: movie, audio: nil,
            video: .presenting { clock in
                let sink = PacedCollector(clock: clock)
                collector.withLock { $0 = sink }
                return sink
            })
        let times = Locked<[Double]>([])
        let observer = player.addPeriodicTimeObserver(forInterval: .milliseconds(100)) { time in
            times.withLock { $0.append(time) }
        }
        defer { player.removeTimeObserver(observer) }
        let started = Date()
        try player.play()
        try await Task.sleep(for: .milliseconds(700))
        player.pause()
        let pausedAt = player.currentTime
        try await Task.sleep(for: .milliseconds(300))
        #expect(player.currentTime == pausedAt, "the position moved while paused")
        #expect(pausedAt > 0.3 && pausedAt < 1.9, "\(pausedAt) s after 0.7 s of playing")
        try player.play()
        for await event in player.events where event == .ended { break }
        let elapsed = Date().timeIntervalSince(started)
        // 2 s of video and 0.3 s of pause in real time, less the 0.2 s the last frame may be taken ahead of
        // its time (decoding alone takes about 0.15 s).
        #expect(elapsed >= 2.0, "played in \(elapsed) s")
        let reported = times.withLock { $0 }
        #expect(reported.count >= 8, "\(reported)")
        #expect(zip(reported, reported.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 }, "\(reported)")
        #expect(reported.allSatisfy { $0 >= 0 && $0 <= 2 }, "\(reported)")
        let leads = try #require(collector.withLock { $0 }).leads
        #expect(leads.count == 50)
        #expect(leads.allSatisfy { $0 < 0.3 }, "frames written more than 0.3 s ahead of the clock: \(leads.max() ?? 0)")
    }
}
