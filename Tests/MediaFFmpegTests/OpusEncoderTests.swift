import Foundation
import MediaCore
import MediaFFmpeg
import MediaFormats
import MediaTestSupport
import Testing

/// `OpusEncoder` (issue 32), on the audio encoder session it shares with `AACEncoder`: the packets are
/// the ffmpeg CLI's with the same settings, N frames in decode to exactly N out (through our decoder
/// and through ffmpeg's reading of Ogg, WebM and MP4), and the pre-skip is where each container keeps it.
@Suite(.timeLimit(.minutes(5)), .ffmpegLeakGate) struct OpusEncoderTests {
    /// `frames` frames of a two-tone stereo signal at `rate`, 16-bit, written by ffmpeg.
    static func wav(frames: Int, rate: Int, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("in-\(rate).wav")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate)", "-f", "lavfi", "-i",
                "sine=frequency=660:sample_rate=\(rate)", "-filter_complex",
                "[0][1]amerge=inputs=2,atrim=end_sample=\(frames)", "-c:a", "pcm_s16le", path
            ])
        return path
    }

    /// The WAV at `path` encoded with `settings` and written to `output` (its extension picks the container).
    @discardableResult
    static func encode(_ path: String, settings: OpusEncoder.Settings, to output: String) throws -> [MediaSample] {
        let reader = try WAVReader(path: path)
        var samples: [MediaSample] = []
        while let sample = try reader.next() { samples.append(sample) }
        let packets = try PCM.run(try OpusEncoder(settings: settings), samples)
        let muxer = try ContainerMuxer(path: output)
        try muxer.begin(firstSamples: [packets.first])
        for packet in packets { try muxer.write(packet, track: 0) }
        try muxer.finish()
        return packets
    }

    static var fixed: OpusEncoder.Settings {
        var settings = OpusEncoder.Settings()
        settings.bitRate = 64_000
        return settings
    }

    /// The frames ffmpeg decodes from `path` (stereo, 16-bit).
    static func ffmpegFrames(_ path: String) throws -> Int {
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-ac", "2", "-"]).stdout.count / 4
    }

    @Test(arguments: [48_000, 44_100])
    func packetsAreTheCLIsWithTheSameSettings(rate: Int) throws {
        let dir = try TemporaryDirectory()
        let input = try Self.wav(frames: rate * 2, rate: rate, in: dir)
        let ours = dir.file("ours.ogg")
        let theirs = dir.file("theirs.ogg")
        try Self.encode(input, settings: Self.fixed, to: ours)
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", input, "-c:a", "libopus", "-b:a", "64k", theirs])
        let packets = try ExternalTool.packetFingerprints(ours, stream: "a:0")
        #expect(packets.count >= 100)
        #expect(packets == (try ExternalTool.packetFingerprints(theirs, stream: "a:0")))
    }

    @Test(arguments: [1, 959, 960, 48_000, 100_037])
    func framesInAreFramesOutAfterDecoding(frames: Int) throws {
        let dir = try TemporaryDirectory()
        let input = try Self.wav(frames: frames, rate: 48_000, in: dir)
        let packets = try Self.encode(input, settings: Self.fixed, to: dir.file("ours.ogg"))
        #expect(packets.first?.trimAtStart == 312)
        #expect(packets.reduce(0) { $0 + $1.validFrameCount } == frames)
        let decoded = try PCM.run(AudioDecoder(), packets).reduce(0) { $0 + $1.frameCount }
        #expect(decoded == frames)
        #expect(try Self.ffmpegFrames(dir.file("ours.ogg")) == frames)
    }

    /// From 44.1 kHz the frames out are the resampled input's: what libswresample makes of them, every
    /// one (its filter delay drained at the end), which is N × 48000 / 44100 rounded up.
    @Test func fromFortyFourOneTheResampledFramesAreAllThere() throws {
        let dir = try TemporaryDirectory()
        let frames = 44_100 + 441
        let input = try Self.wav(frames: frames, rate: 44_100, in: dir)
        let packets = try Self.encode(input, settings: Self.fixed, to: dir.file("ours.ogg"))
        let expected = (frames * 48_000 + 44_099) / 44_100
        #expect(packets.reduce(0) { $0 + $1.validFrameCount } == expected)
        #expect(try Self.ffmpegFrames(dir.file("ours.ogg")) == expected)
    }

    /// The pre-skip is the OpusHead's in every container; WebM also starts 6.5 ms early (CodecDelay) and
    /// MP4 with an edit list past the first 312 frames; ffmpeg reads exactly the input from Ogg and WebM.
    @Test func thePreSkipIsWhereEachContainerKeepsIt() throws {
        let dir = try TemporaryDirectory()
        let frames = 48_000
        let input = try Self.wav(frames: frames, rate: 48_000, in: dir)
        for ext in ["ogg", "webm", "mp4"] {
            let path = dir.file("ours.\(ext)")
            try Self.encode(input, settings: Self.fixed, to: path)
            let data = try ExternalTool.check(
                "ffprobe",
                ["-v", "error", "-show_data", "-show_entries", "stream=extradata,start_pts", "-of", "json", path]
            ).output
            // OpusHead: 'OpusHead', version 1, channels 2, pre-skip 312 = 0x0138 little-endian.
            #expect(data.contains("4f70 7573 4865 6164 0102 3801"), "\(ext): \(data)")
            if ext != "mp4" { #expect(try Self.ffmpegFrames(path) == frames, "\(ext)") }
        }
        let firstPTS = try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "packet=pts", "-read_intervals", "%+#1", "-of", "csv=p=0",
                dir.file("ours.mp4")
            ]
        ).output.trimmingCharacters(in: CharacterSet(charactersIn: ", \n"))
        #expect(firstPTS == "-312")
    }

    @Test func settingsOutsideWhatOpusHasAreRefused() throws {
        var settings = OpusEncoder.Settings()
        settings.frameDuration = 30
        #expect(throws: MediaError.self) { try OpusEncoder(settings: settings) }
        settings.frameDuration = 20
        settings.complexity = 11
        #expect(throws: MediaError.self) { try OpusEncoder(settings: settings) }
    }
}
