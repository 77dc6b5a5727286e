public import MediaCore

/// A source of test signals: a sine tone, silence or white noise as interleaved PCM, like a lab signal
/// generator or FFmpeg's `sine` and `anoisesrc` filters.
///
/// ```swift
/// var tone = try ToneGenerator(.sine(frequency: 1000, amplitude: 0.5), sampleRate: 44_100, channels: 1,
///                              sampleType: .s16, length: .duration(MediaTime(value: 3, timescale: 1)))
/// while let sample = try tone.next() { try muxer.write(sample) }     // 132300 frames, 1024 at a time
/// ```
///
/// Every value depends only on the waveform, the format and its frame index, never on
/// `framesPerSample`: the same generator split differently gives the same bytes.
/// - A sine starts at phase 0: frame `n` is `amplitude * sin(2π f n / rate)` on every channel. The phase
///   is computed from the frame index (exact integer arithmetic for the whole hertz), so a tone of hours
///   does not drift or click.
/// - Noise is uniform in `[-amplitude, amplitude)`, from a SplitMix64 generator seeded with `seed`, one
///   draw per channel per frame, so channels differ and a seed always gives the same noise.
/// - `.s16` values are `value × 32767` rounded to nearest (ties away from zero) and clamped, so full
///   scale (±1) is ±32767 and never wraps; `.f32` values are the `Double` value rounded to `Float`.
///
/// Each sample is `framesPerSample` frames (the last one of a finite length shorter), with its own
/// buffer, and timing `.audio(startFrame:frameCount:sampleRate:)` (pts = first frame at timescale rate).
public struct ToneGenerator: MediaSource, Sendable {
    /// What signal to generate.
    public enum Waveform: Sendable, Hashable {
        /// A sine of `frequency` Hz (0 ≤ frequency < rate / 2) peaking at `amplitude` (0...1 of full scale).
        case sine(frequency: Double, amplitude: Double)
        /// Digital silence: every value 0.
        case silence
        /// Uniform white noise in `[-amplitude, amplitude)` (amplitude 0...1), fixed by `seed`.
        case noise(amplitude: Double, seed: UInt64)
    }

    /// How long the signal lasts; a ``GeneratorLength/duration(_:)-enum.case`` becomes frames at the sample
    /// rate, rounded to nearest (ties away from zero).
    public typealias Length = GeneratorLength

    /// The signal.
    public let waveform: Waveform
    /// The format of every sample: interleaved PCM of the sample type, rate and channel count given, in
    /// the default layout for the channel count.
    public let format: AudioFormat
    /// The most frames in one sample.
    public let framesPerSample: Int
    /// The number of frames the generator produces, or `nil` when the length is ``GeneratorLength/unlimited``.
    public let totalFrames: Int64?
    /// Frames produced so far: the first frame of the next sample.
    public private(set) var framesGenerated: Int64 = 0

    private let sampleType: PCMSampleType
    private let channels: Int
    private let oscillator: SineOscillator?
    private var random: SplitMix64

