internal import CMediaFFmpeg
public import Logging
import MediaBitstream
public import MediaCore

/// Decodes H.264 access units to raw frames: VideoToolbox's `VTDecompressionSession`, or GStreamer's
/// `avdec_h264`.
///
/// - Input: AVCC samples (4-byte length before each NAL unit), one access unit per sample, whose format
///   carries the SPS and PPS (``/MediaCore/VideoFormat/h264``), as ``H264Encoder`` and the Annex-B reader give them.
///   In-band parameter sets are fine too. When a sample's parameter sets differ from the previous
///   sample's, the new ones are fed to the decoder before it. Samples are read with
///   ``/MediaBitstream/AVCCParser``, as `AnnexBMuxer` and ``ContainerMuxer`` read them: a length past the
///   end throws ``/MediaCore/MediaError/Code/truncated`` with its byte offset, a zero-length NAL unit is
///   skipped and reported to ``logger`` (code `emptyNALUnitsSkipped`).
/// - Output: one raw frame per picture, in presentation order, tightly packed, in the pixel format the
///   stream has (`yuv420p` for 8-bit 4:2:0; `yuv422p`, `yuv444p`, `gray` for other 8-bit streams;
///   `yuv420p10le`, `yuv422p10le`, `yuv444p10le` for High 10 / High 4:2:2 / High 4:4:4 at 10 bits:
///   ``VideoConverter`` brings them to 8 bits); a stream in a format ``/MediaCore/PixelFormat`` has no
///   case for (9 or 12–14 bits, 10-bit grey) throws
///   ``/MediaCore/MediaError/Code/unsupportedFormat``. Each frame has the input's frame rate, and the pixel aspect
///   ratio and chroma location the stream gives (the SPS's VUI; H.264's default chroma location is left).
/// - Zero-copy: where FFmpeg's rows are already tightly packed (every line size a multiple of its
///   alignment: 1280, 1920 wide...), a frame borrows the decoder's picture buffers
///   (``/MediaCore/MediaSample/borrowsMemory``) instead of copying them, as `VTDecompressionSession` hands
///   out its `CVPixelBuffer`s; the buffers go back to the decoder when the last copy of the sample goes,
///   on any thread. Other sizes are packed into buffers that are reused once a consumer lets go.
/// - Output times: strictly increasing presentation times (after a sample flagged
///   ``/MediaCore/MediaSample/Flags/discontinuity`` they start afresh), timed in one of two ways, chosen
///   by the first sample:
///   - When its presentation time is after its decode time, or it has no separate decode time, the
///     input's presentation times are taken as real: each frame has the presentation time and
///     duration of the access unit it came from (FFmpeg's `best_effort_timestamp`).
///   - When it has no presentation time, or one that is not after its decode time, they are not
///     presentation times: a stream that reorders frames presents its first access unit at least the
///     reorder delay after decoding it. They are decode-order placeholders (a raw `.h264` has no
///     times: `AnnexBReader` and ``ContainerDemuxer`` time it in decode order, presentation = decode
///     time, and `ffmpeg -c copy` writes that into an MP4), with which the frames of a stream with
///     B-frames would come out of order. The frames are then timed by decode time, as the ffmpeg CLI
///     times them: each frame gets the decode time of the access unit whose decoding released it (the
///     earliest presentation the decode times allow; for a stream without reordering, its own), and
///     the frames drained at the end follow at their durations. So a raw `.h264` from
///     ``ContainerDemuxer``, whose decode times start the reorder delay before zero, decodes to frames
///     at 0, 1, 2, ... frame durations, as with the ffmpeg CLI.
///   A frame whose presentation time would not be after the previous frame's (out of order after
///   all) switches to timing by decode time for the rest of the stream; where that gives no later time
///   either (the frames drained at the end), the frame follows the previous one at its duration.
///
/// A sample the decoder rejects throws ``/MediaCore/MediaError/Code/decoderFailure``; the driver (or a
/// ``/MediaCore/CheckedStage``) stamps it with the sample's index. Damage the
/// decoder gets past is not silent either, though it does not stop decoding (as with the ffmpeg CLI
/// without `-xerror`, and VideoToolbox's per-frame status): ``damagedFrameCount`` counts the frames
/// it emitted with errors concealed, and ``missingFrameCount`` the access units that gave no frame.
/// ``finish(into:)`` drains the frames held back for reordering. Backed by FFmpeg's `h264` decoder
/// (`avcodec_send_packet` / `avcodec_receive_frame`).
public final class H264Decoder: MediaStage, DiagnosticReporting {
    private var session: Session?
    private var index: Int64 = 0
    /// Whether ``finish(into:)`` has emitted everything the decoder held back.
    private var drained = false

