internal import CMediaFFmpeg
import MediaBitstream
public import MediaCore

/// Encodes raw video frames to H.264: VideoToolbox's `VTCompressionSession`, or GStreamer's `x264enc`.
///
/// ```swift
/// var settings = H264Encoder.Settings()
/// settings.averageBitRate = 1_500_000
/// settings.maxKeyFrameInterval = 30
/// settings.preset = "veryfast"
/// let encoder = try H264Encoder(settings: settings)
/// ```
///
/// - Input: raw frames of `yuv420p` (or `yuv422p`, `yuv444p`, `nv12`, which libx264 also takes, or
///   `yuv420p10le`, `yuv422p10le`, `yuv444p10le` for a 10-bit High 10 / High 4:2:2 / High 4:4:4 stream), any
///   stride, one frame per sample, presentation times increasing (the first need not be 0). Other pixel
///   formats throw ``/MediaCore/MediaError/Code/formatMismatch``: put a ``VideoConverter`` in front. A
///   format the FFmpeg build's encoder does not list (a libx264 built for 8 bits only, a hardware
///   encoder) throws ``/MediaCore/MediaError/Code/unsupportedFormat`` naming the formats it takes.
/// - Output: one access unit per sample in AVCC form (4-byte big-endian length before each NAL unit),
///   without SPS/PPS in-band: they are in the format (``/MediaCore/VideoFormat/h264(width:height:frameRate:parameters:)``).
///   IDR access units carry ``/MediaCore/MediaSample/Flags/keyframe``. Presentation times are the input's; decode
///   times are in the input's timescale and strictly increase; with B-frames they run behind the
///   presentation times (and the first is negative, as libavcodec gives it).
///
/// Defaults follow the `ffmpeg` CLI's for libx264 (time base 1/frame rate, automatic threads, preset
/// `medium`), so with the same settings the stream is the CLI's (`ffmpeg -i in.y4m -c:v libx264
/// -preset veryfast -b:v 1500k -g 30`). The presentation times are mapped to frame ticks of
/// 1/frame rate, as the CLI does; two frames in one tick throw ``/MediaCore/MediaError/Code/invalidData``.
/// The encoder is opened without `AV_CODEC_FLAG_GLOBAL_HEADER`, as the CLI opens it for raw H.264:
/// x264's rate control counts the SPS/PPS it repeats before each IDR frame, so a global-header encode
/// is a different stream. The parameter sets are read from the packets instead and stripped from them.
/// ``finish(into:)`` drains the frames the encoder holds back (lookahead, B-frames).
///
/// The average bit rate can change while the encoder runs, from the next frame on
/// (``setAverageBitRate(_:)``, or a ``/MediaCore/BitRateControl`` another thread writes, as a live
/// stream's ``/MediaStreaming/AdaptiveBitRate`` does); in constant-quality mode (no ``Settings/averageBitRate``)
/// it cannot, and a control is refused with ``/MediaCore/MediaError/Code/invalidArgument``.
///
/// Backed by libavcodec's `libx264` encoder (or another by name, e.g. `h264_nvenc`, `h264_vaapi`),
/// `avcodec_send_frame` / `avcodec_receive_packet`.
public final class H264Encoder: MediaStage {
    /// The settings the encoder was created with.
    public let settings: Settings
    /// The libavcodec encoder's name, e.g. `libx264`.
    public let encoderName: String
    /// The output format with the parameter sets (set once the encoder has given its first access unit).
    public private(set) var outputFormat: VideoFormat?

    /// The control this encoder reads its target bit rate from before each frame, if any.
    public let bitRateControl: BitRateControl?

    /// Where others ask for a keyframe (a ``/MediaStreaming/ReconnectingSink`` after a reconnection, an app on
    /// a viewer's request): read before each frame; when a request is pending, that frame is coded as
    /// an IDR picture with SPS/PPS in front, as VideoToolbox's `kVTEncodeFrameOptionKey_ForceKeyFrame`
    /// does. Set it before the encoder is handed to a graph.
    public var keyframeRequest: KeyframeRequest?

    private var session: Session?
    private var index: Int64 = 0
    /// Whether the graph running this encoder asked for a keyframe (``forceKeyframe()``).
    private var isKeyframeForced = false
    /// How a changed target becomes rate-control values; `nil` when the rate cannot change.
    var ratePlan: H264RatePlan?