    /// A generator of `waveform` in the given format and length.
    ///
    /// - Parameters:
    ///   - waveform: the signal; a 440 Hz sine at half scale by default.
    ///   - sampleRate: frames per second, 1 to `Int32.max`.
    ///   - channels: 1 to 8, in the default layout for the count.
    ///   - sampleType: `.s16` or `.f32`.
    ///   - length: how many frames in all.
    ///   - framesPerSample: the most frames in one sample, at least 1.
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` naming the value for a rate, channel count, frames per
    ///   sample, frequency, amplitude or length out of range; ``/MediaCore/MediaError/Code/unsupportedFormat`` for a
    ///   sample type other than `.s16` and `.f32`.
    public init(
        _ waveform: Waveform = .sine(frequency: 440, amplitude: 0.5),
        sampleRate: Int = 48_000,
        channels: Int = 2,
        sampleType: PCMSampleType = .f32,
        length: Length,
        framesPerSample: Int = 1024
    ) throws(MediaError) {
        guard sampleRate >= 1, sampleRate <= Int(Int32.max) else {
            throw Self.invalid("sample rate must be 1 to \(Int32.max) Hz, not \(sampleRate)")
        }
        guard (1...8).contains(channels) else {
            throw Self.invalid("channel count must be 1 to 8, not \(channels)")
        }
        guard framesPerSample >= 1 else {
            throw Self.invalid("frames per sample must be at least 1, not \(framesPerSample)")
        }
        guard sampleType == .s16 || sampleType == .f32 else {
            throw MediaError(.unsupportedFormat, "ToneGenerator produces s16 or f32 samples, not \(sampleType)")
        }
        let frameBytes = channels * sampleType.bytesPerSample
        guard !framesPerSample.multipliedReportingOverflow(by: frameBytes).overflow else {
            throw Self.invalid("frames per sample of \(framesPerSample) overflows with \(frameBytes)-byte frames")
        }

        switch waveform {
        case .sine(let frequency, let amplitude):
            let nyquist = Double(sampleRate) / 2
            guard frequency >= 0, frequency < nyquist else {
                throw Self.invalid(
                    "frequency of \(frequency) Hz is outside 0..<\(nyquist) Hz, below the Nyquist frequency at \(sampleRate) Hz"
                )
            }
            try Self.check(amplitude: amplitude)
            oscillator = SineOscillator(frequency: frequency, amplitude: amplitude, sampleRate: sampleRate)
            random = SplitMix64(seed: 0)
        case .silence:
            oscillator = nil
            random = SplitMix64(seed: 0)
        case .noise(let amplitude, let seed):
            try Self.check(amplitude: amplitude)
            oscillator = nil
            random = SplitMix64(seed: seed)
        }

        switch length {
        case .frames(let frames):
            guard frames >= 0 else { throw Self.invalid("length of \(count: frames, "frame") is negative") }
            totalFrames = frames
        case .duration(let duration):
            let frames = duration.converted(to: Int32(sampleRate), rounding: .toNearestOrAwayFromZero)
            guard frames.isNumeric else {
                throw Self.invalid("duration \(duration) is not a finite time in frames at \(sampleRate) Hz")
            }
            guard frames.value >= 0 else { throw Self.invalid("duration \(duration) is negative") }
            totalFrames = frames.value
        case .unlimited:
            totalFrames = nil
        }

        self.waveform = waveform
        self.sampleType = sampleType
        self.channels = channels
        self.framesPerSample = framesPerSample
        format = .pcm(PCMFormat(sampleType), sampleRate: sampleRate, channels: channels)
    }

    /// The next up to ``framesPerSample`` frames, or `nil` once ``totalFrames`` have been produced.
    public mutating func next() throws(MediaError) -> MediaSample? {
        var frames = framesPerSample
        if let totalFrames { frames = Int(min(Int64(frames), totalFrames - framesGenerated)) }
        guard frames > 0 else { return nil }
        let start = framesGenerated
        let data = render(frames: frames, from: start)
        framesGenerated += Int64(frames)
        return MediaSample(
            format: .audio(format), data: data,
            timing: .audio(startFrame: start, frameCount: frames, sampleRate: format.sampleRate),
            frameCount: frames)
    }

    /// The bytes of `frames` frames starting at frame `start`.
    private mutating func render(frames: Int, from start: Int64) -> [UInt8] {
        let channels = channels
        let byteCount = frames * channels * sampleType.bytesPerSample
        switch waveform {
        case .silence:
            return [UInt8](repeating: 0, count: byteCount)
        case .sine:
            guard let oscillator else { return [UInt8](repeating: 0, count: byteCount) }
            let isFloat = sampleType == .f32
            return [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
                let raw = UnsafeMutableRawBufferPointer(buffer)
                if isFloat {
                    oscillator.render(from: start, count: frames) { i, value in
                        let bits = Float(value).bitPattern.littleEndian
                        for c in 0..<channels {
                            raw.storeBytes(of: bits, toByteOffset: (i * channels + c) * 4, as: UInt32.self)
                        }
                    }
                } else {
                    oscillator.render(from: start, count: frames) { i, value in
                        let bits = Self.int16(value).littleEndian
                        for c in 0..<channels {
                            raw.storeBytes(of: bits, toByteOffset: (i * channels + c) * 2, as: Int16.self)
                        }
                    }
                }
                initialized = byteCount
            }
        case .noise(let amplitude, _):
            let values = frames * channels
            let isFloat = sampleType == .f32
            var random = random
            let data = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
                let raw = UnsafeMutableRawBufferPointer(buffer)
                if isFloat {
                    for i in 0..<values {
                        let bits = Float(amplitude * random.nextSigned()).bitPattern.littleEndian
                        raw.storeBytes(of: bits, toByteOffset: i * 4, as: UInt32.self)
                    }
                } else {
                    for i in 0..<values {
                        raw.storeBytes(
                            of: Self.int16(amplitude * random.nextSigned()).littleEndian, toByteOffset: i * 2,
                            as: Int16.self)
                    }
                }
                initialized = byteCount
            }
            self.random = random
            return data
        }
    }

    /// `value × 32767` rounded to nearest (ties away from zero), clamped to the `Int16` range.
    @inline(__always)
    private static func int16(_ value: Double) -> Int16 {
        let scaled = (value * 32767).rounded()
        return Int16(max(-32768, min(32767, scaled)))
    }

    private static func check(amplitude: Double) throws(MediaError) {
        guard amplitude >= 0, amplitude <= 1 else {
            throw invalid("amplitude of \(amplitude) is outside 0...1")
        }
    }

    private static func invalid(_ message: String) -> MediaError {
        MediaError(.invalidArgument, "ToneGenerator " + message)
    }
}
