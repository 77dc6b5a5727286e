internal import CMediaFFmpeg
import MediaCore

/// What makes an ``AudioEncoderSession`` one codec's encoder: which FFmpeg encoder, the PCM it takes,
/// the rate it encodes at, its options and the format of its packets. ``AACEncoder`` and
/// ``OpusEncoder`` are each one of these over the same session.
protocol AudioEncoderCodec {
    /// FFmpeg's encoder: `aac`, `libopus`.
    var encoderName: String { get }
    /// The codec as messages name it: `AAC`, `Opus`.
    var name: String { get }
    /// The PCM layout the encoder is given for `input` (the rate is ``sampleRate(for:)``'s).
    func sampleFormat(for input: AudioFormat) -> PCMFormat
    /// The rate the encoder runs at for `input`; throws ``/MediaCore/MediaError/Code/unsupportedFormat``
    /// for input it refuses (a rate or channel count the codec cannot take).
    func sampleRate(for input: AudioFormat) throws(MediaError) -> Int
    /// Sets the context's bit rate and private options before it is opened.
    func configure(_ context: UnsafeMutablePointer<AVCodecContext>) throws(MediaError)
    /// The format of the packets, from the opened context (its extradata, its frame size).
    func outputFormat(_ context: UnsafeMutablePointer<AVCodecContext>, layout: ChannelLayout) throws(MediaError)
        -> AudioFormat
}

/// One open audio encoder and what feeds it, shared by the audio encoders: the input converted (sample
/// layout, and rate where the codec needs another) into a FIFO, cut into the encoder's frame size,
/// sent with `avcodec_send_frame`, and its packets emitted as samples timed on the input's timeline
/// with the encoder's delay as trims (``packetTiming(packet:frameSize:priming:inputFrames:start:timescale:)``),
/// so that a decoder honouring the trims returns exactly the frames put in. Packets are recycled
/// samples: no allocation per packet once the consumer lets go of the last one.
final class AudioEncoderSession {
    /// The first sample's format: every sample must have it.
    let input: AudioFormat
    /// The packets' format.
    let outputFormat: AudioFormat
    /// Frames of encoder delay (`initial_padding`) at the encoder's rate.
    let priming: Int
    /// Frames per packet (the encoder's `frame_size`).
    let frameSize: Int
    private let name: String
    private let fifo: AudioFifo
    private let codec: CodecContext
    private let frame: Frame
    private let packet: Packet
    private var packets = SampleRecycler()
    private let converter: Resampler?
    private let start: MediaTime
    private let timescale: Int32
    /// Frames put into the FIFO (at the encoder's rate), sent to the encoder, and packets emitted.
    private var framesIn: Int64 = 0
    private var framesSent: Int64 = 0
    private var packetsOut: Int64 = 0

