import MediaAudio
import MediaTestSupport
import Testing

/// TimeStretch beside ffmpeg's `atempo` (a WSOLA-family stretcher nobody here wrote), measured by sox.
@Suite(.timeLimit(.minutes(5))) struct TimeStretchJudgedTests {
    /// 440 Hz at 2, 0.5 and 1.25: our length matches atempo's (±2 %); sox finds 440 Hz (±1 %) in ours
    /// and the same peak (±1 %) in atempo's; sox's RMS level of ours is the input's (±0.5 dB: segments
    /// are joined in phase, not cancelling) and no step between samples is larger than the input's
    /// largest (+10 %): no clicks.
    @Test(arguments: [2.0, 0.5, 1.25])
    func sineAgainstAtempo(rate: Double) throws {
        let dir = try TemporaryDirectory()
        let sine = PlaybackSignals.tones([440], seconds: 1.5)
        var stage = TimeStretch(rate: .rate(rate))
        let ours = PlaybackSignals.values(try PlaybackSignals.run(&stage, PlaybackSignals.samples(sine, channels: 1)))
        let theirs = try PlaybackJudges.atempo(sine, channels: 1, rate: rate, in: dir)
        let lengthError: Double = abs(Double(ours.count) - Double(theirs.count)) / Double(theirs.count)
        #expect(lengthError <= 0.02, "\(ours.count) vs atempo \(theirs.count)")
        let ourPeak = try PlaybackJudges.soxPeakFrequency(ours, low: 100, high: 4_000, in: dir)
        let theirPeak = try PlaybackJudges.soxPeakFrequency(theirs, low: 100, high: 4_000, in: dir)
        #expect(abs(ourPeak - 440) / 440 < 0.01, "sox: ours \(ourPeak) Hz")
        #expect(abs(ourPeak - theirPeak) / theirPeak < 0.01, "sox: ours \(ourPeak) Hz, atempo \(theirPeak) Hz")
        let ownFFT = PlaybackJudges.peakFrequency(theirs, low: 100, high: 4_000)
        #expect(abs(ownFFT - ourPeak) / ourPeak < 0.01)
        let before = try #require(try PlaybackJudges.soxStats(sine, channels: 1, in: dir)["RMS lev dB"]?.first)
        let after = try #require(try PlaybackJudges.soxStats(ours, channels: 1, in: dir)["RMS lev dB"]?.first)
        #expect(abs(after - before) < 0.5, "RMS \(before) → \(after) dB")
        let step = { (x: [Float]) in zip(x, x.dropFirst()).map { abs($1 - $0) }.max() ?? 0 }
        #expect(step(ours) <= step(sine) * 1.1)
    }

    /// 440 + 1000 Hz at 2 and 0.5: sox finds both components where atempo keeps them.
    @Test(arguments: [2.0, 0.5])
    func twoTonesAgainstAtempo(rate: Double) throws {
        let dir = try TemporaryDirectory()
        let tones = PlaybackSignals.tones([440, 1_000], seconds: 1.5, amplitude: 0.4)
        var stage = TimeStretch(rate: .rate(rate))
        let ours = PlaybackSignals.values(try PlaybackSignals.run(&stage, PlaybackSignals.samples(tones, channels: 1)))
        let theirs = try PlaybackJudges.atempo(tones, channels: 1, rate: rate, in: dir)
        let lengthError: Double = abs(Double(ours.count) - Double(theirs.count)) / Double(theirs.count)
        #expect(lengthError <= 0.02)
        for f in [440.0, 1_000.0] {
            let ourPeak = try PlaybackJudges.soxPeakFrequency(ours, low: f * 0.9, high: f * 1.1, in: dir)
            let theirPeak = try PlaybackJudges.soxPeakFrequency(theirs, low: f * 0.9, high: f * 1.1, in: dir)
            #expect(
                abs(ourPeak - f) / f < 0.01 && abs(ourPeak - theirPeak) / theirPeak < 0.01,
                "\(f) Hz: ours \(ourPeak), atempo \(theirPeak)")
        }
    }
}
