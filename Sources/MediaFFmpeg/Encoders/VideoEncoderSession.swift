internal import CMediaFFmpeg
import MediaCore

/// What makes a ``VideoEncoderSession`` one codec's encoder: which FFmpeg encoder, the pixel formats it
/// takes, its private options, and how its packets become samples. ``H264Encoder``, ``HEVCEncoder``,
/// ``AV1Encoder`` and ``VP9Encoder`` are each one of these over the same session.
protocol VideoEncoderCodec {
    /// The codec as messages name it: `H.264`, `HEVC`.
    var name: String { get }
    /// FFmpeg's encoder: `libx264`, `libx265`, `hevc_vaapi`, ...
    var encoderName: String { get }
    /// The raw formats the stage takes (the FFmpeg build's encoder is asked too).
    var acceptedPixelFormats: Set<PixelFormat> { get }
    /// Whether the FFmpeg wrapper codes a frame sent with `pict_type` I as a keyframe (FFmpeg 5.1's
    /// libsvtav1 does not).
    var honoursKeyframeRequests: Bool { get }
    /// Whether the encoder is opened with `AV_CODEC_FLAG_GLOBAL_HEADER`: parameter sets once, in the
    /// extradata, as the CLI opens an encoder for MP4, Matroska and WebM.
    var usesGlobalHeader: Bool { get }
    /// Throws ``/MediaCore/MediaError/Code/invalidArgument`` for a setting this codec has no equivalent
    /// for (a level for VP9), when the stage is created.
    func validate(_ settings: VideoEncoderSettings) throws(MediaError)
    /// The encoder's own options for `settings` (preset, tune, profile, ...), in the order they are set
    /// before it opens; a codec may set the context's generic fields (a profile number) here too. Throws
    /// ``/MediaCore/MediaError/Code/invalidArgument`` for a setting the encoder has no equivalent for.
    func options(for settings: VideoEncoderSettings, context: UnsafeMutablePointer<AVCodecContext>)
        throws(MediaError) -> [(String, String)]
    /// The output format from the opened encoder's extradata, on top of `base` (size, rate, aspect);
    /// `nil` when it is known only from the first packet.
    func openedFormat(_ context: UnsafeMutablePointer<AVCodecContext>, base: VideoFormat) throws(MediaError)
        -> VideoFormat?
    /// Reads one packet before it is emitted: the output format it implies (new parameter sets) given the
    /// current one, and whether it holds a picture (a packet of parameter sets alone is not emitted).
    func inspect(_ packet: UnsafeRawBufferPointer, current: VideoFormat?, base: VideoFormat) -> (
        format: VideoFormat?, hasPicture: Bool
    )
    /// Writes a packet's payload as the sample carries it (H.264 and HEVC: length-prefixed NAL units).
    func write(_ packet: UnsafeRawBufferPointer, into payload: inout [UInt8])
}

extension VideoEncoderCodec {
    /// Every setting has an equivalent.
    func validate(_ settings: VideoEncoderSettings) throws(MediaError) {}

    /// Most wrappers honour `pict_type` I.
    var honoursKeyframeRequests: Bool { true }

    /// Packets as they come: the format is the opened one, every packet a picture.
    func inspect(_ packet: UnsafeRawBufferPointer, current: VideoFormat?, base: VideoFormat) -> (
        format: VideoFormat?, hasPicture: Bool
    ) { (current, true) }

    /// The packet's bytes as they are.
    func write(_ packet: UnsafeRawBufferPointer, into payload: inout [UInt8]) {
        payload.append(contentsOf: packet)
    }

    /// Sets `options` on the encoder's private context, each checked.
    func setOptions(_ options: [(String, String)], on context: UnsafeMutablePointer<AVCodecContext>)
        throws(MediaError)
    {
        for (key, value) in options {
            let status = av_opt_set(context.pointee.priv_data, key, value, 0)
            guard status >= 0 else {
                throw MediaError(
                    .invalidArgument, "\(encoderName) refuses option \(key)=\(value): \(FFmpeg.describe(status))",
                    ffmpegCall: "av_opt_set", ffmpegCode: status)
            }
        }
    }
}

