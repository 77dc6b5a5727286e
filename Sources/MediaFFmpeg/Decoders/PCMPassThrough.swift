import MediaCore

/// What ``AudioDecoder`` does with linear PCM: nothing when it is already in the requested layout,
/// otherwise a conversion of the sample layout only (same rate, same channels, so no resampler delay).
///
/// - Accepts: PCM samples of `input` whose planes hold what their frame count says (else
///   ``/MediaCore/MediaError/Code/invalidData`` from ``/MediaCore/MediaSample/validatePCMLayout()``).
/// - Emits: each sample unchanged when it has no trims and is in the output layout; otherwise its
///   ``/MediaCore/MediaSample/validFrameCount`` frames (trims dropped as for compressed audio, the
///   presentation time moved past the frames trimmed at the start) in the output layout.
final class PCMPassThrough {
    /// The stream's format, as the first sample gave it.
    let input: AudioFormat
    private let output: AudioFormat
    private let converter: Resampler?

    /// A pass-through for PCM of `input`, producing `pcm`.
    init(input: AudioFormat, output pcm: PCMFormat) throws(MediaError) {
        self.input = input
        guard let inputPCM = input.pcm, inputPCM != pcm else {
            output = input
            converter = nil
            return
        }
        output = .pcm(pcm, sampleRate: input.sampleRate, channelLayout: input.channelLayout)
        converter = try Resampler(
            from: .pcm(inputPCM, sampleRate: input.sampleRate, channelLayout: input.channelLayout), to: output)
    }

    /// Emits `sample` trimmed and in the output layout.
    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        try sample.validatePCMLayout()
        var sample = sample
        if sample.trimAtStart != 0 || sample.trimAtEnd != 0 {
            sample = trimmed(sample)
        }
        guard let converter else { return try emit(sample) }
        guard sample.frameCount > 0 else { return }
        let converted = try converter.convert(planes: converter.ffmpegPlanes(of: sample), frameCount: sample.frameCount)
        try emit(
            MediaSample(
                format: .audio(output), planes: converted.planes, timing: sample.timing, frameCount: converted.frames,
                flags: sample.flags))
    }

    /// `sample` without its trimmed frames, timed from its first kept frame.
    private func trimmed(_ sample: MediaSample) -> MediaSample {
        let start = min(max(0, sample.trimAtStart), sample.frameCount)
        let count = max(0, sample.frameCount - start - max(0, sample.trimAtEnd))
        let bytesPerFrame = input.bytesPerFrame
        let planes = sample.planes.map { Array($0[(start * bytesPerFrame)..<((start + count) * bytesPerFrame)]) }
        var timing = sample.timing
        let rate = Int32(clamping: input.sampleRate)
        if timing.presentationTime.isNumeric {
            timing.presentationTime =
                timing.presentationTime.converted(to: rate) + MediaTime(value: Int64(start), timescale: rate)
            timing.decodeTime = timing.presentationTime
        }
        timing.duration = MediaTime(value: Int64(count), timescale: rate)
        return MediaSample(
            format: sample.format, planes: planes, timing: timing, frameCount: count, flags: sample.flags)
    }
}

@available(*, unavailable) extension PCMPassThrough: Sendable {}
