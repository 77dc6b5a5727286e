import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ``MediaPlayer`` into outputs that take everything at once (a frame collector for the video, a WAV file
/// for the audio: the player runs as fast as it decodes; the device and the window are tested by
/// `media-player`'s tests), judged by the ffmpeg CLI's decoding of the same files: exact and keyframe
/// seeks, loops on one timeline, events, audio-only and video-only files, and the typed refusals.
@Suite(.timeLimit(.minutes(5)), .ffmpegLeakGate) struct MediaPlayerTests {
    /// A presenting sink that takes every frame at once and keeps it.
    final class FrameCollector: PresentingSink {
        private let state = Locked<(frames: [MediaSample], flushes: Int, finished: Bool)>(([], 0, false))
        var name: String { "FrameCollector" }
        var isReadyForMoreMediaData: Bool { true }
        func flush() { state.withLock { $0.flushes += 1 } }
        func write(_ sample: MediaSample) throws { state.withLock { $0.frames.append(sample) } }
        func finish() throws { state.withLock { $0.finished = true } }
        var frames: [MediaSample] { state.withLock { $0.frames } }
        var isFinished: Bool { state.withLock { $0.finished } }
    }

    /// 6 s of testsrc2 320×240 at 25 fps (x264 with 3 B-frames, a keyframe every 2 s) and a 440 Hz sine
    /// (AAC, 44.1 kHz), or `seconds` of it.
    static func movie(_ dir: TemporaryDirectory, seconds: Int = 6, audio: Bool = true) throws -> String {
        let path = dir.file(audio ? "movie.mp4" : "video.mp4")
        var arguments = ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25"]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"] }
        arguments += ["-t", "\(seconds)", "-c:v", "libx264", "-bf", "3", "-g", "50", "-pix_fmt", "yuv420p"]
        if audio { arguments += ["-c:a", "aac"] }
        try GeneratedFixture.ffmpeg(arguments + [path])
        return path
    }

    /// Plays to the end; the events seen.
    static func play(_ player: MediaPlayer) async throws -> [MediaPlayer.Event] {
        try player.play()
        var seen: [MediaPlayer.Event] = []
        for await event in player.events {
            seen.append(event)
            if event == .ended { break }
            if case .failed = event { break }
        }
        return seen
    }

    /// The ffmpeg CLI's picture at `seconds` (`-ss` before the input: decoded from the keyframe before, the
    /// frames before it dropped), as yuv420p bytes.
    static func ffmpegFrame(_ path: String, at seconds: Double) throws -> Data {
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-ss", String(format: "%.3f", seconds), "-i", path, "-frames:v", "1", "-f", "rawvideo",
                "-pix_fmt", "yuv420p", "-"
            ]
        ).stdout
    }

    /// Seeking exactly to T (a frame's time, among frames decoded after B-frames) gives first the frame
    /// ffmpeg's `-ss T` gives, byte for byte, then every later frame; the audio starts at T's sample: it
    /// is ffmpeg's `-ss T` decoding of the audio. Half the times play the file from memory
    /// (`init(bytes:)`): each branch and the seek read their own demuxer of the same bytes.
    @Test(arguments: [(1.48, false), (2.0, true), (3.04, false), (5.2, true)])
    func anExactSeekStartsAtTheFrameAndTheSampleAtT(_ seconds: Double, inMemory: Bool) async throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir)
        let collector = FrameCollector()
        let wav = dir.file("audio.wav")
        let audio = AudioPlayerOutput.sink { _ in WAVMuxer(output: try FileOutput(path: wav)) }
        let video = MediaPlayer.VideoOutput.presenting { _ in collector }
        let player =
            inMemory
            ? try MediaPlayer(
                bytes: Array(try Data(contentsOf: URL(fileURLWithPath: movie))), audio: audio, video: video)
            : try MediaPlayer(path: movie, audio: audio, video: video)
        #expect(player.path == (inMemory ? nil : movie))
        try player.seek(to: seconds)
        #expect(try await Self.play(player) == [.ready, .playing, .ended])
        let frames = collector.frames
        let first = try #require(frames.first)
        #expect(first.timing.presentationTime.seconds.map { abs($0 - seconds) < 1e-6 } == true, "\(first.timing)")
        let picture = try Self.ffmpegFrame(movie, at: seconds)
        #expect(Data(first.planes.joined()) == picture)
        #expect(frames.count == 150 - Int((seconds * 25).rounded()))
        #expect(collector.isFinished && !player.isPlaying && player.currentTime == 0)

        let played = try AudioPlayerTests.floats(wav)
        let reference = try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-ss", String(format: "%.3f", seconds), "-i", movie, "-vn", "-f", "f32le", "-"]
        ).stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // As many samples as the stream's duration (ffprobe's, from the MP4's edit list) leaves after T;
        // ffmpeg's own decoding keeps the AAC end padding, so its count is no judge of the end.
        let probe = try ExternalTool.ffprobeJSON(movie, ["-select_streams", "a:0", "-show_entries", "stream=duration"])
        let streams = try #require(probe["streams"] as? [[String: Any]])
        let duration = try #require(Double(streams.first?["duration"] as? String ?? ""))
        #expect(played.count == Int(((duration - seconds) * 44_100).rounded()), "\(played.count) samples played")
        let compared = min(played.count, reference.count, 44_100)
        let worst = (0..<compared).map { abs(played[$0] - reference[$0]) }.max() ?? 1
        #expect(worst < 1e-3, "the audio after the seek differs from ffmpeg's by up to \(worst)")
    }

    /// `rate` 2 plays the audio in half the time at the same pitch (440 Hz), and every frame still reaches
    /// the video output; rates outside 0.5…2 are clamped.
    @Test func rateTwoHalvesTheAudioAndKeepsItsPitch() async throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir, seconds: 2)
        let collector = FrameCollector()
        let wav = dir.file("fast.wav")
        let player = try MediaPlayer(
            path: movie, audio: .sink { _ in WAVMuxer(output: try FileOutput(path: wav)) },
            video: .presenting { _ in collector })
        player.rate = 3
        #expect(player.rate == 2)
        #expect(try await Self.play(player) == [.ready, .playing, .ended])
        let played = try AudioPlayerTests.floats(wav)
        let expected = player.duration * 44_100 / 2
        #expect(abs(Double(played.count) - expected) <= expected * 0.02, "\(played.count) samples for \(expected)")
        let pitch = RawAudio.zeroCrossingFrequency(played, sampleRate: 44_100)
        #expect(abs(pitch - 440) < 4.4, "\(pitch) Hz")
        #expect(collector.frames.count == 50)
        player.rate = 0.1
        #expect(player.rate == 0.5)
    }

    /// A keyframe seek lands on the keyframe at or before the time asked (here 2 s for 3.3 s), audio and
    /// video together.
    @Test func aKeyframeSeekLandsOnTheKeyframeBefore() async throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir)
        let collector = FrameCollector()
        let player = try MediaPlayer(path: movie, audio: nil, video: .presenting { _ in collector })
        try player.seek(to: 3.3, mode: .keyframe)
        #expect(player.currentTime == 2)
        _ = try await Self.play(player)
        let first = try #require(collector.frames.first)
        #expect(first.timing.presentationTime.seconds == 2)
        let keyframe = try Self.ffmpegFrame(movie, at: 2)
        #expect(Data(first.planes.joined()) == keyframe)
    }

    /// Loops continue the timeline: a 2-s file played with one loop gives 100 frames at strictly
    /// increasing times, the second 50 the first 50 again, pixel for pixel.
    @Test func loopsContinueTheTimeline() async throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir, seconds: 2, audio: false)
        let collector = FrameCollector()
        let player = try MediaPlayer(path: movie, audio: nil, video: .presenting { _ in collector })
        player.numberOfLoops = 1
        #expect(player.audioFormat == nil && player.videoFormat?.width == 320)
        #expect(try await Self.play(player) == [.ready, .playing, .ended])
        let frames = collector.frames
        #expect(frames.count == 100)
        let times = frames.compactMap { $0.timing.presentationTime.seconds }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
        #expect(times.last.map { abs($0 - 3.96) < 1e-6 } == true)
        if frames.count == 100 { #expect((0..<50).allSatisfy { frames[$0].data == frames[$0 + 50].data }) }
    }

    /// An audio-only file plays with no video output; what was played is ffmpeg's decoding, sample for
    /// sample, without the end padding ffmpeg's decoding of an MP4 keeps.
    @Test func anAudioOnlyFile() async throws {
        let dir = try TemporaryDirectory()
        let input = dir.file("tone.m4a")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", "1.5", "-c:a", "aac",
            input
        ])
        let wav = dir.file("tone.wav")
        let player = try MediaPlayer(
            path: input, audio: .sink { _ in WAVMuxer(output: try FileOutput(path: wav)) }, video: nil)
        #expect(player.videoFormat == nil && player.audioFormat?.sampleRate == 48_000)
        #expect(abs(player.duration - 1.5) < 0.01)
        #expect(try await Self.play(player) == [.ready, .playing, .ended])
        let played = try AudioPlayerTests.floats(wav)
        let decoded = try AudioPlayerTests.floats(input)
        #expect(played.count == 72_000 && decoded.count >= played.count)
        #expect(played[...] == decoded.prefix(played.count))
    }

    /// Nothing to play, or a video codec the player does not decode, is a typed error naming the file.
    @Test func refusals() throws {
        let dir = try TemporaryDirectory()
        let movie = try Self.movie(dir, seconds: 1, audio: false)
        #expect(throws: MediaError.self) {
            try MediaPlayer(path: movie, audio: .sink { _ in CollectingSink() }, video: nil)
        }
        do {
            _ = try MediaPlayer(path: movie, audio: nil, video: nil)
            Issue.record("a player with nothing to play was made")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains(movie), "\(error)")
        }
        let mpeg4 = dir.file("mpeg4.mkv")
        try GeneratedFixture.ffmpeg([
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "1", "-c:v", "mpeg4", mpeg4
        ])
        do {
            _ = try MediaPlayer(path: mpeg4, audio: nil, video: .presenting { _ in FrameCollector() })
            Issue.record("an MPEG-4 part 2 video was taken")
        } catch {
            #expect(error.code == .unsupportedFormat && error.message.contains("mpeg4"), "\(error)")
        }
    }
}
