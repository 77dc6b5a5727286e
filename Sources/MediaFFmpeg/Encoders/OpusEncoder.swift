internal import CMediaFFmpeg
import MediaBitstream
public import MediaCore

/// Encodes linear PCM to Opus with libopus: what AudioToolbox's `kAudioFormatOpus` converter does, or
/// GStreamer's `opusenc`.
///
/// ```swift
/// var settings = OpusEncoder.Settings()
/// settings.bitRate = 64_000
/// settings.application = .voip
/// var graph = MediaGraph()
/// let audio = graph.addBranch(source: try WAVReader(path: "in.wav"), stages: [try OpusEncoder(settings: settings)])
/// graph.addSink(try ContainerMuxer(path: "out.webm"), tracks: [audio])
/// try graph.runSynchronously()
/// ```
///
/// - Input: PCM of any layout and rate, 1 to 8 channels. Opus runs at 48 kHz: other rates are resampled
///   to it first (libswresample, as the ffmpeg CLI does for 44.1 kHz); 16-bit interleaved input is
///   given to libopus as it is, anything else as 32-bit float interleaved (the CLI's choice too).
/// - Output: one Opus packet per sample, format `'opus'` (Core Audio's `kAudioFormatOpus`) at 48 kHz,
///   the `OpusHead` as magic cookie (what Ogg, Matroska and MP4's `dOps` carry), ``Settings/frameDuration``
///   of frames per packet, pts/dts/duration on the input's timeline at 48 kHz.
/// - Pre-skip and padding: libopus delays its output by ``primingFrames`` (312 at 48 kHz, the
///   `OpusHead` pre-skip); those frames are the first packet's ``/MediaCore/MediaSample/trimAtStart``,
///   and the last packet's padding its ``/MediaCore/MediaSample/trimAtEnd``, as ``AACEncoder`` marks
///   them: a decoder honouring the trims returns exactly the frames put in (at 48 kHz), and
///   ``ContainerMuxer`` writes them as each container says (Matroska's `CodecDelay` and
///   `DiscardPadding`, an MP4 edit list).
///
/// With the same settings the packets are the ffmpeg CLI's (`ffmpeg -i in.wav -c:a libopus -b:a 64k`).
/// The session (FIFO, conversion, timing, trims, recycled packets) is ``AACEncoder``'s. Backed by
/// FFmpeg's `libopus` encoder.
public final class OpusEncoder: MediaStage {
    /// How libopus encodes.
    public struct Settings: Sendable, Hashable {
        /// What the signal is, as libopus's `OPUS_APPLICATION_*` says.
        public enum Application: String, Sendable, Hashable, CaseIterable {
            /// Speech: favours intelligibility (`voip`).
            case voip
            /// Music and mixed content (`audio`, libopus's default here).
            case audio
            /// The lowest delay, no speech mode (`lowdelay`).
            case lowDelay = "lowdelay"
        }

        /// How the bit rate may vary, as libopus's `vbr` option says.
        public enum BitRateMode: String, Sendable, Hashable, CaseIterable {
            /// Variable (`on`, the default).
            case variable = "on"
            /// Variable within a constant budget (`constrained`).
            case constrained
            /// Constant (`off`): every packet of one frame duration the same size.
            case constant = "off"
        }

        /// The target bit rate in bits per second; `nil` for libopus's choice through FFmpeg (64 kb/s per
        /// mono stream and 96 kb/s per stereo pair).
        public var bitRate: Int?
        /// Variable, constrained or constant bit rate.
        public var bitRateMode = BitRateMode.variable
        /// What the signal is.
        public var application = Application.audio
        /// Milliseconds of audio per packet: 2.5, 5, 10, 20 (the default), 40 or 60.
        public var frameDuration = 20.0
        /// libopus's complexity, 0 (fastest) to 10 (the default, best).
        public var complexity: Int?

        /// The defaults: libopus's bit rate, variable, `audio`, 20 ms, complexity 10.
        public init() {}
    }

