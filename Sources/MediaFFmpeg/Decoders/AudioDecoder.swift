internal import CMediaFFmpeg
public import MediaCore

/// Decodes the compressed audio an iOS app meets in files to linear PCM, honouring each packet's
/// trims: `AVAudioConverter` from a compressed format to PCM, or GStreamer's `decodebin` for audio.
///
/// ```swift
/// let demuxer = try ContainerDemuxer(path: "song.mp3")
/// let packets = try demuxer.source(stream: demuxer.firstAudioStream!)
/// let decoder = AudioDecoder(outputFormat: .s16)   // interleaved 16-bit
/// while let packet = try packets.next() { try decoder.process(packet) { pcm in ... } }
/// try decoder.finish { pcm in ... }
/// ```
///
/// - Input (``/MediaCore/MediaFormat/audio(_:)``, the codec fixed by the first sample; a later sample
///   of another format throws ``/MediaCore/MediaError/Code/formatMismatch``):
///   - `.aac`, raw access units with the AudioSpecificConfig as magic cookie (as ``AACDecoder``);
///   - `.other(fourCC:)` by Core Audio format id: `.mp3`, `.mp2` (and `.mp1`), one MPEG audio frame
///     per sample; `alac`, one ALAC packet per sample, the magic cookie the 24-byte
///     `ALACSpecificConfig` bare or inside its `alac` atom (and a `frma` atom), as CAF and MP4 hold it;
///     `ima4`, a whole number of 34-bytes-per-channel packets per sample; `0x6D730011`, IMA ADPCM
///     from WAV, whole blocks per sample with `framesPerPacket` the frames of one block (1 + 8n);
///     `ulaw` and `alaw`, 8-bit values interleaved; `opus`, `flac`, `ac-3`, `ec-3`, `samr`, `sawb`
///     and the other audio codes of the library's codec table (or their aliases, `Opus`, `fLaC`), one
///     packet per sample with the configuration FFmpeg's demuxer gives (OpusHead, STREAMINFO) as
///     magic cookie, as ``ContainerDemuxer`` hands them on. The priming is the samples' trims: a
///     decoder's own skipping (Opus's pre-skip) is turned off (`AV_CODEC_FLAG2_SKIP_MANUAL`, for Opus
///     only: it costs an allocation per frame). Vorbis decodes, but the end of an Ogg Vorbis stream
///     is not trimmed as ffmpeg trims it (one block more);
///   - linear PCM, handed on unchanged when already in ``outputFormat``, else converted to it.
///
///   Any other codec throws ``/MediaCore/MediaError/Code/formatMismatch`` naming the codecs taken and
///   the one given. A format the codec cannot have (AAC or ALAC without a usable cookie, an IMA block
///   size that is not 1 + 8n frames) throws ``/MediaCore/MediaError/Code/invalidData``.
/// - Output: PCM in ``outputFormat`` (32-bit float planar, as ``AACDecoder``, unless asked
///   otherwise) at the stream's rate and channel layout, the frames FFmpeg decodes: one output
///   sample per input sample. The frames a sample marks as ``/MediaCore/MediaSample/trimAtStart`` and
///   ``/MediaCore/MediaSample/trimAtEnd`` are dropped, so the output holds Σ
///   ``/MediaCore/MediaSample/validFrameCount`` frames (an ALAC packet that decodes to fewer frames
///   than its ``/MediaCore/MediaSample/frameCount`` has the difference counted against its end trim).
///   Each output sample starts at its input's presentation time plus the frames trimmed at its start.
/// - Errors: a packet the decoder rejects, or a fixed-size-packet sample (IMA4, A-law, µ-law) that is
///   not a whole number of packets, throws ``/MediaCore/MediaError/Code/decoderFailure``; the driver
///   (or a ``/MediaCore/CheckedStage``) stamps it with the sample's index.
///
/// Backed by FFmpeg's native decoders (`aac`, `mp3float`, `mp2float`, `alac`, `adpcm_ima_qt`,
/// `adpcm_ima_wav`, `pcm_mulaw`, `pcm_alaw`), through `avcodec_send_packet` / `avcodec_receive_frame`.
public final class AudioDecoder: MediaStage {
    /// The PCM layout produced.
    public let outputFormat: PCMFormat

    private enum State {
        case decoding(AudioDecoderSession)
        case passing(PCMPassThrough)

        var input: AudioFormat {
            switch self {
            case .decoding(let session): return session.input
            case .passing(let passThrough): return passThrough.input
            }
        }
    }

    private var state: State?

    /// A decoder producing `outputFormat` (32-bit float planar by default).
    public init(outputFormat: PCMFormat = .f32Planar) {
        self.outputFormat = outputFormat
        FFmpeg.quietLogging()
    }

    /// Whether samples of `format` are ones this stage decodes (or passes on, for linear PCM). A
    /// format of a supported codec may still be refused for its parameters (see the type's contract).
    public static func canDecode(_ format: MediaFormat) -> Bool {
        guard case .audio(let audio) = format else { return false }
        if audio.pcm != nil { return true }
        return (try? AudioDecoderSetup(for: audio)) != nil
    }

    /// Decodes one sample; emits its trimmed PCM.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .audio(let input) = sample.format else {
            throw MediaError.formatMismatch(stage: name, expected: Self.expected, actual: sample.format)
        }
        if state == nil { state = try makeState(for: input, format: sample.format) }
        guard let state else { return }
        guard input == state.input else {
            throw MediaError.formatMismatch(
                stage: name, expected: "\(state.input) (the first packet's format)", actual: sample.format)
        }
        switch state {
        case .decoding(let session): try session.decode(sample, into: emit)
        case .passing(let passThrough): try passThrough.process(sample, into: emit)
        }
    }

    /// Drains the decoder.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        if case .decoding(let session) = state { try session.drain(into: emit) }
    }

    private static let expected = "\(AudioDecoderSetup.supported) or linear PCM audio"

    private func makeState(for input: AudioFormat, format: MediaFormat) throws -> State {
        if input.pcm != nil { return .passing(try PCMPassThrough(input: input, output: outputFormat)) }
        guard let setup = try AudioDecoderSetup(for: input) else {
            throw MediaError.formatMismatch(stage: name, expected: Self.expected, actual: format)
        }
        return .decoding(try AudioDecoderSession(input: input, setup: setup, output: outputFormat))
    }
}

@available(*, unavailable) extension AudioDecoder: Sendable {}
