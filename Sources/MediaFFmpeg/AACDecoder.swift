internal import CMediaFFmpeg
public import MediaCore

/// Decodes AAC packets to linear PCM, honouring each packet's trims: AudioToolbox's AAC decoder, or
/// GStreamer's `avdec_aac`.
///
/// - Input: raw AAC access units (one per sample, no ADTS header) whose format carries the
///   AudioSpecificConfig as magic cookie, as ``AACEncoder``, the ADTS reader and the CAF reader give them.
/// - Output: PCM in ``outputFormat`` (32-bit float planar, FFmpeg's native output, unless asked
///   otherwise), at the stream's rate and channel layout. The frames a packet marks as
///   ``MediaSample/trimAtStart`` and ``MediaSample/trimAtEnd`` are dropped, so encode → decode returns
///   exactly the frames that went in. Each output sample starts at its packet's presentation time plus
///   the frames trimmed at its start.
///
/// A packet the decoder rejects throws ``MediaError/Code/decoderFailure``; the driver (or a
/// ``MediaCore/CheckedStage``) stamps it with the packet's index.
/// Backed by FFmpeg's native `aac` decoder (`avcodec_send_packet` / `avcodec_receive_frame`).
public final class AACDecoder: MediaStage {
    /// The PCM layout produced.
    public let outputFormat: PCMFormat

    private var session: Session?

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
        if session == nil { session = try Session(input: input, output: outputFormat) }
        guard let session else { return }
        guard input == session.input else {
            throw MediaError.formatMismatch(stage: name, expected: "\(session.input) (the first packet's format)", actual: sample.format)
        }
        try session.decode(sample, into: emit)
    }

    /// Drains the decoder.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        try session?.drain(into: emit)
    }
}

@available(*, unavailable) extension AACDecoder: Sendable {}

extension AACDecoder {
    private struct Pending {
        var trimAtStart: Int
        var trimAtEnd: Int
        var presentationTime: MediaTime
    }