    /// How libopus encodes.
    public let settings: Settings
    /// Frames of encoder delay at the start of the stream, at 48 kHz (set once the encoder is open:
    /// the `OpusHead` pre-skip, 312).
    public var primingFrames: Int { state.session?.priming ?? 0 }
    /// The output format (set once the first sample has opened the encoder).
    public var outputFormat: AudioFormat? { state.session?.outputFormat }

    private var state: AudioEncoderStageState

    /// An encoder with `settings`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a bit rate outside 500…512 000 b/s
    ///   per channel, a frame duration Opus does not have, or a complexity outside 0…10.
    public init(settings: Settings = Settings()) throws(MediaError) {
        if let bitRate = settings.bitRate, !(500...4_096_000).contains(bitRate) {
            throw MediaError(.invalidArgument, "Opus bit rate \(bitRate) b/s is outside 500...4096000")
        }
        guard [2.5, 5, 10, 20, 40, 60].contains(settings.frameDuration) else {
            throw MediaError(
                .invalidArgument,
                "Opus frame duration \(settings.frameDuration) ms is not one of 2.5, 5, 10, 20, 40 and 60")
        }
        if let complexity = settings.complexity, !(0...10).contains(complexity) {
            throw MediaError(.invalidArgument, "Opus complexity \(complexity) is outside 0...10")
        }
        self.settings = settings
        state = AudioEncoderStageState(OpusCodec(settings: settings))
        FFmpeg.quietLogging()
    }

    /// Takes PCM frames; emits the Opus packets that are complete.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        try state.process(sample, stage: name, into: emit)
    }

    /// Encodes the last partial frame and drains the encoder.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        try state.finish(into: emit)
    }
}

@available(*, unavailable) extension OpusEncoder: Sendable {}

/// FFmpeg's `libopus` encoder with ``OpusEncoder/Settings``, at 48 kHz.
struct OpusCodec: AudioEncoderCodec {
    let settings: OpusEncoder.Settings
    var encoderName: String { "libopus" }
    var name: String { "Opus" }

    func sampleFormat(for input: AudioFormat) -> PCMFormat {
        input.pcm == PCMFormat(.s16) ? PCMFormat(.s16) : PCMFormat(.f32)
    }

    func sampleRate(for input: AudioFormat) throws(MediaError) -> Int {
        guard (1...8).contains(input.channelCount) else {
            throw MediaError(.unsupportedFormat, "the Opus encoder takes 1 to 8 channels, not \(input.channelCount)")
        }
        return 48_000
    }

    func configure(_ context: UnsafeMutablePointer<AVCodecContext>) throws(MediaError) {
        if let bitRate = settings.bitRate { context.pointee.bit_rate = Int64(bitRate) }
        if let complexity = settings.complexity { context.pointee.compression_level = Int32(complexity) }
        let options = [
            ("vbr", settings.bitRateMode.rawValue), ("application", settings.application.rawValue),
            ("frame_duration", "\(settings.frameDuration)")
        ]
        for (key, value) in options {
            try check(av_opt_set(context.pointee.priv_data, key, value, 0), calling: "av_opt_set", .invalidArgument)
        }
    }

    func outputFormat(_ context: UnsafeMutablePointer<AVCodecContext>, layout: ChannelLayout) throws(MediaError)
        -> AudioFormat
    {
        guard let extradata = context.pointee.extradata, context.pointee.extradata_size >= 19 else {
            throw MediaError(.encoderFailure, "the Opus encoder gave no OpusHead", ffmpegCall: "avcodec_open2")
        }
        return AudioFormat(
            codec: .other(fourCC: FourCC("opus").rawValue), sampleRate: 48_000, channelLayout: layout,
            framesPerPacket: Int(context.pointee.frame_size),
            magicCookie: Array(UnsafeBufferPointer(start: extradata, count: Int(context.pointee.extradata_size))))
    }
}