    /// Access units given to ``process(_:into:)`` so far.
    public var accessUnitCount: Int64 { index }

    /// Frames emitted so far.
    public var frameCount: Int64 { session?.frameCount ?? 0 }

    /// Frames emitted that FFmpeg's decoder marked as damaged (`decode_error_flags`, or
    /// `AV_FRAME_FLAG_CORRUPT`): their picture has errors concealed.
    public var damagedFrameCount: Int64 { session?.damagedFrameCount ?? 0 }

    /// Once ``finish(into:)`` has returned: how many access units gave no frame, because the decoder
    /// could not decode them (damaged or missing references); 0 before (frames held back for
    /// reordering are not missing yet). Counted for frame-coded streams, where
    /// every access unit is one frame; a stream of separately coded fields pairs two into one.
    public var missingFrameCount: Int64 { drained ? max(0, accessUnitCount - frameCount) : 0 }

    /// Where concealment is reported: a warning (code `framesConcealed`, with `stage`, `sampleIndex` of
    /// the access unit and `count` of damaged frames) for each access unit whose decoding emitted damaged
    /// frames, and one (code `framesMissing`, `count`) at the end when access units gave no frame. `nil`
    /// (the default) logs nothing; nothing is logged for a clean stream.
    public var logger: Logger?

    /// A decoder; it opens on the first sample.
    public init() {
        FFmpeg.quietLogging()
    }

    /// Decodes one access unit; emits the frames that are ready.
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        guard case .video(let input) = sample.format, input.codec == .h264 else {
            throw MediaError.formatMismatch(stage: name, expected: "H.264 video", actual: sample.format)
        }
        defer { index += 1 }
        if session == nil { session = try Session(first: input, timing: sample.timing) }
        guard let session else { return }
        let damagedBefore = session.damagedFrameCount
        defer {
            if session.damagedFrameCount > damagedBefore {
                let count = session.damagedFrameCount - damagedBefore
                MediaDiagnostic(
                    .warning,
                    "H.264 access unit \(index) decoded to \(count) \(count == 1 ? "frame" : "frames") with errors concealed.",
                    metadata: [
                        DiagnosticKey.stage: name, DiagnosticKey.code: "framesConcealed",
                        DiagnosticKey.sampleIndex: String(index), DiagnosticKey.count: String(count)
                    ]
                ).log(to: logger)
            }
        }
        try session.decode(sample, format: input, into: emit)
        if let (warning, offset) = session.emptyNALUnits {
            MediaDiagnostic(
                .warning, "H.264 access unit \(index): \(warning).",
                metadata: [
                    DiagnosticKey.stage: name, DiagnosticKey.code: "emptyNALUnitsSkipped",
                    DiagnosticKey.sampleIndex: String(index), DiagnosticKey.byteOffset: String(offset)
                ]
            ).log(to: logger)
        }
    }

    /// Drains the decoder: emits every frame it still holds.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        let damagedBefore = session?.damagedFrameCount ?? 0
        try session?.drain(into: emit)
        drained = true
        // Frames the decoder held back (reordering, frame threads) come out here: their concealment is
        // reported too, against the last access unit, so that the warnings add up to damagedFrameCount.
        if let session, session.damagedFrameCount > damagedBefore {
            let count = session.damagedFrameCount - damagedBefore
            MediaDiagnostic(
                .warning,
                "H.264 decoder drained \(count: count, "frame") with errors concealed at the end of the stream.",
                metadata: [
                    DiagnosticKey.stage: name, DiagnosticKey.code: "framesConcealed",
                    DiagnosticKey.sampleIndex: String(max(index - 1, 0)), DiagnosticKey.count: String(count)
                ]
            ).log(to: logger)
        }
        let missing = missingFrameCount
        if missing > 0 {
            MediaDiagnostic(
                .warning,
                "\(missing) of \(accessUnitCount) H.264 access \(missing == 1 ? "unit" : "units") gave no frame.",
                metadata: [
                    DiagnosticKey.stage: name, DiagnosticKey.code: "framesMissing", DiagnosticKey.count: String(missing)
                ]
            ).log(to: logger)
        }
    }
}