    fileprivate final class Session {
        let input: AudioFormat
        private let output: AudioFormat
        private let codec: CodecContext
        private let frame: Frame
        private let packet: Packet
        private var converter: Resampler?
        private var pending: [Pending] = []
        private var pendingHead = 0
        private var nextTime: MediaTime
        private let timescale: Int32

        init(input: AudioFormat, output pcm: PCMFormat) throws(MediaError) {
            guard let decoder = avcodec_find_decoder(AV_CODEC_ID_AAC) else {
                throw MediaError(.unavailable, "this FFmpeg build has no AAC decoder", ffmpegCall: "avcodec_find_decoder")
            }
            guard !input.magicCookie.isEmpty else {
                throw MediaError(.invalidData, "AAC format has no AudioSpecificConfig (magic cookie)")
            }
            guard input.sampleRate > 0, input.channelCount > 0 else {
                throw MediaError(.invalidData, "AAC format has \(input.sampleRate) Hz and \(input.channelCount) channels")
            }
            self.input = input
            timescale = Int32(clamping: input.sampleRate)
            nextTime = MediaTime(value: 0, timescale: timescale)
            output = .pcm(pcm, sampleRate: input.sampleRate, channelLayout: input.channelLayout)
            codec = try CodecContext(codec: decoder)
            frame = try Frame()
            packet = try Packet()
            let ctx = codec.raw
            let cookie = input.magicCookie
            guard let extradata = av_mallocz(cookie.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
                throw MediaError(.outOfMemory, "cannot allocate \(cookie.count) bytes of extradata", ffmpegCall: "av_mallocz")
            }
            // The codec context owns extradata from here on and frees it in avcodec_free_context.
            let bytes = extradata.assumingMemoryBound(to: UInt8.self)
            bytes.update(from: cookie, count: cookie.count)
            ctx.pointee.extradata = bytes
            ctx.pointee.extradata_size = Int32(cookie.count)
            ctx.pointee.sample_rate = Int32(input.sampleRate)
            var layout = input.channelLayout.avChannelLayout
            defer { av_channel_layout_uninit(&layout) }
            try check(av_channel_layout_copy(&ctx.pointee.ch_layout, &layout), calling: "av_channel_layout_copy")
            try check(avcodec_open2(ctx, decoder, nil), calling: "avcodec_open2", .decoderFailure)
        }

        func decode(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
            let data = sample.data
            guard !data.isEmpty else { throw MediaError(.invalidData, "empty AAC packet") }
            try check(av_new_packet(packet.raw, Int32(data.count)), calling: "av_new_packet", .outOfMemory)
            defer { av_packet_unref(packet.raw) }
            data.withUnsafeBufferPointer { source in
                packet.raw.pointee.data.update(from: source.baseAddress!, count: data.count)
            }
            let pts = sample.timing.presentationTime
            pending.append(Pending(
                trimAtStart: sample.trimAtStart, trimAtEnd: sample.trimAtEnd,
                presentationTime: pts.isNumeric ? pts.converted(to: timescale) : .invalid))
            try codec.sendPacket(packet)
            try receive(into: emit)
        }

        func drain(into emit: (MediaSample) throws -> Void) throws {
            try codec.sendPacket(nil)
            try receive(into: emit)
        }

        private func receive(into emit: (MediaSample) throws -> Void) throws {
            try codec.receiveFrames(into: frame) {
                try emitFrame(into: emit)
            }
        }

        /// Turns the decoded frame into a sample: trims it as its packet says, converts it if asked.
        private func emitFrame(into emit: (MediaSample) throws -> Void) throws {
            let info = pendingHead < pending.count ? pending[pendingHead] : Pending(trimAtStart: 0, trimAtEnd: 0, presentationTime: .invalid)
            pendingHead += 1
            if pendingHead > 64 {
                pending.removeFirst(pendingHead)
                pendingHead = 0
            }
            let f = frame.raw.pointee
            let total = Int(f.nb_samples)
            let channels = Int(f.ch_layout.nb_channels)
            guard let decodedFormat = PCMFormat(AVSampleFormat(f.format)), channels == input.channelCount else {
                throw MediaError(.decoderFailure, "the AAC decoder produced \(channels) channels of sample format \(f.format); the stream declares \(input.channelCount)")
            }
            let start = min(info.trimAtStart, total)
            let count = max(0, total - start - info.trimAtEnd)
            let time = info.presentationTime.isNumeric ? info.presentationTime + MediaTime(value: Int64(start), timescale: timescale) : nextTime
            nextTime = time + MediaTime(value: Int64(count), timescale: timescale)
            guard count > 0 else { return }

            let bytesPerSample = decodedFormat.sampleType.bytesPerSample
            let planeCount = decodedFormat.isInterleaved ? 1 : channels
            let stride = decodedFormat.isInterleaved ? bytesPerSample * channels : bytesPerSample
            var planes: [[UInt8]] = []
            planes.reserveCapacity(planeCount)
            for plane in 0..<planeCount {
                guard let base = f.extended_data[plane] else {
                    throw MediaError(.decoderFailure, "the AAC decoder returned no data for plane \(plane)")
                }
                planes.append(Array(UnsafeBufferPointer(start: base + start * stride, count: count * stride)))
            }
            let decoded = AudioFormat.pcm(decodedFormat, sampleRate: input.sampleRate, channelLayout: input.channelLayout)
            var sample = MediaSample(
                format: .audio(decoded), planes: planes,
                timing: SampleTiming(presentationTime: time, decodeTime: time, duration: MediaTime(value: Int64(count), timescale: timescale)),
                frameCount: count)
            if decoded != output {
                if converter == nil { converter = try Resampler(from: decoded, to: output) }
                if let converter {
                    let converted = try converter.convert(planes: planes, frameCount: count)
                    sample = MediaSample(format: .audio(output), planes: converted.planes, timing: sample.timing, frameCount: converted.frames)
                }
            }
            try emit(sample)
        }
    }
}
