internal import CMediaFFmpeg
public import MediaCore

/// Decodes AAC packets to linear PCM, honouring each packet's trims: AudioToolbox's AAC decoder, or
/// GStreamer's `avdec_aac`.
///
/// - Input: raw AAC access units (one per sample, no ADTS header) whose format carries the
///   AudioSpecificConfig as magic cookie, as ``AACEncoder``, the ADTS reader and the CAF reader give them.
/// - Output: PCM in ``outputFormat`` (32-bit float planar, FFmpeg's native output, unless asked
///   otherwise), at the stream's rate and channel layout. The frames a packet marks as
///   ``/MediaCore/MediaSample/trimAtStart`` and ``/MediaCore/MediaSample/trimAtEnd`` are dropped, so encode → decode returns
///   exactly the frames that went in. Each output sample starts at its packet's presentation time plus
///   the frames trimmed at its start. In FFmpeg's native layout a sample borrows the decoded frame
///   (``/MediaCore/MediaSample/borrowsMemory``): no copy, and no allocation of ours in steady state.
///
/// A packet the decoder rejects throws ``/MediaCore/MediaError/Code/decoderFailure``; the driver (or a
/// ``/MediaCore/CheckedStage``) stamps it with the packet's index.
/// Backed by FFmpeg's native `aac` decoder (`avcodec_send_packet` / `avcodec_receive_frame`), through
/// the session ``AudioDecoder`` uses for every codec; ``AudioDecoder`` takes AAC too.
public final class AACDecoder: MediaStage {
    /// The PCM layout produced.
    public let outputFormat: PCMFormat

    private var session: AudioDecoderSession?

    /// A decoder producing `outputFormat` (32-bit float planar by default).
    public init(outputFormat: PCMFormat = .f32Planar) {
        self.outputFormat = outputFormat
        FFmpeg.quietLogging()
    }

    /// Decodes one packet; emits its trimmed PCM.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .audio(let input) = sample.format, input.codec == .aac else {
            throw MediaError.formatMismatch(stage: name, expected: "AAC audio", actual: sample.format)
        }
        if session == nil { session = try AudioDecoderSession(input: input, setup: .aac(input), output: outputFormat) }
        guard let session else { return }
        guard input == session.input else {
            throw MediaError.formatMismatch(
                stage: name, expected: "\(session.input) (the first packet's format)", actual: sample.format)
        }
        try session.decode(sample, into: emit)
    }

    /// Drains the decoder.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        try session?.drain(into: emit)
    }
}

@available(*, unavailable) extension AACDecoder: Sendable {}