    /// Opens `codec`'s encoder for `input`, whose first sample starts at `start`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` when this FFmpeg build lacks the encoder;
    ///   what the codec's checks throw; ``/MediaCore/MediaError/Code/unsupportedFormat`` when
    ///   `avcodec_open2` refuses the settings.
    init(_ codec: some AudioEncoderCodec, input: AudioFormat, start: MediaTime) throws(MediaError) {
        guard let encoder = avcodec_find_encoder_by_name(codec.encoderName) else {
            throw MediaError(
                .unavailable, "this FFmpeg build has no \(codec.encoderName) encoder (\(codec.name))",
                ffmpegCall: "avcodec_find_encoder_by_name")
        }
        let rate = try codec.sampleRate(for: input)
        let layout = codec.sampleFormat(for: input)
        self.input = input
        name = codec.name
        timescale = Int32(rate)
        self.start =
            start.isNumeric ? start.converted(to: Int32(rate)) : MediaTime(value: 0, timescale: Int32(rate))
        self.codec = try CodecContext(codec: encoder)
        frame = try Frame()
        packet = try Packet()
        let ctx = self.codec.raw
        ctx.pointee.sample_fmt = layout.avSampleFormat
        ctx.pointee.sample_rate = Int32(rate)
        ctx.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        var channels = input.channelLayout.avChannelLayout
        defer { av_channel_layout_uninit(&channels) }
        try check(av_channel_layout_copy(&ctx.pointee.ch_layout, &channels), calling: "av_channel_layout_copy")
        try codec.configure(ctx)
        try check(avcodec_open2(ctx, encoder, nil), calling: "avcodec_open2", .unsupportedFormat)

        priming = Int(ctx.pointee.initial_padding)
        frameSize = Int(ctx.pointee.frame_size)
        guard frameSize > 0 else {
            throw MediaError(
                .encoderFailure, "the \(codec.name) encoder gave no frame size", ffmpegCall: "avcodec_open2")
        }
        outputFormat = try codec.outputFormat(ctx, layout: input.channelLayout)

        let converted = AudioFormat.pcm(layout, sampleRate: rate, channelLayout: input.channelLayout)
        converter = input == converted ? nil : try Resampler(from: input, to: converted)
        fifo = try AudioFifo(sampleFormat: layout.avSampleFormat, channels: input.channelCount, capacity: 4 * frameSize)

        frame.raw.pointee.format = layout.avSampleFormat.rawValue
        frame.raw.pointee.sample_rate = Int32(rate)
        frame.raw.pointee.nb_samples = Int32(frameSize)
        try check(
            av_channel_layout_copy(&frame.raw.pointee.ch_layout, &ctx.pointee.ch_layout),
            calling: "av_channel_layout_copy")
        // One buffer for every channel's plane: a reference per packet sent, not one per channel.
        try check(mp_frame_get_audio_buffer_shared(frame.raw), calling: "av_frame_get_buffer", .outOfMemory)
    }

    /// Converts (if needed) and queues one input sample's frames, then encodes every whole frame.
    func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        try sample.validatePCMLayout()
        if let converter {
            try converter.convertInPlace(planes: converter.ffmpegPlanes(of: sample), frameCount: sample.frameCount) {
                (planes, frames) throws(MediaError) in
                try write(UnsafeMutableRawPointer(planes), frames: frames)
            }
        } else {
            let written = withPlanePointers(of: sample) { pointers in
                av_audio_fifo_write(
                    fifo.raw, UnsafeMutableRawPointer(pointers).assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
                    Int32(sample.frameCount))
            }
            try check(written, calling: "av_audio_fifo_write", .outOfMemory)
            framesIn += Int64(sample.frameCount)
        }
        while av_audio_fifo_size(fifo.raw) >= frameSize { try encode(frames: frameSize, into: emit) }
    }

    /// Drains the converter, encodes the last partial frame and drains the encoder.
    func finish(into emit: (MediaSample) throws -> Void) throws {
        if let converter {
            let rest = try converter.drain()
            try withPlanePointers(rest.planes) { pointers in
                try write(UnsafeMutableRawPointer(mutating: pointers), frames: rest.frames)
            }
        }
        while av_audio_fifo_size(fifo.raw) >= frameSize { try encode(frames: frameSize, into: emit) }
        let rest = Int(av_audio_fifo_size(fifo.raw))
        if rest > 0 { try encode(frames: rest, into: emit) }
        try codec.encode(nil, into: packet) { try emit(makePacket()) }
    }

    private func write(_ planes: UnsafeMutableRawPointer, frames: Int) throws(MediaError) {
        guard frames > 0 else { return }
        let data = planes.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        try check(av_audio_fifo_write(fifo.raw, data, Int32(frames)), calling: "av_audio_fifo_write", .outOfMemory)
        framesIn += Int64(frames)
    }

    /// Sends `frames` frames from the FIFO to the encoder and emits the packets it returns.
    private func encode(frames: Int, into emit: (MediaSample) throws -> Void) throws {
        try check(av_frame_make_writable(frame.raw), calling: "av_frame_make_writable", .outOfMemory)
        frame.raw.pointee.nb_samples = Int32(frames)
        let data = UnsafeMutableRawPointer(frame.raw.pointee.extended_data).assumingMemoryBound(
            to: UnsafeMutableRawPointer?.self)
        try check(av_audio_fifo_read(fifo.raw, data, Int32(frames)), calling: "av_audio_fifo_read")
        frame.raw.pointee.pts = framesSent
        framesSent += Int64(frames)
        try codec.encode(frame, into: packet) { try emit(makePacket()) }
    }

    /// ``packet`` as the next sample, timed and trimmed by
    /// ``packetTiming(packet:frameSize:priming:inputFrames:start:timescale:)``: its bytes copied into the
    /// recycled sample.
    private func makePacket() -> MediaSample {
        let timing = Self.packetTiming(
            packet: packetsOut, frameSize: frameSize, priming: priming, inputFrames: framesIn, start: start,
            timescale: timescale)
        packetsOut += 1
        return packets.make(
            format: .audio(outputFormat), timing: timing.timing, frameCount: frameSize, flags: .keyframe,
            trimAtStart: timing.trimAtStart, trimAtEnd: timing.trimAtEnd
        ) { bytes in packet.append(to: &bytes) }
    }

    /// The timing and trims of packet `packet` of a stream of `inputFrames` frames delayed by `priming`,
    /// `frameSize` frames a packet: packet k decodes to frames [k·size, (k+1)·size) of the decoded stream,
    /// whose first `priming` frames are delay and whose frames after `priming + inputFrames` are padding.
    static func packetTiming(
        packet: Int64, frameSize: Int, priming: Int, inputFrames: Int64, start: MediaTime, timescale: Int32
    ) -> (timing: SampleTiming, trimAtStart: Int, trimAtEnd: Int) {
        let size = Int64(frameSize)
        let first = packet * size
        let trimStart = Int(min(max(Int64(priming) - first, 0), size))
        let validEnd = Int64(priming) + inputFrames
        let trimEnd = Int(min(max(first + size - validEnd, 0), size - Int64(trimStart)))
        let pts = start + MediaTime(value: first - Int64(priming), timescale: timescale)
        let timing = SampleTiming(
            presentationTime: pts, decodeTime: pts, duration: MediaTime(value: size, timescale: timescale))
        return (timing, trimStart, trimEnd)
    }
}