    /// An encoder with `settings`, backed by the libavcodec encoder named `encoderName`.
    ///
    /// Throws ``/MediaCore/MediaError/Code/unavailable`` when this FFmpeg build has no such encoder, and
    /// ``/MediaCore/MediaError/Code/invalidArgument`` for a setting out of range. Whether hardware encoders
    /// (`h264_nvenc`, `h264_vaapi`) can run is known only when the first frame opens them: that throws
    /// ``/MediaCore/MediaError/Code/unavailable`` too.
    public convenience init(settings: Settings = Settings(), encoderName: String = "libx264") throws(MediaError) {
        try self.init(settings: settings, encoderName: encoderName, bitRateControl: nil)
    }

    /// An encoder with `settings`, backed by the libavcodec encoder named `encoderName`, whose average
    /// bit rate follows `bitRateControl` (see ``setAverageBitRate(_:)``; `nil`: as the initializer
    /// without it).
    ///
    /// Throws as ``init(settings:encoderName:)``, and ``/MediaCore/MediaError/Code/invalidArgument`` for a
    /// `bitRateControl` without ``Settings/averageBitRate`` (constant quality has no bit rate to change).
    public init(
        settings: Settings = Settings(), encoderName: String = "libx264", bitRateControl: BitRateControl?
    ) throws(MediaError) {
        guard avcodec_find_encoder_by_name(encoderName) != nil else {
            throw MediaError(
                .unavailable, "this FFmpeg build has no H.264 encoder named \(encoderName)",
                ffmpegCall: "avcodec_find_encoder_by_name")
        }
        let counts: [(String, Int?, ClosedRange<Int>)] = [
            ("averageBitRate", settings.averageBitRate, 1...1_000_000_000),
            ("dataRateLimit.maxBitRate", settings.dataRateLimit?.maxBitRate, 1...1_000_000_000),
            ("dataRateLimit.bufferSize", settings.dataRateLimit?.bufferSize, 1...2_000_000_000),
            ("maxKeyFrameInterval", settings.maxKeyFrameInterval, 1...100_000),
            ("maxBFrames", settings.maxBFrames, 0...16),
            ("threads", settings.threads, 0...64)
        ]
        for (name, value, range) in counts {
            if let value, !range.contains(value) {
                throw MediaError(.invalidArgument, "H264Encoder setting \(name) \(value) is outside \(range)")
            }
        }
        if let rate = settings.expectedFrameRate, !rate.isValid {
            throw MediaError(.invalidArgument, "H264Encoder expectedFrameRate \(rate) is not a positive rate")
        }
        if let duration = settings.maxKeyFrameIntervalDuration, !(duration.isNumeric && duration > .zero) {
            throw MediaError(
                .invalidArgument, "H264Encoder maxKeyFrameIntervalDuration \(duration) is not a positive time")
        }
        if bitRateControl != nil, settings.averageBitRate == nil {
            throw MediaError(
                .invalidArgument,
                "H264Encoder bitRateControl needs averageBitRate: constant quality (CRF) has no bit rate to change")
        }
        self.settings = settings
        self.encoderName = encoderName
        self.bitRateControl = bitRateControl
        ratePlan = H264RatePlan(settings: settings, control: bitRateControl)
        FFmpeg.quietLogging()
    }

    /// Encodes one frame; emits the access units that are ready (none while the encoder looks ahead).
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .video(let input) = sample.format, let pixels = input.pixelFormat else {
            throw MediaError.formatMismatch(stage: name, expected: "raw video (yuv420p)", actual: sample.format)
        }
        guard Self.acceptedPixelFormats.contains(pixels) else {
            throw MediaError.formatMismatch(
                stage: name,
                expected:
                    "yuv420p, yuv422p, yuv444p, nv12 or their 10-bit planar frames (put a VideoConverter in front)",
                actual: sample.format)
        }
        defer { index += 1 }
        try sample.validateVideoLayout(input, index: index)
        if session == nil {
            let opening = ratePlan?.opening(settings) ?? settings
            let opened = try Session(input: input, settings: opening, encoderName: encoderName, first: sample.timing)
            session = opened
            outputFormat = opened.outputFormat
        }
        guard let session else { return }
        // The same format as the first frame's, strides aside (compared field by field only when it is not
        // equal outright: `packed` makes new arrays).
        guard input == session.input || input.packed == session.input.packed else {
            throw MediaError.formatMismatch(
                stage: name, expected: "\(session.input) (the first frame's format)", actual: sample.format)
        }
        if let rate = ratePlan?.change() { session.setRate(rate) }
        let forceKeyframe = (keyframeRequest?.take() ?? false) || isKeyframeForced
        isKeyframeForced = false
        try session.encode(sample, format: input, index: index, forceKeyframe: forceKeyframe, into: emit)
        outputFormat = session.outputFormat
    }

    /// Drains the encoder: emits every access unit it still holds.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        try session?.drain(into: emit)
        outputFormat = session?.outputFormat
    }
}