@available(*, unavailable) extension H264Decoder: Sendable {}

extension H264Decoder {
    /// The open decoder and the timing bookkeeping.
    fileprivate final class Session {
        private let codec: CodecContext
        /// The decoded frames the emitted samples borrow their planes from.
        private let frames = FramePool()
        /// The emitted samples' storage, reused once a consumer has let go of a sample.
        private var recycler = SampleRecycler()
        /// The format of the last frame emitted, reused while the next frames have the same.
        private var lastFormat: VideoFormat?
        private let packet: Packet
        /// The buffers of the packets given to the decoder.
        private let packetBuffers = PacketBufferPool()
        private var parameters: H264Parameters?
        private var frameRate: FrameRate?
        /// The timescale of packet and frame timestamps: the first sample's.
        private let timescale: Int32
        /// How frames are timed: by the input's presentation times, or by its decode times when those
        /// are placeholders (see ``H264Decoder``).
        private var clock: FrameClock
        /// Input durations by the tick the frames are timed by (presentation or decode), to give each
        /// frame its access unit's duration.
        private var durations: [Int64: MediaTime] = [:]
        /// The tick and duration of the frame emitted last: the next must come after it.
        private var lastTick: Int64?
        private var lastDuration: MediaTime = .invalid
        /// Frames emitted, and those among them the decoder marked as damaged.
        private(set) var frameCount: Int64 = 0
        private(set) var damagedFrameCount: Int64 = 0

        init(first format: VideoFormat, timing: SampleTiming) throws(MediaError) {
            guard let decoder = avcodec_find_decoder(AV_CODEC_ID_H264) else {
                throw MediaError(
                    .unavailable, "this FFmpeg build has no H.264 decoder", ffmpegCall: "avcodec_find_decoder")
            }
            let pts = timing.presentationTime
            let dts = timing.decodeTime
            clock = FrameClock(presentation: pts, decode: dts)
            let reference = pts.isNumeric ? pts : dts
            timescale = reference.isNumeric ? reference.timescale : (format.frameRate?.numerator ?? 90_000)
            frameRate = format.frameRate
            codec = try CodecContext(codec: decoder)
            packet = try Packet()
            let ctx = codec.raw
            ctx.pointee.pkt_timebase = AVRational(num: 1, den: timescale)
            ctx.pointee.thread_count = 0
            if let parameters = format.h264 {
                // The parameter sets as Annex-B extradata: FFmpeg's h264 decoder reads start codes there.
                let header = H264Bitstream.annexB(parameters.sequenceParameterSets + parameters.pictureParameterSets)
                let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
                guard let extradata = av_mallocz(header.count + padding)?.assumingMemoryBound(to: UInt8.self) else {
                    throw MediaError(
                        .outOfMemory, "cannot allocate \(header.count) bytes of extradata", ffmpegCall: "av_mallocz")
                }
                extradata.update(from: header, count: header.count)
                ctx.pointee.extradata = extradata  // freed by avcodec_free_context
                ctx.pointee.extradata_size = Int32(header.count)
                self.parameters = parameters
            }
            try check(avcodec_open2(ctx, decoder, nil), calling: "avcodec_open2", .unsupportedFormat)
        }

        private func ticks(_ time: MediaTime) -> Int64 {
            let converted = time.converted(to: timescale)
            return converted.isNumeric ? converted.value : mp_nopts_value()
        }

        /// What ``AVCCParser`` said about zero-length NAL units in the last access unit decoded, or `nil`.
        private(set) var emptyNALUnits: (warning: String, offset: Int64)?

        func decode(_ sample: MediaSample, format: VideoFormat, into emit: (MediaSample) throws -> Void) throws {
            var inBand: [[UInt8]] = []
            if let new = format.h264, new != parameters {
                // New parameter sets: in-band, before this access unit.
                inBand = new.sequenceParameterSets + new.pictureParameterSets
                parameters = new
            }
            if let rate = format.frameRate { frameRate = rate }
            try sample.withUnsafeBytes { raw in try fillPacket(avcc: raw.assumingMemoryBound(to: UInt8.self), inBand) }
            defer { av_packet_unref(packet.raw) }
            if sample.flags.contains(.discontinuity) { lastTick = nil }
            let dts = ticks(sample.timing.effectiveDecodeTime)
            // Placeholder presentation times are not handed on: the frames are timed by decode time.
            let pts = clock == .presentation ? ticks(sample.timing.presentationTime) : mp_nopts_value()
            packet.raw.pointee.pts = pts
            packet.raw.pointee.dts = dts
            if sample.timing.duration.isNumeric {
                packet.raw.pointee.duration = ticks(sample.timing.duration)
                let key = clock == .presentation ? pts : dts
                if key != mp_nopts_value() {
                    // Entries of frames that never came (damage) are dropped once they are past.
                    if durations.count >= 256, let last = lastTick { durations = durations.filter { $0.key > last } }
                    durations[key] = sample.timing.duration
                }
            }
            if sample.flags.contains(.keyframe) { packet.raw.pointee.flags |= AV_PKT_FLAG_KEY }
            try codec.sendPacket(packet)
            try receive(into: emit)
        }

        /// Puts the access unit `avcc` into ``packet`` as Annex-B, after the parameter sets `inBand`:
        /// written straight into the packet's buffer, without an array per NAL unit. The AVCC walk every
        /// stage shares: zero-length NAL units skipped (and reported), a length past the end refused
        /// with its byte offset.
        private func fillPacket(avcc bytes: UnsafeBufferPointer<UInt8>, _ inBand: [[UInt8]]) throws(MediaError) {
            var parser = try AVCCParser()
            var size = inBand.reduce(0) { $0 + H264Bitstream.startCode.count + $1.count }
            while let unit = try parser.next(in: bytes) { size += H264Bitstream.startCode.count + unit.range.count }
            emptyNALUnits = parser.emptyNALUnitWarning.map { ($0, parser.firstEmptyNALUnitOffset ?? 0) }
            guard size < Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else {
                throw MediaError(.invalidData, "H.264 access unit of \(size) bytes is too large for FFmpeg")
            }
            let output = try packetBuffers.attach(to: packet, count: size)
            var written = 0
            func put(_ unit: UnsafeBufferPointer<UInt8>) {
                for byte in H264Bitstream.startCode {
                    output[written] = byte
                    written += 1
                }
                if let base = unit.baseAddress { (output + written).update(from: base, count: unit.count) }
                written += unit.count
            }
            for unit in inBand { unit.withUnsafeBufferPointer(put) }
            parser = try AVCCParser()
            while let unit = try parser.next(in: bytes) { put(UnsafeBufferPointer(rebasing: bytes[unit.range])) }
        }

        func drain(into emit: (MediaSample) throws -> Void) throws {
            try codec.sendPacket(nil)
            try receive(into: emit)
            recycler.removeAll()
        }

        /// The tick and duration of the frame `raw` (see ``H264Decoder``'s output times): by
        /// presentation time while those increase, else by the decode time of the access unit whose
        /// decoding released the frame, else the previous frame's tick plus its duration.
        private func frameTime(_ raw: AVFrame) -> (tick: Int64, duration: MediaTime) {
            let none = mp_nopts_value()
            func isNext(_ tick: Int64) -> Bool { tick != none && lastTick.map { tick > $0 } ?? true }
            var tick = none
            if clock == .presentation {
                let presented = raw.best_effort_timestamp != none ? raw.best_effort_timestamp : raw.pts
                if isNext(presented) {
                    tick = presented
                } else if presented != none {
                    clock = .decode  // out of order after all: not presentation times
                }
            }
            if clock == .decode, isNext(raw.pkt_dts) { tick = raw.pkt_dts }
            let rateDuration =
                frameRate.map { MediaTime(value: Int64($0.denominator), timescale: $0.numerator) } ?? .invalid
            var duration = tick == none ? nil : durations.removeValue(forKey: tick)
            if tick == none, let last = lastTick {
                // No time of its own (drained at the end): after the previous frame.
                let step = lastDuration.isNumeric ? lastDuration : rateDuration
                tick = last.addingReportingOverflow(step.isNumeric ? max(1, ticks(step)) : 1).partialValue
                duration = step.isNumeric ? step : nil
            }
            let chosen = duration ?? (lastDuration.isNumeric ? lastDuration : rateDuration)
            if tick != none {
                lastTick = tick
                lastDuration = chosen
            }
            return (tick, chosen)
        }

        private func receive(into emit: (MediaSample) throws -> Void) throws {
            while let slot = try frames.receive(from: codec) {
                let raw = slot.frame.raw.pointee
                let format = try outputFormat(of: raw)
                let (ptsTick, duration) = frameTime(raw)
                let pts =
                    ptsTick == mp_nopts_value() ? MediaTime.invalid : MediaTime(value: ptsTick, timescale: timescale)
                let timing = SampleTiming(presentationTime: pts, decodeTime: pts, duration: duration)
                let flags: MediaSample.Flags = raw.key_frame != 0 ? .keyframe : []
                frameCount += 1
                if raw.decode_error_flags != 0 || raw.flags & AV_FRAME_FLAG_CORRUPT != 0 { damagedFrameCount += 1 }
                let pixels = format.pixelFormat ?? .yuv420p
                let rowBytes = format.bytesPerRow
                func rows(_ plane: Int) -> Int {
                    pixels.planeSize(plane, width: format.width, height: format.height).rows
                }
                let sample: MediaSample
                if rowBytes.indices.allSatisfy({ slot.linesize($0) == rowBytes[$0] }) {
                    // FFmpeg's rows are already tightly packed (every line size a multiple of its
                    // alignment: 1280, 1920 wide...): the sample borrows the decoder's planes.
                    sample = recycler.make(
                        format: .video(format), timing: timing, frameCount: 1, flags: flags,
                        planeCount: rowBytes.count, owner: slot
                    ) { plane in slot.plane(plane, rows: rows(plane), rowBytes: rowBytes[plane]) }
                } else {
                    // Padded rows: packed into the sample's own (recycled) buffers.
                    sample = recycler.make(
                        format: .video(format), timing: timing, frameCount: 1, flags: flags,
                        planeCount: rowBytes.count
                    ) { plane, bytes in
                        let source = slot.plane(plane, rows: rows(plane), rowBytes: rowBytes[plane])
                        let stride = slot.linesize(plane)
                        for row in 0..<rows(plane) {
                            bytes.append(contentsOf: source[(row * stride)..<(row * stride + rowBytes[plane])])
                        }
                    }
                    av_frame_unref(slot.frame.raw)
                }
                try emit(sample)
            }
        }

        /// The format of the frame `raw`: the one made for the previous frame when nothing changed, so
        /// that a frame costs no new format (and no new array of line sizes).
        private func outputFormat(of raw: AVFrame) throws(MediaError) -> VideoFormat {
            guard let pixels = PixelFormat(AVPixelFormat(rawValue: raw.format)) else {
                throw MediaError(
                    .unsupportedFormat,
                    "the H.264 stream decodes to \(PixelFormat.name(of: AVPixelFormat(rawValue: raw.format))), which PixelFormat does not represent"
                )
            }
            var format: VideoFormat
            if let last = lastFormat, last.pixelFormat == pixels, last.width == Int(raw.width),
                last.height == Int(raw.height), last.frameRate == frameRate
            {
                format = last
            } else {
                format = VideoFormat.raw(pixels, width: Int(raw.width), height: Int(raw.height), frameRate: frameRate)
            }
            if raw.sample_aspect_ratio.num > 0 && raw.sample_aspect_ratio.den > 0 {
                let ratio = PixelAspectRatio(Int(raw.sample_aspect_ratio.num), Int(raw.sample_aspect_ratio.den))
                if format.pixelAspectRatio != ratio { format.pixelAspectRatio = ratio }
            } else if format.pixelAspectRatio != nil {
                format.pixelAspectRatio = nil
            }
            // AVChromaLocation counts from 1 (0 is unspecified); H.264's chroma_sample_loc_type from 0.
            let location = ChromaLocation(rawValue: Int(raw.chroma_location.rawValue) - 1)
            if format.chromaLocation != location { format.chromaLocation = location }
            lastFormat = format
            return format
        }
    }
}

/// How ``H264Decoder`` times its frames: by the input's presentation times, or by its decode times when
/// the presentation times are decode-order placeholders.
private enum FrameClock {
    case presentation
    case decode

    /// The clock for an input whose first access unit has these times: by decode time when there is
    /// no presentation time or one that is not after the decode time (a placeholder: a stream that
    /// reorders presents its first access unit at least the reorder delay after decoding it; for one
    /// that does not, both clocks give the same times).
    init(presentation: MediaTime, decode: MediaTime) {
        if !presentation.isNumeric || (decode.isNumeric && presentation <= decode) {
            self = .decode
        } else {
            self = .presentation
        }
    }
}
