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
    public private(set) var primingFrames = 0
    /// The output format (set once the first sample has opened the encoder).
    public private(set) var outputFormat: AudioFormat?

    private var session: Session?

    /// Frames per AAC packet.
    public static let framesPerPacket = 1024

    /// An encoder at `bitRate` bits per second (8 000–576 000 per channel pair is sensible; FFmpeg clamps).
    public init(bitRate: Int = 128_000) throws(MediaError) {
        guard (1_000...2_000_000).contains(bitRate) else {
            throw MediaError(.invalidArgument, "AAC bit rate \(bitRate) b/s is outside 1000...2000000")
        }
        self.bitRate = bitRate
        FFmpeg.quietLogging()
    }

    /// Takes PCM frames; emits the AAC packets that are complete.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .audio(let input) = sample.format, input.pcm != nil else {
            throw MediaError.formatMismatch(stage: name, expected: "linear PCM audio", actual: sample.format)
        }
        if session == nil {
            let opened = try Session(input: input, bitRate: bitRate, start: sample.timing.presentationTime)
            session = opened
            primingFrames = opened.priming
            outputFormat = opened.outputFormat
        }
        guard let session else { return }
        guard input == session.input else {
            throw MediaError.formatMismatch(
                stage: name, expected: "\(session.input) (the first sample's format)", actual: sample.format)
        }
        try session.push(sample)
        while session.fifo.count >= Self.framesPerPacket {
            try session.encode(frames: Self.framesPerPacket, into: emit)
        }
    }

    /// Encodes the last partial frame and drains the encoder.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        guard let session else { return }
        let rest = session.fifo.count
        if rest > 0 { try session.encode(frames: rest, into: emit) }
        try session.drain(into: emit)
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
        let size = Int64(framesPerPacket)
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

