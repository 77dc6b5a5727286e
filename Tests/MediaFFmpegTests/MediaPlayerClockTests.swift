import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ``MediaPlayer`` in real time without audio: the video is paced by the host clock the player hands its
/// output (a presenting sink that takes a frame only when it is less than 0.2 s ahead of that clock), the
/// periodic time observer reports the position as it moves, and pause holds it.
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
        func finish() throws {}
        var leads: [Double] { state.withLock { $0.leads } }
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