@available(*, unavailable) extension H264Encoder: Sendable {}

extension H264Encoder {
    /// The open encoder, its frame and packet, and the timestamp bookkeeping.
    fileprivate final class Session {
        let input: VideoFormat
        /// The output format, once the parameter sets are known (from extradata or the first packet).
        var outputFormat: VideoFormat? {
            parameters.map {
                VideoFormat(
                    codec: .h264, width: input.width, height: input.height, frameRate: rate, h264: $0,
                    pixelAspectRatio: input.pixelAspectRatio, chromaLocation: input.chromaLocation)
            }
        }
        private var parameters: H264Parameters?
        private let rate: FrameRate?
        private let codec: CodecContext
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

        init(input: VideoFormat, settings: Settings, encoderName: String, first: SampleTiming) throws(MediaError) {
            guard let encoder = avcodec_find_encoder_by_name(encoderName) else {
                throw MediaError(
                    .unavailable, "this FFmpeg build has no H.264 encoder named \(encoderName)",
                    ffmpegCall: "avcodec_find_encoder_by_name")
            }
            guard let pixels = input.pixelFormat else {
                throw MediaError(.invalidArgument, "H264Encoder input \(input) is not raw video")
            }
            try H264Encoder.checkEncoder(encoder, encodes: pixels)
            self.input = input
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
            codec = try CodecContext(codec: encoder)
            frame = try Frame()
            lent = try Frame()
            packet = try Packet()
            let ctx = codec.raw
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
            // No AV_CODEC_FLAG_GLOBAL_HEADER: with it libx264 stops repeating SPS/PPS in-band, and since
            // its rate control counts those header bits, the stream would differ from the CLI's (which
            // writes raw H.264 without global header). The parameter sets are taken from the packets.
            ctx.pointee.thread_count = Int32(settings.threads ?? 0)
            if let bitRate = settings.averageBitRate { ctx.pointee.bit_rate = Int64(bitRate) }
            if let limit = settings.dataRateLimit {
                ctx.pointee.rc_max_rate = Int64(limit.maxBitRate)
                ctx.pointee.rc_buffer_size = Int32(clamping: limit.bufferSize)
            }
            var gop = settings.maxKeyFrameInterval
            if let duration = settings.maxKeyFrameIntervalDuration {
                guard let rate, rate.isValid else {
                    throw MediaError(
                        .invalidArgument,
                        "H264Encoder maxKeyFrameIntervalDuration needs a frame rate (set expectedFrameRate)")
                }
                // frames = seconds × numerator / denominator, rounded to nearest, at least 1
                let frames =
                    (Int128(duration.value) * Int128(rate.numerator) * 2 + Int128(duration.timescale)
                        * Int128(rate.denominator))
                    / (2 * Int128(duration.timescale) * Int128(rate.denominator))
                let fromDuration = max(1, Int(clamping: frames))
                gop = min(gop ?? fromDuration, fromDuration)
            }
            if let gop { ctx.pointee.gop_size = Int32(clamping: gop) }
            if settings.allowFrameReordering == false {
                ctx.pointee.max_b_frames = 0
            } else if let bFrames = settings.maxBFrames {
                ctx.pointee.max_b_frames = Int32(bFrames)
            }
            var options: [(String, String)] = [("preset", settings.preset ?? "medium")]
            if settings.realTime { options.append(("tune", "zerolatency")) }
            if let profile = settings.profile { options.append(("profile", profile)) }
            if let level = settings.level { options.append(("level", level)) }
            if encoderName == "libx264" || encoderName == "libx264rgb" {
                for (key, value) in options {
                    try check(av_opt_set(ctx.pointee.priv_data, key, value, 0), calling: "av_opt_set", .invalidArgument)
                }
            } else if let profile = settings.profile {
                // Hardware encoders take the profile; their presets are named differently.
                _ = av_opt_set(ctx.pointee.priv_data, "profile", profile, 0)
            }
            let opened = avcodec_open2(ctx, encoder, nil)
            if opened < 0, encoderName != "libx264" {
                throw MediaError(
                    .unavailable, "the H.264 encoder \(encoderName) cannot run here: \(FFmpeg.describe(opened))",
                    ffmpegCall: "avcodec_open2", ffmpegCode: opened)
            }
            try check(opened, calling: "avcodec_open2", .invalidArgument)

            var parameters: H264Parameters? = nil
            if let extradata = ctx.pointee.extradata, ctx.pointee.extradata_size > 0 {
                // Encoders that give global headers anyway (Annex-B extradata).
                let header = Array(UnsafeBufferPointer(start: extradata, count: Int(ctx.pointee.extradata_size)))
                parameters = H264Bitstream.parameterSets(in: H264Bitstream.annexBNALUnits(header))
            }
            self.parameters = parameters
            self.rate = rate
            try frame.allocateVideo(pixels, width: input.width, height: input.height)
        }

        /// Writes new rate-control values; the encoder re-reads them before the next frame it is sent
        /// (libx264: `reconfig_encoder` → `x264_encoder_reconfig`).
        func setRate(_ rate: H264RatePlan.Values) {
            codec.raw.pointee.bit_rate = rate.bitRate
            codec.raw.pointee.rc_max_rate = rate.maxRate
            codec.raw.pointee.rc_buffer_size = rate.bufferSize
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
            // output (libx264 copies it into its own pictures): no copy, and no buffer allocated. Any other
            // sample is copied into the one reused frame, not wrapped for FFmpeg: wrapping costs
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
            // AV_PICTURE_TYPE_I makes libx264 code an X264_TYPE_KEYFRAME: an IDR picture in a closed GOP.
            sent.raw.pointee.pict_type = forceKeyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            var timing = sample.timing
            if !timing.duration.isNumeric { timing.duration = time(ofTick: 1) - time(ofTick: 0) }
            pending[tick] = timing
            try codec.sendFrame(sent)
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

        func drain(into emit: (MediaSample) throws -> Void) throws {
            try codec.sendFrame(nil)
            try receive(into: emit)
        }

        private func receive(into emit: (MediaSample) throws -> Void) throws {
            try codec.receivePackets(into: packet) {
                let ptsTick = packet.raw.pointee.pts
                let dtsTick = packet.raw.pointee.dts
                let key = packet.raw.pointee.flags & AV_PKT_FLAG_KEY != 0
                let bytes = UnsafeRawBufferPointer(
                    start: packet.raw.pointee.data, count: Int(max(0, packet.raw.pointee.size)))
                // One walk over the packet in place: the parameter sets copied out (keyframes only), the
                // other NAL units counted.
                var sequenceSets: [[UInt8]] = []
                var pictureSets: [[UInt8]] = []
                var others = 0
                H264Bitstream.forEachAnnexBNALUnit(in: bytes) { unit in
                    switch H264Bitstream.nalUnitType(of: unit) {
                    case .sps: sequenceSets.append(Array(unit))
                    case .pps: pictureSets.append(Array(unit))
                    default: others += 1
                    }
                }
                if !sequenceSets.isEmpty, !pictureSets.isEmpty {
                    parameters = H264Parameters(sequenceParameterSets: sequenceSets, pictureParameterSets: pictureSets)
                }
                guard let outputFormat else {
                    throw MediaError(
                        .encoderFailure, "the H.264 encoder gave a packet before any SPS and PPS",
                        ffmpegCall: "avcodec_receive_packet")
                }
                guard others > 0 else { return }  // parameter sets alone: nothing to emit
                let original = pending.removeValue(forKey: ptsTick)
                let pts = original?.presentationTime ?? time(ofTick: ptsTick)
                let dts = dtsTick == mp_nopts_value() ? pts : time(ofTick: dtsTick)
                let duration = original?.duration ?? (time(ofTick: 1) - time(ofTick: 0))
                // AVCC, without the parameter sets (the format carries them), into the recycled sample.
                let sample = samples.make(
                    format: .video(outputFormat),
                    timing: SampleTiming(presentationTime: pts, decodeTime: dts, duration: duration),
                    frameCount: 1, flags: key ? .keyframe : []
                ) { avcc in
                    H264Bitstream.forEachAnnexBNALUnit(in: bytes) { unit in
                        let type = H264Bitstream.nalUnitType(of: unit)
                        guard type != .sps, type != .pps else { return }
                        let length = UInt32(truncatingIfNeeded: unit.count)  // under 2 GiB: an AVPacket's size
                        for shift in stride(from: 24, through: 0, by: -8) {
                            avcc.append(UInt8(truncatingIfNeeded: length >> UInt32(shift)))  // NALUnitLength
                        }
                        avcc.append(contentsOf: unit)  // NALUnit
                    }
                }
                try emit(sample)
            }
        }
    }
}

extension H264Encoder: KeyframeForcing {
    /// Codes the next frame as an IDR picture with SPS/PPS in front: what a graph asks when a sink joins
    /// the encoder's branch while it runs. From the thread that runs the encoder; for other threads,
    /// ``keyframeRequest``.
    public func forceKeyframe() { isKeyframeForced = true }
}
