internal import CMediaFFmpeg
public import MediaCore

/// Converts linear PCM between sample formats, sample rates and channel layouts in one stage, like
/// `AVAudioConverter` for PCM or GStreamer's `audioconvert ! audioresample`.
///
/// ```swift
/// // 44.1 kHz s16 stereo from a WAV file to 48 kHz float mono
/// let converter = try AudioConverter(format: .f32, sampleRate: 48_000, channelLayout: .mono)
/// ```
///
/// Whatever is not given stays as the input has it. Frame accounting is exact: every input frame is
/// accounted for in the output, and ``finish(into:)`` drains the resampler's filter delay, so N frames at
/// rate A come out as N × B / A frames at rate B (rounded to the nearest frame). Output timing starts at
/// the first input sample's presentation time and advances by the frames produced. (libswresample's
/// own tail is a frame longer or shorter depending on its filter phase; the converter trims or pads it
/// with silence to the exact count.) Mono ↔ stereo and
/// 5.1 → stereo use FFmpeg's standard matrices.
///
/// The input format is fixed by the first sample; a sample of another format throws
/// ``/MediaCore/MediaError/Code/formatMismatch``. Backed by libswresample (`swr_convert`).
public final class AudioConverter: MediaStage {
    /// The sample layout to produce, or `nil` to keep the input's.
    public let targetFormat: PCMFormat?
    /// The sample rate to produce, or `nil` to keep the input's.
    public let targetSampleRate: Int?
    /// The channel layout to produce, or `nil` to keep the input's.
    public let targetChannelLayout: ChannelLayout?
    /// The resampler that changes the rate.
    public let resampler: ResamplerEngine

    /// Which resampler changes the rate: libswresample's own, or libsoxr (the SoX resampler).
    public enum ResamplerEngine: String, Sendable, Hashable, CaseIterable {
        /// libswresample's polyphase filter: the `ffmpeg` CLI's default (`-ar 48000`).
        case swr
        /// libsoxr at its default (20-bit) precision: what `sox in.wav -r 48000 out.wav` does, to within
        /// 4e-7 full scale past the first few frames (`ffmpeg -af aresample=resampler=soxr`).
        case soxr
    }

    private var converter: Resampler?
    private var passThroughFormat: AudioFormat?
    private var startTime = MediaTime.invalid
    private var framesOut: Int64 = 0
    /// The emitted samples, reused once the consumer has let go of the last one.
    private var output = SampleRecycler()
    private var framesIn: Int64 = 0

    /// A converter to the given sample layout, rate and channel layout (each `nil` keeps the input's),
    /// resampling with `resampler`.
    public init(
        format: PCMFormat? = nil, sampleRate: Int? = nil, channelLayout: ChannelLayout? = nil,
        resampler: ResamplerEngine = .swr
    ) throws(MediaError) {
        if let sampleRate, !(1...768_000).contains(sampleRate) {
            throw MediaError(.invalidArgument, "sample rate \(sampleRate) Hz is outside 1...768000")
        }
        if let channelLayout, !(1...64).contains(channelLayout.channelCount) {
            throw MediaError(
                .invalidArgument,
                "a channel layout of \(count: channelLayout.channelCount, "channel") is outside 1...64")
        }
        targetFormat = format
        targetSampleRate = sampleRate
        targetChannelLayout = channelLayout
        self.resampler = resampler
        FFmpeg.quietLogging()
    }

    /// The format this converter produces for `input`.
    public func outputFormat(for input: AudioFormat) -> AudioFormat {
        .pcm(
            targetFormat ?? input.pcm ?? .f32,
            sampleRate: targetSampleRate ?? input.sampleRate,
            channelLayout: targetChannelLayout ?? input.channelLayout)
    }

