import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ``AudioPlayer`` into a file sink (as fast as the sink takes it; the device is tested with PulseAudio):
/// the played audio against ffmpeg's decode, loops without a gap, volume, pan and rate judged by sox.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioPlayerTests {
    static func output(_ path: String) -> AudioPlayerOutput {
        .sink { _ in WAVMuxer(output: try FileOutput(path: path)) }
    }

    static func play(_ player: AudioPlayer) async throws -> [AudioPlayerEvent] {
        try player.play()
        var seen: [AudioPlayerEvent] = []
        for await event in player.events {
            seen.append(event)
            if case .finished = event { break }
        }
        return seen
    }

    static func floats(_ path: String) throws -> [Float] {
        let data = try ExternalTool.check(
            "ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", path, "-f", "f32le", "-"]
        ).stdout
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test func playsEveryFrameAsFFmpegDecodesIt() async throws {
        let dir = try TemporaryDirectory()
        let input = try AudioFixture.twoTones(dir)
        let out = dir.file("out.wav")
        let player = try AudioPlayer(path: input, output: Self.output(out))
        #expect(player.duration == 1 && player.numberOfChannels == 2)
        #expect(try await Self.play(player) == [.finished(successfully: true)])
        #expect(try Self.floats(out) == (try Self.floats(input)))
        #expect(player.currentTime == 0 && !player.isPlaying)  // the end resets the position
    }

    /// numberOfLoops 2 plays three times, each seam sample-exact (no gap, no extra frame), from an MP3 too:
    /// the output, decoded by ffmpeg, is ffmpeg's decode of the input three times over, sample for sample.
    @Test(arguments: ["wav", "mp3"])
    func loopsAreGapless(_ ext: String) async throws {
        let dir = try TemporaryDirectory()
        var input = try AudioFixture.twoTones(dir, seconds: 0.5)
        if ext == "mp3" {
            let mp3 = dir.file("in.mp3")
            try ExternalTool.check("lame", ["--quiet", "-b", "192", input, mp3])
            input = mp3
        }
        let out = dir.file("loops.wav")
        let player = try AudioPlayer(path: input, output: Self.output(out))
        player.numberOfLoops = 2
        _ = try await Self.play(player)
        let once = try Self.floats(input)  // ffmpeg's decode, not the player's
        let played = try Self.floats(out)
        #expect(once.count > 40_000)  // 0.5 s of stereo (and the MP3's gapless trim)
        #expect(played.count == 3 * once.count)
        guard played.count == 3 * once.count else { return }
        for copy in 0..<3 {
            let range = (copy * once.count)..<((copy + 1) * once.count)
            let wrong = zip(played[range], once).filter { $0 != $1 }.count
            #expect(wrong == 0, "pass \(copy + 1): \(wrong) of \(once.count) samples differ from ffmpeg's decode")
        }
        // And a single play of the file is one of those passes.
        #expect(try Self.floats(try Self.render(input, dir)) == once)
    }

    /// The file played once into a WAV by the player (the reference for loops).
    static func render(_ input: String, _ dir: TemporaryDirectory) throws -> String {
        let out = dir.file("once-\(UUID().uuidString).wav")
        let done = DispatchSemaphore(value: 0)
        let player = try AudioPlayer(path: input, output: Self.output(out))
        player.onEvent = { if case .finished = $0 { done.signal() } }
        try player.play()
        done.wait()
        return out
    }

    @Test func volumeHalfIsMinus6dBAndPanLeftSilencesTheRight() async throws {
        let dir = try TemporaryDirectory()
        let input = try AudioFixture.twoTones(dir)
        let quiet = dir.file("quiet.wav")
        let player = try AudioPlayer(path: input, output: Self.output(quiet))
        player.volume = 0.5
        _ = try await Self.play(player)
        let reference = try AudioFixture.soxLevels(input), halved = try AudioFixture.soxLevels(quiet)
        for channel in 0..<2 { #expect(abs(halved.rms[channel] - reference.rms[channel] + 6.02) < 0.2) }
        let left = dir.file("left.wav")
        let panned = try AudioPlayer(path: input, output: Self.output(left))
        panned.pan = -1
        _ = try await Self.play(panned)
        let levels = try AudioFixture.soxLevels(left)
        #expect(levels.peak[1] < -60)
        #expect(abs(levels.rms[0] - reference.rms[0]) < 0.01)
    }

    @Test func rateTwoHalvesTheDurationAndKeepsThePitch() async throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("tone.wav")
        try ExternalTool.check(
            "sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", input, "synth", "2", "sine", "440", "vol", "0.5"])
        let out = dir.file("fast.wav")
        let player = try AudioPlayer(path: input, output: Self.output(out))
        player.enableRate = true
        player.rate = 2
        _ = try await Self.play(player)
        let samples = try Self.floats(out)
        let frameError: Double = abs(Double(samples.count) - 48_000)
        #expect(frameError <= 48_000 * 0.02)
        let frequency = RawAudio.zeroCrossingFrequency(samples, sampleRate: 48_000)
        #expect(abs(frequency - 440) < 4.4, "\(frequency) Hz")
    }

    @Test func startsAtCurrentTimeAndStopKeepsIt() async throws {
        let dir = try TemporaryDirectory()
        let input = try AudioFixture.twoTones(dir)
        let out = dir.file("tail.wav")
        let player = try AudioPlayer(path: input, output: Self.output(out))
        player.currentTime = 0.75
        #expect(player.currentTime == 0.75)
        _ = try await Self.play(player)
        let tail = try Self.floats(out), all = try Self.floats(input)
        #expect(tail == Array(all[(36_000 * 2)...]))  // sample-accurate: from frame 36 000
        player.stop()  // not playing: nothing to do
        #expect(player.currentTime == 0)
    }

    /// play(atTime:) starts when deviceCurrentTime reaches the time: into a sink that takes audio at
    /// once, the end comes no sooner than the start time.
    @Test func playAtTimeWaitsForTheTime() async throws {
        let dir = try TemporaryDirectory()
        let input = try AudioFixture.twoTones(dir, seconds: 0.2)
        let player = try AudioPlayer(path: input, output: Self.output(dir.file("later.wav")))
        let ended = EndTime()
        // Weak: the player keeps its onEvent closure (LeakSanitizer found the cycle a strong capture made).
        player.onEvent = { [weak player] event in
            if case .finished = event, let player { ended.record(player.deviceCurrentTime) }
        }
        let start = player.deviceCurrentTime + 0.3
        try player.play(atTime: start)
        try await waitUntilAsync("the player to end") { ended.time != nil }
        let end = try #require(ended.time)
        // Not before the start time (one-sided: a loaded machine only makes it later; no upper bound).
        #expect(end >= start, "ended \(start - end) s before the start time")
    }
}

/// When the player said it finished, on the host clock.
final class EndTime: Sendable {
    private let value = LockedBox<Double?>(nil)
    func record(_ time: Double) { value.withLock { $0 = time } }
    var time: Double? { value.withLock { $0 } }
}
