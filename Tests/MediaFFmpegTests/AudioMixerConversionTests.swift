import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The mixer with inputs of other formats, converted on the way in by an `AudioConverter` in each
/// input's stages, against sox doing the same: 16-bit WAVs at 44.1 and 48 kHz mixed at 48 kHz (libsoxr,
/// sox's own resampler, on both sides), and a 16-bit mix.
@Suite(.timeLimit(.minutes(2)), .ffmpegLeakGate) struct AudioMixerConversionTests {
    /// `sox` arguments for raw interleaved float32 stereo at 48 kHz.
    static let raw = ["-t", "raw", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32"]

    /// An input reading the WAV file at `path`, converted to float32 stereo at 48 kHz by libsoxr (the
    /// umbrella module's converting input).
    static func input(_ path: String, gain: Double) throws -> AudioMixer.Input {
        try AudioMixer.Input(converting: try WAVReader(path: path), sampleRate: 48_000, channels: 2, gain: gain)
    }

    /// Makes `a.wav` (48 kHz stereo, 2 s) and `b.wav` (44.1 kHz mono, 1.5 s), 16-bit.
    static func makeInputs(in dir: TemporaryDirectory) throws {
        try ExternalTool.check(
            "sox",
            ["-n", "-r", "48000", "-c", "2", "-b", "16", dir.file("a.wav"), "synth", "2", "sine", "440", "vol", "0.4"])
        try ExternalTool.check(
            "sox",
            [
                "-n", "-r", "44100", "-c", "1", "-b", "16", dir.file("b.wav"), "synth", "1.5", "sine", "1250", "sine",
                "6000",
                "vol", "0.4"
            ])
    }

    @Test func inputsAt44100And48000AreMixedAsSoxMixesThemWithTheSameResampler() throws {
        let dir = try TemporaryDirectory()
        try Self.makeInputs(in: dir)
        // sox: b.wav to 48 kHz with its `rate` effect (libsoxr's algorithm, high quality) and to stereo
        // as FFmpeg's standard matrix does it (the centre at −3 dB in each side), then mixed.
        try ExternalTool.check(
            "sox",
            [
                dir.file("b.wav"), "-e", "floating-point", "-b", "32", dir.file("b48.wav"), "rate", "48000", "remix",
                "1v0.7071067811865476", "1v0.7071067811865476"
            ])
        try ExternalTool.check(
            "sox",
            ["-m", "-v", "0.7", dir.file("a.wav"), "-v", "1.2", dir.file("b48.wav")] + Self.raw + [dir.file("sox.raw")])
        let expected = RawAudio.floats(try Data(contentsOf: URL(fileURLWithPath: dir.file("sox.raw"))))

        let mixer = try AudioMixer(
            sampleRate: 48_000, channels: 2,
            inputs: [try Self.input(dir.file("a.wav"), gain: 0.7), try Self.input(dir.file("b.wav"), gain: 1.2)])
        let mixed = try RawAudio.floats(of: mixer)
        #expect(mixed.count == expected.count, "\(mixed.count / 2) frames, sox \(expected.count / 2)")
        let differences = zip(mixed, expected).map { abs($0 - $1) }
        // Two implementations of the same resampler: they agree to 4e-7 once past the first 1000 frames
        // (where sox and libswresample prime the filter differently, within 1e-4), and nowhere by less.
        let body = differences.dropFirst(2000).max() ?? 1
        let start = differences.prefix(2000).max() ?? 1
        #expect(body <= 2e-6, "largest difference from sox past the start: \(body)")
        #expect(start <= 2e-4, "largest difference from sox in the first 1000 frames: \(start)")
        // The judge can fail: libswresample's own resampler (the default) differs from sox by more.
        let swrMixer = try AudioMixer(
            sampleRate: 48_000, channels: 2,
            inputs: [
                try Self.input(dir.file("a.wav"), gain: 0.7),
                AudioMixer.Input(
                    source: try WAVReader(path: dir.file("b.wav")),
                    stages: [
                        try AudioConverter(format: .f32, sampleRate: 48_000, channelLayout: .default(channelCount: 2))
                    ],
                    gain: 1.2)
            ])
        let swr = try RawAudio.floats(of: swrMixer)
        #expect((zip(swr, expected).map { abs($0 - $1) }.dropFirst(2000).max() ?? 0) > 2e-6)
    }

    @Test func aSixteenBitMixIsWithinOneLSBOfSox() throws {
        let dir = try TemporaryDirectory()
        try Self.makeInputs(in: dir)
        try ExternalTool.check("sox", [dir.file("b.wav"), "-r", "48000", "-c", "2", dir.file("b48.wav")])
        // -D: no dither, so that sox's 16 bits are its rounding of the float sum.
        try ExternalTool.check(
            "sox",
            [
                "-m", "-v", "0.5", dir.file("a.wav"), "-v", "0.9", dir.file("b48.wav"), "-D", "-b", "16",
                dir.file("sox.wav")
            ])
        let mixer = try AudioMixer(
            sampleRate: 48_000, channels: 2,
            inputs: [try Self.input(dir.file("a.wav"), gain: 0.5), try Self.input(dir.file("b48.wav"), gain: 0.9)])
        let toS16 = try AudioConverter(format: .s16)
        var ours: [Int16] = []
        func collect(_ sample: MediaSample) {
            sample.withUnsafeBytes { raw in
                for index in 0..<(raw.count / 2) {
                    ours.append(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)))
                }
            }
        }
        while let sample = try mixer.next() { try toS16.process(sample) { collect($0) } }
        try toS16.finish { collect($0) }
        let reference = try WAVReader(path: dir.file("sox.wav"))
        var theirs: [Int16] = []
        while let sample = try reference.next() {
            sample.withUnsafeBytes { raw in
                for index in 0..<(raw.count / 2) {
                    theirs.append(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)))
                }
            }
        }
        #expect(ours.count == theirs.count)
        let largest = zip(ours, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 99
        #expect(largest <= 1, "largest difference from sox: \(largest) LSB")
    }
}
