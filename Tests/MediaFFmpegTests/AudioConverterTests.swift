import MediaCore
import MediaFFmpeg
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioConverterTests {
    /// N frames at rate A come out as exactly N × B / A frames (rounded to nearest) at rate B, with the
    /// resampler's delay drained, whatever the length (even a single frame).
    @Test(arguments: [1, 441, 1000, 44_100, 100_000, 123_457])
    func resamplingAccountsForEveryFrame(frames: Int) throws {
        for (from, to) in [(44_100, 48_000), (48_000, 44_100), (48_000, 16_000), (22_050, 48_000)] {
            let converter = try AudioConverter(sampleRate: to)
            let out = try PCM.run(converter, PCM.sine(frames: frames, sampleRate: from, chunk: 1000))
            let total = out.reduce(0) { $0 + $1.frameCount }
            let expected = Int((Double(frames) * Double(to) / Double(from)).rounded())
            #expect(total == expected, "\(frames) frames \(from) → \(to) Hz gave \(total)")
            #expect(out.allSatisfy { $0.format.audio?.sampleRate == to })
            var time = MediaTime.zero
            for sample in out {
                #expect(sample.timing.presentationTime == time)
                time += sample.timing.duration
            }
        }
    }

    /// The resampled tone keeps its frequency (zero crossings) and level.
    @Test func resampledToneKeepsItsPitch() throws {
        let out = try PCM.run(
            try AudioConverter(format: .f32, sampleRate: 48_000),
            PCM.sine(frames: 44_100, frequency: 1000, sampleRate: 44_100, type: .f32))
        let left = PCM.firstChannel(out)
        var crossings = 0
        for i in 1..<left.count where (left[i - 1] < 0) != (left[i] < 0) { crossings += 1 }
        #expect(abs(crossings - 2000) <= 2, "\(crossings) zero crossings in one second")
        let peak: Float = left[1000..<47_000].map { (x: Float) -> Float in abs(x) }.max() ?? 0
        #expect(abs(Double(peak) - 0.5) < 0.01)
    }

    @Test func s16ToFloatIsExact() throws {
        let input = PCM.sine(frames: 1000, type: .s16)
        let out = try PCM.run(try AudioConverter(format: .f32), input)
        let floats = PCM.firstChannel(out)
        let ints = input[0].data.withUnsafeBytes { raw in
            (0..<1000).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Int16.self) }
        }
        #expect(floats.count == 1000)
        #expect(zip(floats, ints).allSatisfy { $0 == Float($1) / 32768 })
    }

    @Test func s24RoundTripsThroughFloatExactly() throws {
        var bytes: [UInt8] = []
        for i in 0..<300 {
            let v = Int32(i * 27_961 - 4_000_000);
            bytes += [
                UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v >> 16)
            ]
        }
        let format = AudioFormat.pcm(PCMFormat(.s24), sampleRate: 48_000, channels: 1)
        let input = MediaSample(
            format: .audio(format), data: bytes, timing: .audio(startFrame: 0, frameCount: 300, sampleRate: 48_000),
            frameCount: 300)
        let float = try PCM.run(try AudioConverter(format: PCMFormat(.f64)), [input])
        let back = try PCM.run(try AudioConverter(format: PCMFormat(.s24)), float)
        #expect(back.map(\.data) == [bytes])
    }

    @Test func monoToStereoAndDownmix() throws {
        let mono = try PCM.run(
            try AudioConverter(format: .f32, channelLayout: .stereo), PCM.sine(frames: 2000, channels: 1))
        #expect(mono.first?.format.audio?.channelCount == 2)
        #expect(mono.reduce(0) { $0 + $1.frameCount } == 2000)
        let surround = PCM.sine(frames: 3000, channels: 6).map { sample -> MediaSample in
            var s = sample
            s.format = .audio(.pcm(.s16, sampleRate: 48_000, channelLayout: .surround51))
            return s
        }
        let stereo = try PCM.run(try AudioConverter(format: .f32, channelLayout: .stereo), surround)
        #expect(stereo.first?.format.audio?.channelLayout == .stereo)
        #expect(stereo.reduce(0) { $0 + $1.frameCount } == 3000)
        let left = PCM.firstChannel(stereo)
        #expect(left.map(abs).max() ?? 0 > 0.5, "5.1 → stereo keeps the signal")
    }

    @Test func passThroughWhenNothingChanges() throws {
        let input = PCM.sine(frames: 5000, chunk: 1000)
        let out = try PCM.run(try AudioConverter(), input)
        #expect(out.map(\.data) == input.map(\.data))
    }

    @Test func refusesCompressedInputAndBadSettings() throws {
        #expect(throws: MediaError.self) { try AudioConverter(sampleRate: 0) }
        let packet = MediaSample(
            format: .audio(.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])),
            data: [1], timing: .invalid, frameCount: 1024)
        #expect { try PCM.run(try AudioConverter(sampleRate: 44_100), [packet]) } throws: {
            ($0 as? MediaError)?.code == .formatMismatch
        }
    }

    /// After the converter has thrown, the guard every driver (and a hand-driver) puts around it stops
    /// it: no call reaches it after its failure.
    @Test func isNotCalledAfterItsFailure() throws {
        let counter = CallCounter(try AudioConverter(sampleRate: 44_100))
        let converter = CheckedStage(counter)
        let good = PCM.sine(frames: 1000, chunk: 1000)[0]
        var mono = good
        mono.format = .audio(.pcm(.f32, sampleRate: 48_000, channels: 1))
        var emitted = 0
        try converter.process(good) { _ in emitted += 1 }
        let error = try #require(throws: MediaError.self) { try converter.process(mono) { _ in emitted += 1 } }
        #expect(error.code == .formatMismatch)
        #expect(error.stage == "AudioConverter")
        #expect(error.sampleIndex == 1)
        #expect(converter.state == .failed)
        let before = emitted
        let late = try #require(throws: MediaError.self) { try converter.process(good) { _ in emitted += 1 } }
        #expect(late.code == .stageFinished)
        #expect(late.stage == "AudioConverter")
        #expect(
            (try #require(throws: MediaError.self) { try converter.finish { _ in emitted += 1 } }).code
                == .stageFinished)
        #expect(counter.processCalls == 2)
        #expect(counter.finishCalls == 0)
        #expect(emitted == before)
    }

    /// The same through a pipeline: the run stops at the failing sample, named and numbered.
    @Test func aPipelineStopsAtTheConvertersFailure() throws {
        let counter = CallCounter(try AudioConverter(sampleRate: 44_100))
        var samples = PCM.sine(frames: 3000, chunk: 1000)
        samples[1].format = .audio(.pcm(.f32, sampleRate: 48_000, channels: 1))
        var pipeline = Pipeline(source: ArraySource(samples), stages: [counter], sink: CollectingSink())
        let error = try #require(throws: MediaError.self) { try pipeline.run() }
        #expect(error.code == .formatMismatch)
        #expect(error.stage == "AudioConverter")
        #expect(error.sampleIndex == 1)
        #expect(counter.processCalls == 2)
        #expect(counter.finishCalls == 0)
    }
}

/// Passes the calls on to `base`, counting them.
private final class CallCounter: MediaStage {
    let base: any MediaStage
    private(set) var processCalls = 0
    private(set) var finishCalls = 0
    let name: String

    init(_ base: any MediaStage) {
        self.base = base
        name = base.name
    }

    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        processCalls += 1
        var stage = base
        try stage.process(sample, into: emit)
    }

    func finish(into emit: (MediaSample) throws -> Void) throws {
        finishCalls += 1
        var stage = base
        try stage.finish(into: emit)
    }
}