/// One open video encoder and what feeds it, shared by the video encoders: the first frame opens it
/// with the CLI's time base (1/frame rate), each frame is sent by reference when a ``VideoConverter``
/// lent it, copied into one reused frame otherwise, and each packet becomes a recycled sample with its
/// frame's own times back (decode times from the encoder, in the input's timescale).
final class VideoEncoderSession {
    /// The first frame's format: every frame must have it (strides aside).
    let input: VideoFormat
    /// The output format, once the parameter sets are known (from extradata or the first packet).
    private(set) var outputFormat: VideoFormat?
    private let codec: any VideoEncoderCodec
    /// Size, rate and aspect of the output: what every output format is built on.
    private let base: VideoFormat
    private let context: CodecContext
    private let frame: Frame
    /// A reference to a ``PictureSlot``'s frame while it is sent (then unreferenced).
    private let lent: Frame
    private let packet: Packet
    /// The encoded packets' buffers (libx264 asks for them), back once each is copied out.
    private let packetBuffers = PacketBufferPool()
    /// The emitted packets, reused once the consumer has let go of the last one.
    private var samples = SampleRecycler()
    /// Ticks of the codec time base: `tick` seconds = `tickNumerator / tickTimescale`.
    private let tickNumerator: Int64
    private let tickTimescale: Int32
    /// The timescale of the output's times: the first input's.
    private let timescale: Int32
    private var lastTick: Int64?
    /// Input timing by codec tick, to give each packet its frame's exact times back.
    private var pending: [Int64: SampleTiming] = [:]

