import MediaAudio
import MediaTestSupport
import Testing

// The limit catches a hang (a DSP loop that never ends), not slowness: the suites take about 16 s under
// ThreadSanitizer alone, but in the fresh-clone CI's parallel TSan run on two cores they waited past one
// minute behind the heavier suites (2026-11-25), so the limit is five.
@Suite(.timeLimit(.minutes(5))) struct TimeStretchTests {
    static func stretch(_ values: [Float], channels: Int = 1, rate: Double, sizes: [Int] = [1024], planar: Bool = false)
        throws -> (TimeStretch, [MediaSample])
    {
        let stage = TimeStretch(rate: .rate(rate))
        var driven = stage
        let out = try PlaybackSignals.run(
            &driven, PlaybackSignals.samples(values, channels: channels, sizes: sizes, planar: planar))
        return (stage, out)
    }

    /// Rates 2, 0.5 and 1.25 on 440 Hz: the output lasts input / rate (exactly here, ±2 % asked) and
    /// its frequency is still 440 Hz (±1 %) by our FFT.
    @Test(arguments: [2.0, 0.5, 1.25])
    func sineKeepsPitchAndScalesDuration(rate: Double) throws {
        let sine = PlaybackSignals.tones([440], seconds: 1.5)
        let (_, out) = try Self.stretch(sine, rate: rate)
        let values = PlaybackSignals.values(out)
        let expected = (Double(sine.count) / rate).rounded()
        #expect(Double(values.count) == expected)
        let f = PlaybackJudges.peakFrequency(values, low: 100, high: 4_000)
        #expect(abs(f - 440) / 440 < 0.01, "peak at \(f) Hz")
    }

    /// Two tones (440 + 1000 Hz): both stay where they were, and neither loses more than 3 dB.
    @Test(arguments: [2.0, 0.5, 1.25])
    func twoTonesKeepTheirFrequencies(rate: Double) throws {
        let tones = PlaybackSignals.tones([440, 1_000], seconds: 1.5, amplitude: 0.4)
        let values = PlaybackSignals.values(try Self.stretch(tones, rate: rate).1)
        #expect(abs(Double(values.count) - Double(tones.count) / rate) <= 1)
        for f in [440.0, 1_000.0] {
            let measured = PlaybackJudges.peakFrequency(values, low: f * 0.9, high: f * 1.1)
            #expect(abs(measured - f) / f < 0.01, "\(f) Hz came out at \(measured) Hz")
        }
        let level = { (signal: [Float], f: Double) in
            RawAudio.spectralPeak(signal, sampleRate: 48_000, low: Int(f), high: Int(f)).amplitude
        }
        for f in [440.0, 1_000.0] { #expect(level(values, f) > level(tones, f) * 0.7) }
    }

    /// Rate 1 is a pass-through: the same samples, bit for bit and storage for storage.
    @Test func unityRateIsAPassThrough() throws {
        let inputs = PlaybackSignals.samples(
            PlaybackSignals.tones([440], seconds: 0.5, channels: 2), channels: 2, sizes: [333])
        var stage = TimeStretch()
        let outputs = try PlaybackSignals.run(&stage, inputs)
        #expect(outputs == inputs)
        #expect(zip(outputs, inputs).allSatisfy { $0.sharesStorage(with: $1) })
    }

    /// Noise and speech-like input: every value finite, no peak above the input's (+1 %).
    @Test(arguments: [0.5, 0.8, 2.0])
    func noiseAndSpeechStayFiniteAndBounded(rate: Double) throws {
        for signal in [PlaybackSignals.noise(seconds: 1, amplitude: 0.9), PlaybackSignals.speechLike(seconds: 1.5)] {
            let values = PlaybackSignals.values(try Self.stretch(signal, rate: rate).1)
            let inputPeak = signal.map(abs).max() ?? 0
            #expect(values.allSatisfy { $0.isFinite })
            #expect((values.map(abs).max() ?? 0) <= inputPeak * 1.01)
            #expect(abs(Double(values.count) - Double(signal.count) / rate) <= 1)
        }
    }

    /// Stereo with a different tone on each side: each side keeps its own frequency (both are cut at
    /// the same place), and planar input gives the same output as interleaved, in planar form.
    @Test func stereoSidesKeepTheirToneAndPlanarMatches() throws {
        let stereo = zip(PlaybackSignals.tones([440], seconds: 1), PlaybackSignals.tones([660], seconds: 1)).flatMap {
            [$0, $1]
        }
        let interleaved = try Self.stretch(stereo, channels: 2, rate: 1.5).1
        let planar = try Self.stretch(stereo, channels: 2, rate: 1.5, planar: true).1
        let values = PlaybackSignals.values(interleaved)
        #expect(PlaybackSignals.values(planar) == values)
        #expect(planar.first?.planeCount == 2)
        let left = PlaybackJudges.peakFrequency(
            PlaybackSignals.channel(0, of: values, channels: 2), low: 100, high: 2_000)
        let right = PlaybackJudges.peakFrequency(
            PlaybackSignals.channel(1, of: values, channels: 2), low: 100, high: 2_000)
        #expect(abs(left - 440) < 4.4 && abs(right - 660) < 6.6, "left \(left) Hz, right \(right) Hz")
    }

    /// Anything but float32 PCM is refused, and so is a later sample whose format differs from the
    /// first's.
    @Test func refusesOtherFormats() throws {
        let stage = TimeStretch(rate: .rate(2))
        let s16 = MediaSample(
            format: .audio(.pcm(.s16, sampleRate: 48_000, channels: 1)), data: [0, 0],
            timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 48_000), frameCount: 1)
        #expect { try stage.process(s16) { _ in } } throws: { ($0 as? MediaError)?.code == .formatMismatch }
        try stage.process(PlaybackSignals.sample([0.1, 0.2][...], channels: 1, start: 0)) { _ in }
        let stereo = PlaybackSignals.sample([0.1, 0.2][...], channels: 2, start: 2)
        #expect { try stage.process(stereo) { _ in } } throws: { ($0 as? MediaError)?.code == .formatMismatch }
    }

    /// The documented parameters at 48 kHz.
    @Test func parametersAt48kHz() {
        #expect(TimeStretch.windowFrames(sampleRate: 48_000) == 1_200)
        #expect(TimeStretch.hopFrames(sampleRate: 48_000) == 600)
        #expect(TimeStretch.searchRadiusFrames(sampleRate: 48_000) == 480)
        #expect(TimeStretch.lookaheadFrames(sampleRate: 48_000) == 1_680)
        #expect(TimeStretch.windowFrames(sampleRate: 44_100) == 1_102)
    }
}