    /// Converts one PCM sample; emits the converted frames available so far.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .audio(let input) = sample.format, input.pcm != nil else {
            throw MediaError.formatMismatch(stage: name, expected: "linear PCM audio", actual: sample.format)
        }
        if converter == nil && passThroughFormat == nil {
            startTime = sample.timing.presentationTime.isNumeric ? sample.timing.presentationTime : .zero
            let output = outputFormat(for: input)
            if output == input {
                passThroughFormat = input
            } else {
                converter = try Resampler(from: input, to: output, engine: resampler)
            }
        }
        let expected = converter?.input ?? passThroughFormat
        guard input == expected else {
            throw MediaError.formatMismatch(
                stage: name, expected: "\(expected.map(String.init(describing:)) ?? "?") (the first sample's format)",
                actual: sample.format)
        }
        try sample.validatePCMLayout()
        framesIn += Int64(sample.frameCount)
        guard let converter else {
            // Nothing to convert: retime only, so that the output timeline is continuous as documented.
            var copy = sample
            copy.timing = timing(frames: sample.frameCount, rate: input.sampleRate)
            framesOut += Int64(sample.frameCount)
            try emit(copy)
            return
        }
        let format = converter.output
        let converted = try converter.convertInPlace(
            planes: converter.ffmpegPlanes(of: sample), frameCount: sample.frameCount
        ) { (_, frames) throws(MediaError) -> MediaSample? in
            guard frames > 0 else { return nil }
            // Into the recycled sample: no allocation once the consumer has let go of the previous one.
            return output.make(
                format: .audio(format), timing: timing(frames: frames, rate: format.sampleRate), frameCount: frames,
                planeCount: format.planeCount
            ) { plane, bytes in converter.appendOutput(plane: plane, frames: frames, to: &bytes) }
        }
        guard let converted else { return }
        framesOut += Int64(converted.frameCount)
        try emit(converted)
    }

    /// Drains the resampler's delay, so that the output holds exactly N × B / A frames (rounded to
    /// nearest) for N input frames at rate A and output rate B.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        guard let converter else { return }
        var tail = try converter.drain()
        // libswresample's drained length depends on its filter phase (a frame more or less, or nothing
        // at all for a tiny input). Trim or pad the tail with silence to the exact count.
        let expected = Self.expectedOutputFrames(
            input: framesIn, from: converter.input.sampleRate, to: converter.output.sampleRate)
        let missing = expected - (framesOut + Int64(tail.frames))
        let format = converter.output
        if missing < 0 {
            let cut = Int(min(-missing, Int64(tail.frames)))
            let keep = tail.frames - cut
            tail.planes = tail.planes.map { Array($0.prefix(keep * format.bytesPerFrame)) }
            tail.frames = keep
        } else if missing > 0 {
            let silence: UInt8 = format.pcm?.sampleType == .u8 ? 0x80 : 0
            let pad = [UInt8](repeating: silence, count: Int(missing) * format.bytesPerFrame)
            tail.planes = tail.planes.map { $0 + pad }
            tail.frames += Int(missing)
        }
        try emitConverted(tail, format: format, into: emit)
    }

    /// The frames `input` frames at rate `from` give at rate `to`: `input × to / from`, rounded to nearest.
    public static func expectedOutputFrames(input: Int64, from: Int, to: Int) -> Int64 {
        guard from > 0 else { return 0 }
        let scaled = MediaTime(value: input, timescale: Int32(clamping: from)).converted(to: Int32(clamping: to))
        return scaled.isNumeric ? scaled.value : 0
    }

    private func emitConverted(
        _ converted: (planes: [[UInt8]], frames: Int), format: AudioFormat, into emit: (MediaSample) throws -> Void
    ) throws {
        guard converted.frames > 0 else { return }
        let out = MediaSample(
            format: .audio(format), planes: converted.planes,
            timing: timing(frames: converted.frames, rate: format.sampleRate), frameCount: converted.frames)
        framesOut += Int64(converted.frames)
        try emit(out)
    }

    private func timing(frames: Int, rate: Int) -> SampleTiming {
        let scale = Int32(clamping: rate)
        let start = startTime.converted(to: scale) + MediaTime(value: framesOut, timescale: scale)
        return SampleTiming(
            presentationTime: start, decodeTime: start, duration: MediaTime(value: Int64(frames), timescale: scale))
    }
}

@available(*, unavailable) extension AudioConverter: Sendable {}