    /// Opens `codec`'s encoder for frames of `input`, the first timed `first`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` when this FFmpeg build lacks the encoder or
    ///   a hardware encoder cannot run here; ``/MediaCore/MediaError/Code/unsupportedFormat`` for a pixel
    ///   format the build's encoder does not take; ``/MediaCore/MediaError/Code/invalidArgument`` for
    ///   settings the encoder refuses.
    init(_ codec: any VideoEncoderCodec, input: VideoFormat, settings: VideoEncoderSettings, first: SampleTiming)
        throws(MediaError)
    {
        let encoderName = codec.encoderName
        guard let encoder = avcodec_find_encoder_by_name(encoderName) else {
            throw MediaError(
                .unavailable, "this FFmpeg build has no \(codec.name) encoder named \(encoderName)",
                ffmpegCall: "avcodec_find_encoder_by_name")
        }
        guard let pixels = input.pixelFormat else {
            throw MediaError(.invalidArgument, "\(codec.name) encoder input \(input) is not raw video")
        }
        try Self.checkEncoder(encoder, encodes: pixels)
        self.input = input
        self.codec = codec
        let firstTime = first.presentationTime
        timescale = firstTime.isNumeric ? firstTime.timescale : (input.frameRate?.numerator ?? 90_000)
        let rate = settings.expectedFrameRate ?? input.frameRate
        if let rate, rate.isValid {
            // The CLI's time base: 1/frame rate.
            tickNumerator = Int64(rate.denominator)
            tickTimescale = rate.numerator
        } else {
            tickNumerator = 1
            tickTimescale = timescale
        }
        // The codec field is each codec's to set.
        base = VideoFormat(
            codec: .h264, width: input.width, height: input.height, frameRate: rate,
            pixelAspectRatio: input.pixelAspectRatio, chromaLocation: input.chromaLocation)
        context = try CodecContext(codec: encoder)
        frame = try Frame()
        lent = try Frame()
        packet = try Packet()
        let ctx = context.raw
        packetBuffers.supplyEncodedPackets(of: ctx)
        ctx.pointee.width = Int32(input.width)
        ctx.pointee.height = Int32(input.height)
        ctx.pointee.pix_fmt = pixels.avPixelFormat
        // Written into the SPS's VUI, as the CLI does from a y4m header's A and C tags. They change the
        // SPS size and so, through rate control, every frame after it: the CLI match needs them.
        if let aspect = input.pixelAspectRatio {
            ctx.pointee.sample_aspect_ratio = AVRational(
                num: Int32(clamping: aspect.horizontalSpacing), den: Int32(clamping: aspect.verticalSpacing))
        }
        if let location = input.chromaLocation {
            ctx.pointee.chroma_sample_location = AVChromaLocation(rawValue: UInt32(location.rawValue + 1))
        }
        ctx.pointee.time_base = AVRational(num: Int32(tickNumerator), den: tickTimescale)
        if let rate, rate.isValid {
            ctx.pointee.framerate = AVRational(num: rate.numerator, den: rate.denominator)
        }
        if codec.usesGlobalHeader { ctx.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        ctx.pointee.thread_count = Int32(settings.threads ?? 0)
        if let bitRate = settings.averageBitRate { ctx.pointee.bit_rate = Int64(bitRate) }
        if let limit = settings.dataRateLimit {
            ctx.pointee.rc_max_rate = Int64(limit.maxBitRate)
            ctx.pointee.rc_buffer_size = Int32(clamping: limit.bufferSize)
        }
        if let gop = try settings.keyFrameInterval(rate: rate, codec: codec.name) {
            ctx.pointee.gop_size = Int32(clamping: gop)
        }
        if settings.allowFrameReordering == false {
            ctx.pointee.max_b_frames = 0
        } else if let bFrames = settings.maxBFrames {
            ctx.pointee.max_b_frames = Int32(bFrames)
        }
        // The settings' own options after the codec's: a value replaces the codec's, except for the
        // `key=value:...` lists (`x265-params`, `svtav1-params`), which are joined.
        var options = try codec.options(for: settings, context: ctx)
        for (key, value) in settings.encoderOptions.sorted(by: { $0.key < $1.key }) {
            if let index = options.firstIndex(where: { $0.0 == key }) {
                options[index].1 = key.hasSuffix("-params") ? options[index].1 + ":" + value : value
            } else {
                options.append((key, value))
            }
        }
        try codec.setOptions(options, on: ctx)
        let opened = avcodec_open2(ctx, encoder, nil)
        // A hardware encoder that cannot open has no device here; a software one refuses the settings.
        if opened < 0, VideoEncoderProbe.isHardware(encoder) {
            throw MediaError(
                .unavailable, "the \(codec.name) encoder \(encoderName) cannot run here: \(FFmpeg.describe(opened))",
                ffmpegCall: "avcodec_open2", ffmpegCode: opened)
        }
        try check(opened, calling: "avcodec_open2", .invalidArgument)
        outputFormat = try codec.openedFormat(ctx, base: base)
        try frame.allocateVideo(pixels, width: input.width, height: input.height)
    }

    /// Writes new rate-control values; libx264 re-reads them before the next frame it is sent
    /// (`reconfig_encoder` → `x264_encoder_reconfig`).
    func setRate(_ rate: H264RatePlan.Values) {
        context.raw.pointee.bit_rate = rate.bitRate
        context.raw.pointee.rc_max_rate = rate.maxRate
        context.raw.pointee.rc_buffer_size = rate.bufferSize
    }

    /// The codec tick of `time`, rounded to nearest.
    private func tick(of time: MediaTime) -> Int64 {
        let numerator = Int128(time.value) * Int128(tickTimescale)
        let denominator = Int128(time.timescale) * Int128(tickNumerator)
        let doubled = numerator * 2 + (numerator < 0 ? -denominator : denominator)
        return Int64(clamping: doubled / (2 * denominator))
    }

    /// The time of codec tick `tick`, in the output timescale (exact when it can be).
    private func time(ofTick tick: Int64) -> MediaTime {
        let (ticks, overflow) = tick.multipliedReportingOverflow(by: tickNumerator)
        return overflow ? .invalid : MediaTime(value: ticks, timescale: tickTimescale).converted(to: timescale)
    }

    /// Sends one frame (a keyframe when `forceKeyframe`) and emits the packets that are ready.
    func encode(
        _ sample: MediaSample, format: VideoFormat, index: Int64, forceKeyframe: Bool,
        into emit: (MediaSample) throws -> Void
    ) throws {
        let pts = sample.timing.presentationTime
        guard pts.isNumeric else {
            throw MediaError(.invalidData, "video frame has no presentation time", sampleIndex: index)
        }
        let tick = tick(of: pts)
        if let lastTick, tick <= lastTick {
            throw MediaError(
                .invalidData,
                "video frame at \(pts) falls in codec tick \(tick), not after the previous frame's tick \(lastTick) (time base \(tickNumerator)/\(tickTimescale) s)",
                sampleIndex: index)
        }
        lastTick = tick
        // A frame a VideoConverter scaled into is sent by reference, as the ffmpeg CLI sends a filter's
        // output (the encoder copies it into its own pictures): no copy, and no buffer allocated. Any
        // other sample is copied into the one reused frame, not wrapped for FFmpeg: wrapping costs
        // `av_buffer_create`'s two allocations and a retained box per frame (the issue-15 target is
        // none), while the copy is at most 1.8 % of h264-encoder's CPU on 720p (all of libc's memmove
        // in `perf record`; libx264 80 %). Benchmarks/README.md, "Allocations", has the measurement.
        let sent: Frame
        if let slot = lendable(sample) {
            try check(av_frame_ref(lent.raw, slot.frame.raw), calling: "av_frame_ref", .outOfMemory)
            sent = lent
        } else {
            try frame.copyPicture(from: sample, format: format)
            sent = frame
        }
        defer { if sent === lent { av_frame_unref(lent.raw) } }
        sent.raw.pointee.pts = tick
        // AV_PICTURE_TYPE_I makes libx264 code an X264_TYPE_KEYFRAME (an IDR picture in a closed GOP),
        // libx265 an IDR picture (with `forced-idr`), libvpx and SVT-AV1 a key frame.
        sent.raw.pointee.pict_type = forceKeyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        var timing = sample.timing
        if !timing.duration.isNumeric { timing.duration = time(ofTick: 1) - time(ofTick: 0) }
        pending[tick] = timing
        try context.sendFrame(sent)
        try receive(into: emit)
    }

    /// The ``PictureSlot`` whose frame `sample` borrows whole, when that frame has the encoder's
    /// pixel format and size: it can be sent as it is.
    private func lendable(_ sample: MediaSample) -> PictureSlot? {
        guard let slot = sample.memoryOwner as? PictureSlot else { return nil }
        let own = frame.raw.pointee
        let theirs = slot.frame.raw.pointee
        guard own.format == theirs.format, own.width == theirs.width, own.height == theirs.height else {
            return nil
        }
        let borrowed = sample.withUnsafeBytes(plane: 0) { $0.baseAddress }
        return borrowed == UnsafeRawPointer(mp_frame_data(slot.frame.raw, 0)) ? slot : nil
    }

    /// Drains the encoder: emits every packet it still holds.
    func drain(into emit: (MediaSample) throws -> Void) throws {
        try context.sendFrame(nil)
        try receive(into: emit)
    }

    private func receive(into emit: (MediaSample) throws -> Void) throws {
        try context.receivePackets(into: packet) {
            let ptsTick = packet.raw.pointee.pts
            let dtsTick = packet.raw.pointee.dts
            let key = packet.raw.pointee.flags & AV_PKT_FLAG_KEY != 0
            let bytes = UnsafeRawBufferPointer(
                start: packet.raw.pointee.data, count: Int(max(0, packet.raw.pointee.size)))
            let (format, hasPicture) = codec.inspect(bytes, current: outputFormat, base: base)
            outputFormat = format
            guard let format else {
                throw MediaError(
                    .encoderFailure, "the \(codec.name) encoder gave a packet before its parameter sets",
                    ffmpegCall: "avcodec_receive_packet")
            }
            guard hasPicture else { return }  // parameter sets alone: nothing to emit
            let original = pending.removeValue(forKey: ptsTick)
            let pts = original?.presentationTime ?? time(ofTick: ptsTick)
            let dts = dtsTick == mp_nopts_value() ? pts : time(ofTick: dtsTick)
            let duration = original?.duration ?? (time(ofTick: 1) - time(ofTick: 0))
            let sample = samples.make(
                format: .video(format),
                timing: SampleTiming(presentationTime: pts, decodeTime: dts, duration: duration),
                frameCount: 1, flags: key ? .keyframe : []
            ) { payload in codec.write(bytes, into: &payload) }
            try emit(sample)
        }
    }

    /// Throws ``/MediaCore/MediaError/Code/unsupportedFormat`` unless `encoder` lists `pixels` among its
    /// pixel formats: libx264 built for 8 bits only has no 10-bit ones, hardware encoders have their own.
    /// An encoder that lists none is given the chance (FFmpeg's own rule: no list, no restriction).
    static func checkEncoder(_ encoder: UnsafePointer<AVCodec>, encodes pixels: PixelFormat) throws(MediaError) {
        guard var format = encoder.pointee.pix_fmts else { return }
        var names: [String] = []
        while format.pointee != AV_PIX_FMT_NONE {
            if format.pointee == pixels.avPixelFormat { return }
            names.append(PixelFormat.name(of: format.pointee))
            format += 1
        }
        let encoderName = String(cString: encoder.pointee.name)
        throw MediaError(
            .unsupportedFormat,
            "\(encoderName) in this FFmpeg build does not encode \(pixels); it takes \(names.joined(separator: ", "))",
            ffmpegCall: "avcodec_find_encoder_by_name")
    }
}

@available(*, unavailable) extension VideoEncoderSession: Sendable {}