@available(*, unavailable) extension AudioEncoderSession: Sendable {}

/// The part of an audio encoder stage that is the same for every codec: the session opened by the first
/// sample (whose format every later sample must have), fed, and finished.
///
/// Not generic over the codec on purpose: a generic struct's metadata is laid out by the Swift runtime
/// when first used (`swift_initStructMetadata`), which valgrind's memcheck (`make memcheck`) reports as
/// a jump on uninitialised values inside libswiftCore; an existential field has a fixed layout.
struct AudioEncoderStageState {
    let codec: any AudioEncoderCodec
    /// The open session, after the first sample.
    private(set) var session: AudioEncoderSession?

    init(_ codec: any AudioEncoderCodec) { self.codec = codec }

    /// Opens the session on the first sample, then encodes `sample`; `stage` names the stage in errors.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/formatMismatch`` for a sample that is not linear PCM, or not
    ///   in the first sample's format; the session's errors.
    mutating func process(
        _ sample: MediaSample, stage: @autoclosure () -> String, into emit: (MediaSample) throws -> Void
    ) throws {
        guard case .audio(let input) = sample.format, input.pcm != nil else {
            throw MediaError.formatMismatch(stage: stage(), expected: "linear PCM audio", actual: sample.format)
        }
        if session == nil {
            session = try AudioEncoderSession(codec, input: input, start: sample.timing.presentationTime)
        }
        guard let session else { return }
        guard input == session.input else {
            throw MediaError.formatMismatch(
                stage: stage(), expected: "\(session.input) (the first sample's format)", actual: sample.format)
        }
        try session.process(sample, into: emit)
    }

    /// Encodes the last partial frame and drains the encoder (nothing before the first sample).
    func finish(into emit: (MediaSample) throws -> Void) throws {
        try session?.finish(into: emit)
    }
}