extension AACEncoder {
    /// The open encoder and its buffers.
    fileprivate final class Session {
        let input: AudioFormat
        let outputFormat: AudioFormat
        let priming: Int
        let fifo: AudioFifo
        private let codec: CodecContext
        private let frame: Frame
        private let packet: Packet
        /// The emitted packets, reused once the consumer has let go of the last one.
        private var packets = SampleRecycler()
        private let converter: Resampler?
        private let start: MediaTime
        private let timescale: Int32
        private var framesIn: Int64 = 0
        private var framesSent: Int64 = 0
        private var packetsOut: Int64 = 0

        init(input: AudioFormat, bitRate: Int, start: MediaTime) throws(MediaError) {
            guard let encoder = avcodec_find_encoder_by_name("aac") else {
                throw MediaError(
                    .unavailable, "this FFmpeg build has no native AAC encoder",
                    ffmpegCall: "avcodec_find_encoder_by_name")
            }
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
            self.input = input
            self.timescale = Int32(input.sampleRate)
            self.start =
                start.isNumeric
                ? start.converted(to: Int32(input.sampleRate)) : MediaTime(value: 0, timescale: Int32(input.sampleRate))
            codec = try CodecContext(codec: encoder)
            frame = try Frame()
            packet = try Packet()
            let ctx = codec.raw
            ctx.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            ctx.pointee.sample_rate = Int32(input.sampleRate)
            ctx.pointee.bit_rate = Int64(bitRate)
            ctx.pointee.time_base = AVRational(num: 1, den: Int32(input.sampleRate))
            var layout = input.channelLayout.avChannelLayout
            defer { av_channel_layout_uninit(&layout) }
            try check(av_channel_layout_copy(&ctx.pointee.ch_layout, &layout), calling: "av_channel_layout_copy")
            try check(avcodec_open2(ctx, encoder, nil), calling: "avcodec_open2", .unsupportedFormat)

            priming = Int(ctx.pointee.initial_padding)
            let cookie: [UInt8]
            if let extradata = ctx.pointee.extradata, ctx.pointee.extradata_size > 0 {
                cookie = Array(UnsafeBufferPointer(start: extradata, count: Int(ctx.pointee.extradata_size)))
            } else {
                throw MediaError(
                    .encoderFailure, "the AAC encoder gave no AudioSpecificConfig", ffmpegCall: "avcodec_open2")
            }
            outputFormat = .aac(
                sampleRate: input.sampleRate, channelLayout: input.channelLayout, audioSpecificConfig: cookie)

            let planar = AudioFormat.pcm(.f32Planar, sampleRate: input.sampleRate, channelLayout: input.channelLayout)
            converter = input == planar ? nil : try Resampler(from: input, to: planar)
            fifo = try AudioFifo(
                sampleFormat: AV_SAMPLE_FMT_FLTP, channels: input.channelCount, capacity: 4 * AACEncoder.framesPerPacket
            )

            frame.raw.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            frame.raw.pointee.sample_rate = Int32(input.sampleRate)
            frame.raw.pointee.nb_samples = Int32(AACEncoder.framesPerPacket)
            try check(
                av_channel_layout_copy(&frame.raw.pointee.ch_layout, &ctx.pointee.ch_layout),
                calling: "av_channel_layout_copy")
            // One buffer for every channel's plane: a reference per packet sent, not one per channel.
            try check(
                mp_frame_get_audio_buffer_shared(frame.raw), calling: "av_frame_get_buffer", .outOfMemory)
        }

        /// Converts (if needed) and queues one input sample's frames.
        func push(_ sample: MediaSample) throws(MediaError) {
            try sample.validatePCMLayout()
            framesIn += Int64(sample.frameCount)
            if let converter {
                try converter.convertInPlace(planes: converter.ffmpegPlanes(of: sample), frameCount: sample.frameCount)
                {
                    (planes, frames) throws(MediaError) in
                    try write(UnsafeMutableRawPointer(planes), frames: frames)
                }
            } else {
                let written = withPlanePointers(of: sample) { pointers in
                    av_audio_fifo_write(
                        fifo.raw,
                        UnsafeMutableRawPointer(pointers).assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
                        Int32(sample.frameCount))
                }
                try check(written, calling: "av_audio_fifo_write", .outOfMemory)
            }
        }

        private func write(_ planes: UnsafeMutableRawPointer, frames: Int) throws(MediaError) {
            guard frames > 0 else { return }
            let data = planes.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
            let written = av_audio_fifo_write(fifo.raw, data, Int32(frames))
            try check(written, calling: "av_audio_fifo_write", .outOfMemory)
        }

        /// Sends `frames` frames from the FIFO to the encoder and emits the packets it returns.
        func encode(frames: Int, into emit: (MediaSample) throws -> Void) throws {
            try check(av_frame_make_writable(frame.raw), calling: "av_frame_make_writable", .outOfMemory)
            frame.raw.pointee.nb_samples = Int32(frames)
            let data = UnsafeMutableRawPointer(frame.raw.pointee.extended_data).assumingMemoryBound(
                to: UnsafeMutableRawPointer?.self)
            let read = av_audio_fifo_read(fifo.raw, data, Int32(frames))
            try check(read, calling: "av_audio_fifo_read")
            frame.raw.pointee.pts = framesSent
            framesSent += Int64(frames)
            try codec.encode(frame, into: packet) { try emit(makePacket()) }
        }

        /// Flushes the encoder and emits everything it held back.
        func drain(into emit: (MediaSample) throws -> Void) throws {
            try codec.encode(nil, into: packet) { try emit(makePacket()) }
        }

        /// ``packet`` as the next sample, timed and trimmed by
        /// ``AACEncoder/packetTiming(packet:priming:inputFrames:start:timescale:)``: its bytes copied into
        /// the recycled sample (a few hundred bytes; no allocation once the consumer lets go of the last one).
        private func makePacket() -> MediaSample {
            let timing = AACEncoder.packetTiming(
                packet: packetsOut, priming: priming, inputFrames: framesIn, start: start, timescale: timescale)
            packetsOut += 1
            return packets.make(
                format: .audio(outputFormat), timing: timing.timing, frameCount: AACEncoder.framesPerPacket,
                flags: .keyframe, trimAtStart: timing.trimAtStart, trimAtEnd: timing.trimAtEnd
            ) { bytes in packet.append(to: &bytes) }
        }
    }
}
