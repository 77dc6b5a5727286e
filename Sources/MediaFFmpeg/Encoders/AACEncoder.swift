internal import CMediaFFmpeg
public import MediaCore

/// Encodes linear PCM to AAC-LC at a chosen bit rate: `AVAudioConverter` / AudioToolbox's AAC
/// encoder, or GStreamer's `avenc_aac`.
///
/// ```swift
/// let encoder = try AACEncoder(bitRate: 128_000)
/// var pipeline = Pipeline(source: try WAVReader(path: "in.wav"), stages: [encoder],
///                         sink: ADTSMuxer(output: try FileOutput(path: "out.aac")))
/// try pipeline.run()
/// ```
///
/// - Input: PCM of any sample layout, rate and channel count the encoder supports (1–8 channels except 7,
///   the 13 MPEG-4 sampling rates from 7350 to 96000 Hz), in samples of any number of frames. Input that is
///   not 32-bit float planar is converted first; it is re-chunked into the 1024-frame frames AAC needs.
/// - Output: one raw AAC access unit per sample (no ADTS header), format ``/MediaCore/AudioCodec/aac`` with the
///   AudioSpecificConfig as magic cookie, 1024 frames per packet, pts/dts/duration in the input's timeline.
/// - Priming and padding: the encoder delays its output by ``primingFrames`` (1024); those frames are
///   marked ``/MediaCore/MediaSample/trimAtStart`` on the first packet(s), and the padding of the last packet
///   ``/MediaCore/MediaSample/trimAtEnd``, so that priming + input frames + remainder = packets × 1024 exactly and a
///   decoder honouring the trims returns exactly the input.
///
/// The packets are identical to the `ffmpeg` CLI's for the same input and bit rate
/// (`ffmpeg -i in.wav -c:a aac -b:a 128k`). Backed by FFmpeg's native `aac` encoder
/// (`avcodec_send_frame` / `avcodec_receive_packet`).
public final class AACEncoder: MediaStage {
    /// The average bit rate in bits per second.
    public let bitRate: Int
    /// Frames of encoder delay at the start of the stream (set once the encoder is open; 1024 for FFmpeg's encoder).
    public var primingFrames: Int { state.session?.priming ?? 0 }
    /// The output format (set once the first sample has opened the encoder).
    public var outputFormat: AudioFormat? { state.session?.outputFormat }

    private var state: AudioEncoderStageState

    /// Frames per AAC packet.
    public static let framesPerPacket = 1024

    /// An encoder at `bitRate` bits per second (8 000–576 000 per channel pair is sensible; FFmpeg clamps).
    public init(bitRate: Int = 128_000) throws(MediaError) {
        guard (1_000...2_000_000).contains(bitRate) else {
            throw MediaError(.invalidArgument, "AAC bit rate \(bitRate) b/s is outside 1000...2000000")
        }
        self.bitRate = bitRate
        state = AudioEncoderStageState(AACCodec(bitRate: bitRate))
        FFmpeg.quietLogging()
    }

    /// Takes PCM frames; emits the AAC packets that are complete.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        try state.process(sample, stage: name, into: emit)
    }

    /// Encodes the last partial frame and drains the encoder.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        try state.finish(into: emit)
    }
}

@available(*, unavailable) extension AACEncoder: Sendable {}

extension AACEncoder {
    /// The timing and trims of packet `packet` of a stream of `inputFrames` input frames delayed by
    /// `priming`: packet k decodes to frames [k·1024, (k+1)·1024) of the decoded stream, whose first
    /// `priming` frames are delay and whose frames after `priming + inputFrames` are padding. Shared by
    /// the encoder's own packets and ``ParallelAACEncoder``'s, which must carry the same.
    static func packetTiming(
        packet: Int64, priming: Int, inputFrames: Int64, start: MediaTime, timescale: Int32
    ) -> (timing: SampleTiming, trimAtStart: Int, trimAtEnd: Int) {
        AudioEncoderSession.packetTiming(
            packet: packet, frameSize: framesPerPacket, priming: priming, inputFrames: inputFrames, start: start,
            timescale: timescale)
    }
}

/// FFmpeg's native `aac` encoder at a bit rate, on 32-bit float planar PCM at the input's rate (one of
/// the 13 MPEG-4 rates), 1 to 6 or 8 channels; its format carries the AudioSpecificConfig.
struct AACCodec: AudioEncoderCodec {
    let bitRate: Int
    var encoderName: String { "aac" }
    var name: String { "AAC" }

    func sampleFormat(for input: AudioFormat) -> PCMFormat { .f32Planar }

    func sampleRate(for input: AudioFormat) throws(MediaError) -> Int {
        guard (1...8).contains(input.channelCount), input.channelCount != 7 else {
            throw MediaError(
                .unsupportedFormat, "the AAC encoder takes 1 to 6 or 8 channels, not \(input.channelCount)")
        }
        let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        guard rates.contains(input.sampleRate) else {
            throw MediaError(
                .unsupportedFormat,
                "the AAC encoder does not support \(input.sampleRate) Hz; it takes \(rates.map(String.init).joined(separator: ", ")) Hz"
            )
        }
        return input.sampleRate
    }

    func configure(_ context: UnsafeMutablePointer<AVCodecContext>) throws(MediaError) {
        context.pointee.bit_rate = Int64(bitRate)
    }

    func outputFormat(_ context: UnsafeMutablePointer<AVCodecContext>, layout: ChannelLayout) throws(MediaError)
        -> AudioFormat
    {
        guard let extradata = context.pointee.extradata, context.pointee.extradata_size > 0 else {
            throw MediaError(
                .encoderFailure, "the AAC encoder gave no AudioSpecificConfig", ffmpegCall: "avcodec_open2")
        }
        let cookie = Array(UnsafeBufferPointer(start: extradata, count: Int(context.pointee.extradata_size)))
        return .aac(sampleRate: Int(context.pointee.sample_rate), channelLayout: layout, audioSpecificConfig: cookie)
    }
}
