import Foundation
import MediaAudio
import MediaTestSupport
import Testing

/// The mixer against `sox -m -v G1 a -v G2 b …` on the same float32 inputs (sox makes them and mixes
/// them), then what sox cannot say: offsets to the frame, changes ramped, inputs added and removed,
/// wrong formats refused by name.
@Suite(.timeLimit(.minutes(3))) struct AudioMixerTests {
    static let rate = 48_000

    /// `sox` arguments that read or write raw interleaved float32 stereo at 48 kHz.
    static let raw = ["-t", "raw", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32"]

    /// Float32 values of a raw file.
    static func floats(_ path: String) throws -> [Float] {
        RawAudio.floats(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `values` (interleaved stereo) as samples of `framesPerSample` frames (the last one shorter).
    static func samples(_ values: [Float], framesPerSample: Int, channels: Int = 2) -> [MediaSample] {
        let frames = values.count / channels
        return stride(from: 0, to: frames, by: framesPerSample).map { start in
            let count = min(framesPerSample, frames - start)
            var bytes = [UInt8]()
            for value in values[(start * channels)..<((start + count) * channels)] {
                withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            }
            return MediaSample(
                format: .audio(.pcm(PCMFormat(.f32), sampleRate: rate, channels: channels)), data: bytes,
                timing: .audio(startFrame: Int64(start), frameCount: count, sampleRate: rate), frameCount: count)
        }
    }

    /// Every value the mixer gives, interleaved.
    static func drain(_ mixer: AudioMixer) throws -> [Float] { try RawAudio.floats(of: mixer) }

    @Test(arguments: [2, 8]) func inputsMixedWithGainsAreWhatSoxMixes(count: Int) throws {
        let dir = try TemporaryDirectory()
        var inputs: [[Float]] = []
        var gains: [Double] = []
        var soxArguments: [String] = ["-m"]
        for index in 0..<count {
            let path = dir.file("in\(index).raw")
            // Different lengths (1.0 s to 1.7 s), tones and noise, each at a different gain, summing to less than 1 (sox clips).
            let seconds = 1.0 + Double(index) * 0.1
            let synth = index % 3 == 2 ? ["whitenoise"] : ["sine", "\(220 * (index + 1))"]
            try ExternalTool.check("sox", ["-n"] + Self.raw + [path, "synth", "\(seconds)"] + synth + ["vol", "0.1"])
            inputs.append(try Self.floats(path))
            let gain = [0.5, 0.25, 0.75, 1.5, 0.125, 0.3, 0.9, 0.6][index]
            gains.append(gain)
            soxArguments += ["-v", "\(gain)"] + Self.raw + [path]
        }
        try ExternalTool.check("sox", soxArguments + Self.raw + [dir.file("sox.raw")])
        let expected = try Self.floats(dir.file("sox.raw"))

        let mixer = try AudioMixer(
            sampleRate: Self.rate, channels: 2,
            inputs: inputs.enumerated().map { index, values in
                // Input buffers of uneven sizes, unlike the mixer's 1024-frame output.
                AudioMixer.Input(
                    source: ArraySource(Self.samples(values, framesPerSample: 441 + 97 * index)), gain: gains[index])
            })
        let mixed = try Self.drain(mixer)
        #expect(mixed.count == expected.count)
        let difference = zip(mixed, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(difference <= 1e-6, "largest difference from sox: \(difference)")
        #expect(mixer.clippedValues == 0)
    }

    @Test func offsetsPlaceEachInputToTheFrameWithSilenceBefore() throws {
        let one = [Float](repeating: 0.25, count: 2 * 1000)
        let mixer = try AudioMixer(
            sampleRate: Self.rate, channels: 2, framesPerBuffer: 256,
            inputs: [
                AudioMixer.Input(source: ArraySource(Self.samples(one, framesPerSample: 300))),
                AudioMixer.Input(
                    source: ArraySource(Self.samples(one, framesPerSample: 300)),
                    offset: MediaTime(value: 1500, timescale: 48_000), gain: 2)
            ])
        let mixed = try Self.drain(mixer)
        #expect(mixed.count == 2 * 2500)  // the second input ends at frame 2500
        #expect(mixed[0..<2000].allSatisfy { $0 == 0.25 })
        #expect(mixed[2000..<3000].allSatisfy { $0 == 0 })  // frames 1000..<1500: nobody plays
        #expect(mixed[3000..<5000].allSatisfy { $0 == 0.5 })
    }

    @Test func aChangeOfGainIsRampedAndMuteAndRemoveTakeEffectAtTheNextBuffer() throws {
        let one = [Float](repeating: 0.5, count: 2 * 48_000)
        let input = AudioMixer.Input(source: ArraySource(Self.samples(one, framesPerSample: 480)))
        let controls = input.controls
        let mixer = try AudioMixer(sampleRate: Self.rate, channels: 2, framesPerBuffer: 1024, inputs: [input])
        var values: [Float] = []
        func take() throws {
            let sample = try #require(try mixer.next())
            sample.withUnsafeBytes { raw in
                for index in stride(from: 0, to: raw.count / 4, by: 2) {
                    values.append(
                        Float(
                            bitPattern: UInt32(
                                littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))))
                }
            }
        }
        try take()
        controls.gain.value = 0
        try take()
        // 10 ms at 48 kHz: 480 frames from 0.5 to 0, each step no larger than 0.5 / 480.
        let ramp = Array(values[1024..<2048])
        let steps = zip(ramp.dropFirst(), ramp).map { abs($0 - $1) }
        #expect((steps.max() ?? 1) <= 0.5 / 480 + 1e-6)
        #expect(ramp[478] > 0 && ramp[479...].allSatisfy { $0 == 0 })  // the 480th frame is at the target
        controls.gain.value = 1
        controls.isMuted = true
        try take()
        #expect(values[2048...].allSatisfy { $0 == 0 })  // muted: still 0
        controls.isMuted = false
        try take()
        #expect(values.last == 0.5)
        controls.remove()
        try take()  // ramps out in this buffer
        #expect(values.last == 0)
        #expect(try mixer.next() == nil)  // its only input left: the mix ends
        #expect(mixer.inputCount == 0)
    }

    @Test func anInputAddedWhileRunningJoinsAtTheNextBuffer() throws {
        let quiet = [Float](repeating: 0.125, count: 2 * 4096)
        let mixer = try AudioMixer(
            sampleRate: Self.rate, channels: 2, framesPerBuffer: 1024,
            inputs: [AudioMixer.Input(source: ArraySource(Self.samples(quiet, framesPerSample: 1000)))])
        let first = try Self.drainOne(mixer)
        #expect(first.allSatisfy { $0 == 0.125 })
        mixer.add(AudioMixer.Input(source: ArraySource(Self.samples(quiet, framesPerSample: 700)), gain: 2))
        let second = try Self.drainOne(mixer)
        #expect(second.allSatisfy { $0 == 0.375 })
        #expect(mixer.inputCount == 2)
    }

    static func drainOne(_ mixer: AudioMixer) throws -> [Float] {
        let sample = try #require(try mixer.next())
        return sample.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
            }
        }
    }

    @Test func valuesBeyondFullScaleAreKeptAndCounted() throws {
        let half = [Float](repeating: 0.5, count: 2 * 300)
        let mixer = try AudioMixer(
            sampleRate: Self.rate, channels: 2,
            inputs: [AudioMixer.Input(source: ArraySource(Self.samples(half, framesPerSample: 300)), gain: 4)])
        let mixed = try Self.drain(mixer)
        #expect(mixed.count == 600 && mixed.allSatisfy { $0 == 2 })
        #expect(mixer.clippedValues == 600)
    }

    @Test func anInputInAnotherFormatIsRefusedByName() throws {
        var tone = [UInt8](repeating: 0, count: 4 * 100)
        tone[0] = 1
        let s16 = MediaSample(
            format: .audio(.pcm(PCMFormat(.s16), sampleRate: Self.rate, channels: 2)), data: tone,
            timing: .audio(startFrame: 0, frameCount: 100, sampleRate: Self.rate), frameCount: 100)
        let mixer = try AudioMixer(
            sampleRate: Self.rate, channels: 2, inputs: [AudioMixer.Input(source: ArraySource([s16]))])
        do {
            _ = try mixer.next()
            Issue.record("an s16 input was mixed")
        } catch let error as MediaError {
            #expect(error.code == .formatMismatch)
            #expect(error.message.contains("AudioConverter"), "\(error)")
        }
        #expect(throws: MediaError.self) { try AudioMixer(sampleRate: 0, channels: 2) }
    }
}

/// Live inputs on one clock (each read by a thread of its own, as a capture would be): a tone for 1 s
/// and an input that stops delivering after 0.5 s and ends 1 s later (0.25 s of latency allowed). The tone goes on without a gap
/// and exactly where its times say; the stalled input's missing frames are counted as late.
@Suite(.tags(.realTime), .timeLimit(.minutes(2))) struct AudioMixerLiveTests {
    @Test func aStalledInputIsMixedAsSilenceAndCountedWhileTheOtherGoesOn() throws {
        let rate = AudioMixerTests.rate
        let tone = (0..<rate).flatMap { frame -> [Float] in
            let value = Float(0.5 * sin(2 * Double.pi * 440 * Double(frame) / Double(rate)))
            return [value, value]
        }
        let level = [Float](repeating: 0.25, count: 2 * rate / 2)
        // The samples are made before the clock is anchored: making them takes a while in an unoptimised,
        // sanitized test build, and a clock already past their times would see both inputs as late.
        let toneSamples = AudioMixerTests.samples(tone, framesPerSample: 480)
        let levelSamples = AudioMixerTests.samples(level, framesPerSample: 480)
        let clock = MediaClock()
        let toneInput = AudioMixer.Input(
            source: RealTimeSource(ArraySource(toneSamples), clock: clock), gain: 0.5)
        let stalling = AudioMixer.Input(
            source: StallingSource(RealTimeSource(ArraySource(levelSamples), clock: clock), stall: 1.0))
        let mixer = try AudioMixer(
            sampleRate: rate, channels: 2,
            live: AudioMixer.Live(clock: clock, latency: MediaTime(value: 1, timescale: 4)),
            inputs: [toneInput, stalling])
        let mixed = try AudioMixerTests.drain(mixer)
        #expect(mixed.count >= 2 * rate)
        // The tone is everywhere it should be, to the frame; the level only in its first half second.
        var largest: Float = 0
        for frame in 0..<rate {
            let expected = tone[2 * frame] * 0.5 + (frame < rate / 2 ? 0.25 : 0)
            largest = max(largest, abs(mixed[2 * frame] - expected), abs(mixed[2 * frame + 1] - expected))
        }
        #expect(largest <= 1e-6, "largest difference: \(largest)")
        #expect(toneInput.controls.lateFrames == 0, "the tone was late by \(toneInput.controls.lateFrames) frames")
        #expect(toneInput.controls.droppedFrames == 0, "\(toneInput.controls.droppedFrames) tone frames came too late")
        #expect(stalling.controls.lateFrames >= rate / 2, "\(stalling.controls.lateFrames) late frames")
        #expect(mixer.inputCount == 0)
    }
}
