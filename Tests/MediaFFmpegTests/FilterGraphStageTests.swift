import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// `FilterGraphStage` judged by FFmpeg's own tools on the same input: loudness by `ebur128`, a scaled
/// picture byte for byte against `ffmpeg -vf`, timing through filters that change it, and errors that
/// name the filter.
@Suite(.timeLimit(.minutes(3)), .ffmpegLeakGate) struct FilterGraphStageTests {
    /// Every sample `stage` gives for `source`'s samples, `finish` included.
    static func run(_ source: any MediaSource, through stage: FilterGraphStage) throws -> [MediaSample] {
        var out: [MediaSample] = []
        var source = source
        while let sample = try source.next() { try stage.process(sample) { out.append($0) } }
        try stage.finish { out.append($0) }
        return out
    }

    @Test func loudnormBringsSpeechLikeNoiseToMinus16LUFSAsEbur128MeasuresIt() throws {
        let dir = try TemporaryDirectory()
        // 20 s of pink noise at about −30 LUFS, its level moving as speech does (a 0.5 Hz tremolo).
        try ExternalTool.check(
            "sox",
            [
                "-n", "-r", "48000", "-c", "2", "-b", "16", dir.file("in.wav"), "synth", "20", "pinknoise", "vol",
                "0.05",
                "tremolo", "0.5", "60"
            ])
        let before = try Self.integratedLoudness(dir.file("in.wav"))
        #expect(before < -25, "the input is already at \(before) LUFS")
        let stage = try FilterGraphStage("loudnorm=I=-16:TP=-1.5,aresample=48000")
        let samples = try Self.run(try WAVReader(path: dir.file("in.wav")), through: stage)
        let format = try #require(samples.first?.format.audio)
        #expect(format.sampleRate == 48_000 && format.channelCount == 2)
        // loudnorm's look-ahead is released at the end: every input frame comes out (±1 of the resampler's rounding).
        let frames = samples.reduce(0) { $0 + $1.frameCount }
        #expect(abs(frames - 20 * 48_000) <= 1, "\(frames) frames out of \(20 * 48_000)")
        let muxer = WAVMuxer(output: try FileOutput(path: dir.file("out.wav")))
        for sample in samples { try muxer.write(sample) }
        try muxer.finish()
        let after = try Self.integratedLoudness(dir.file("out.wav"))
        #expect(abs(after - -16) <= 0.5, "integrated loudness \(after) LUFS")
    }

    /// `ffmpeg -af ebur128`'s integrated loudness of a file, in LUFS.
    static func integratedLoudness(_ path: String) throws -> Double {
        let result = try ExternalTool.run(
            "ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-af", "ebur128", "-f", "null", "-"])
        // The summary's "    I:         -16.0 LUFS".
        let line = try #require(
            result.stderr.split(separator: "\n").last { $0.trimmingCharacters(in: .whitespaces).hasPrefix("I:") })
        let value = line.split(separator: " ").compactMap { Double($0) }.first
        return try #require(value, "\(line)")
    }

    @Test func aScaledPictureIsByteForByteWhatFfmpegVfGives() throws {
        let dir = try TemporaryDirectory()
        let pattern = try TestPatternGenerator(width: 320, height: 240, length: .frames(5))
        let stage = try FilterGraphStage("scale=160:-2,hflip")
        let samples = try Self.run(pattern, through: stage)
        #expect(samples.count == 5)
        var ours = Data()
        for sample in samples {
            #expect(sample.format.video?.width == 160 && sample.format.video?.height == 120)
            for plane in sample.planes { ours.append(contentsOf: plane) }
        }
        // The same frames through the ffmpeg CLI.
        let y4m = Y4MMuxer(output: try FileOutput(path: dir.file("in.y4m")))
        var again = try TestPatternGenerator(width: 320, height: 240, length: .frames(5))
        while let sample = try again.next() { try y4m.write(sample) }
        try y4m.finish()
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-i", dir.file("in.y4m"), "-vf", "scale=160:-2,hflip", "-f", "rawvideo", "-pix_fmt",
                "yuv420p",
                dir.file("ff.yuv")
            ])
        let theirs = try Data(contentsOf: URL(fileURLWithPath: dir.file("ff.yuv")))
        #expect(ours.count == theirs.count)
        #expect(ours == theirs, "the filtered frames differ from ffmpeg -vf's")
    }

    @Test func filtersThatChangeTimingAreHonoured() throws {
        // fps=15 from 30 fps: every other frame, stamped at 1/15 s steps.
        let pattern = try TestPatternGenerator(width: 64, height: 48, length: .frames(30))
        let video = try Self.run(pattern, through: try FilterGraphStage("fps=15"))
        #expect(video.count == 15)
        let times: [Double?] = video.map { $0.timing.presentationTime.seconds }
        let ticks: [Double?] = (0..<15).map { (i: Int) -> Double? in Double(i) / 15 }
        #expect(times == ticks)
        #expect(video.first?.timing.duration == MediaTime(value: 1, timescale: 15))
        #expect(video.first?.format.video?.frameRate == FrameRate(15))

        // atempo=2: 1 s of audio in 0.5 s out, starting where the input starts.
        let tone = try ToneGenerator(sampleRate: 48_000, channels: 1, length: .duration(.seconds(1)))
        let audio = try Self.run(tone, through: try FilterGraphStage("atempo=2"))
        let frames = audio.reduce(0) { $0 + $1.frameCount }
        #expect(abs(frames - 24_000) <= 1024, "\(frames) frames")
        #expect(audio.first?.timing.presentationTime == .zero)
        for (previous, next) in zip(audio, audio.dropFirst()) {
            #expect(previous.timing.presentationTime + previous.timing.duration == next.timing.presentationTime)
        }
    }

    @Test func errorsNameTheFilterAndTheReason() throws {
        do {
            _ = try FilterGraphStage("volume=0.5,loudnrom=I=-16")
            Issue.record("an unknown filter was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("\"loudnrom\"") && error.message.contains("2nd"), "\(error)")
        }
        #expect(throws: MediaError.self) { try FilterGraphStage("  ") }

        let stage = try FilterGraphStage("aresample=48000,volume=volume=loud")
        let tone = try ToneGenerator(sampleRate: 44_100, channels: 2, length: .duration(.seconds(1)))
        do {
            _ = try Self.run(tone, through: stage)
            Issue.record("a filter's bad option was accepted")
        } catch let error as MediaError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("2nd filter") && error.message.contains("volume=volume=loud"), "\(error)")
        }

        // A graph built for one format refuses another.
        let fixed = try FilterGraphStage("volume=0.5")
        var stereo = try ToneGenerator(sampleRate: 48_000, channels: 2, length: .duration(.seconds(1)))
        var mono = try ToneGenerator(sampleRate: 48_000, channels: 1, length: .duration(.seconds(1)))
        try fixed.process(try #require(try stereo.next())) { _ in }
        #expect(throws: MediaError.self) { try fixed.process(try #require(try mono.next())) { _ in } }
        // Video into an audio-only filter: the graph cannot be built, and says for what.
        let audioOnly = try FilterGraphStage("volume=0.5")
        var pattern = try TestPatternGenerator(width: 64, height: 48, length: .frames(1))
        do {
            try audioOnly.process(try #require(try pattern.next())) { _ in }
            Issue.record("video went into volume")
        } catch let error as MediaError {
            #expect(error.code == .invalidArgument && error.message.contains("yuv420p"), "\(error)")
        }
    }

    @Test func drawtextDrawsItsBoxWhereItIsTold() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240, length: .frames(1), scrollStep: 0)
        let stage = try FilterGraphStage(
            "drawtext=text='MediaPipeline':fontsize=24:fontcolor=white:box=1:boxcolor=red:boxborderw=8:x=40:y=100")
        let frame = try #require(try Self.run(pattern, through: stage).first)
        let luma = frame.planes[0]
        // Pure red in BT.601 limited range: Y 81, Cr (V) 240. Inside the box's border, left of the text.
        let inside = 100 * 320 + 34
        #expect(abs(Int(luma[inside]) - 81) <= 2, "luma \(luma[inside])")
        let chromaIndex: Int = (100 / 2) * 160 + 34 / 2
        let v: UInt8 = frame.planes[2][chromaIndex]
        #expect(v >= 235, "V \(v)")
        // Somewhere in the text's row there are white glyph pixels.
        let row = luma[(110 * 320 + 40)..<(110 * 320 + 200)]
        #expect(row.contains { $0 > 200 }, "no glyph pixels in the text's row")
    }
}
