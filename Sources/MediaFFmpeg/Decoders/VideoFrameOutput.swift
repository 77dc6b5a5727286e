internal import CMediaFFmpeg
import MediaBitstream
import MediaCore

/// The video decoders' side of decoding (``H264Decoder``'s and ``VideoDecoder``'s), on the decoder's
/// thread whichever thread decoded: it turns input samples into ``H264AccessUnit``s (packet times, and
/// for H.264 the parameter sets) and decoded frames into samples, timed by the rules ``H264Decoder``
/// documents, in the order they are given.
///
/// A frame is given with the index of the access unit whose decoding released it (for a frame drained
/// at the end of the stream or of a group of pictures, the last one given before); a
/// ``/MediaCore/MediaSample/Flags/discontinuity`` on access unit `i` applies from the first frame
/// released by `i` on, as when the frames were received right after sending `i`.
final class VideoFrameOutput {
    /// The timescale of packet and frame timestamps: the first sample's.
    let timescale: Int32
    /// The first sample's parameter sets: a decoder's extradata.
    let initialParameters: H264Parameters?
    /// How frames are timed: by the input's presentation times, or by its decode times when those
    /// are placeholders (see ``H264Decoder``).
    private var clock: FrameClock
    private var parameters: H264Parameters?
    private var frameRate: FrameRate?
    /// Input durations by the tick the frames are timed by (presentation or decode), to give each
    /// frame its access unit's duration.
    private var durations: [Int64: MediaTime] = [:]
    /// How many entries ``durations`` may hold before those of frames that never came are dropped.
    private let durationLimit: Int
    /// Access units flagged as discontinuities whose frames have not been emitted yet.
    private var discontinuities: [Int64] = []
    /// The tick and duration of the frame emitted last: the next must come after it.
    private var lastTick: Int64?
    private var lastDuration: MediaTime = .invalid
    /// The emitted samples' storage, reused once a consumer has let go of a sample.
    private var recycler = SampleRecycler()
    /// The format of the last frame emitted, reused while the next frames have the same.
    private var lastFormat: VideoFormat?
    /// Access units given so far.
    private(set) var accessUnitCount: Int64 = 0
    /// Frames emitted, and those among them the decoder marked as damaged.
    private(set) var frameCount: Int64 = 0
    private(set) var damagedFrameCount: Int64 = 0
    /// Damaged frames emitted and not yet reported, by the access unit that released them, in order.
    private(set) var unreportedDamage: [(accessUnit: Int64, count: Int64)] = []
    /// The decode ticks of the last access units given (the first is access unit ``decodeTicksBase``),
    /// kept for ``decodeTick(of:)`` when `keptDecodeTicks` is not 0.
    private var decodeTicks: [Int64] = []
    private var decodeTicksBase: Int64 = 0
    private let keptDecodeTicks: Int

    /// The output for a stream whose first sample has `format` and `timing`, holding the durations of
    /// up to `pendingAccessUnits` access units whose frames have not come out yet.
    init(first format: VideoFormat, timing: SampleTiming, pendingAccessUnits: Int = 256, keepsDecodeTicks: Bool = false)
    {
        let pts = timing.presentationTime
        let dts = timing.decodeTime
        clock = FrameClock(presentation: pts, decode: dts)
        let reference = pts.isNumeric ? pts : dts
        timescale = reference.isNumeric ? reference.timescale : (format.frameRate?.numerator ?? 90_000)
        frameRate = format.frameRate
        initialParameters = format.h264
        parameters = format.h264
        durationLimit = max(256, pendingAccessUnits)
        keptDecodeTicks = keepsDecodeTicks ? durationLimit + 32 : 0
    }

    /// The decode time, in ticks, of access unit `index` when it has been given and is among the last
    /// `pendingAccessUnits` (a frame drained at the end of a group of pictures is timed by the access
    /// unit after the group that would have released it in one decoder).
    func decodeTick(of index: Int64) -> Int64? {
        let at = index - decodeTicksBase
        guard at >= 0, at < Int64(decodeTicks.count) else { return nil }
        return decodeTicks[Int(at)]
    }

    private func ticks(_ time: MediaTime) -> Int64 {
        let converted = time.converted(to: timescale)
        return converted.isNumeric ? converted.value : mp_nopts_value()
    }

    /// The next access unit: `sample`, of `format`, already walked (`scan`). New parameter sets (the
    /// format's differ from the previous sample's) go in-band before it.
    func accept(_ sample: MediaSample, format: VideoFormat) -> H264AccessUnit {
        defer { accessUnitCount += 1 }
        var inBand: [[UInt8]] = []
        if let new = format.h264, new != parameters {
            inBand = new.sequenceParameterSets + new.pictureParameterSets
            parameters = new
        }
        if let rate = format.frameRate { frameRate = rate }
        if sample.flags.contains(.discontinuity) { discontinuities.append(accessUnitCount) }
        let dts = ticks(sample.timing.effectiveDecodeTime)
        if keptDecodeTicks > 0 {
            if decodeTicks.count >= 2 * keptDecodeTicks {
                let dropped = decodeTicks.count - keptDecodeTicks
                decodeTicks.removeFirst(dropped)  // in place, once per `keptDecodeTicks` access units
                decodeTicksBase += Int64(dropped)
            }
            decodeTicks.append(dts)
        }
        // Placeholder presentation times are not handed on: the frames are timed by decode time.
        let pts = clock == .presentation ? ticks(sample.timing.presentationTime) : mp_nopts_value()
        var duration: Int64?
        if sample.timing.duration.isNumeric {
            duration = ticks(sample.timing.duration)
            let key = clock == .presentation ? pts : dts
            if key != mp_nopts_value() {
                // Entries of frames that never came (damage) are dropped once they are past.
                if durations.count >= durationLimit, let last = lastTick {
                    durations = durations.filter { $0.key > last }
                }
                durations[key] = sample.timing.duration
            }
        }
        return H264AccessUnit(
            index: accessUnitCount, sample: sample, inBand: inBand, pts: pts, dts: dts, duration: duration,
            isKeyframe: sample.flags.contains(.keyframe))
    }

    /// Emits the frame in `slot`, released by access unit `releasedBy`, as a sample; `decodeTick`, when
    /// given, is that access unit's decode time instead of the frame's `pkt_dts`.
    func emit(
        _ slot: FrameSlot, releasedBy: Int64, decodeTick: Int64? = nil, into emit: (MediaSample) throws -> Void
    ) throws {
        while let first = discontinuities.first, first <= releasedBy {
            lastTick = nil
            discontinuities.removeFirst()
        }
        let raw = slot.frame.raw.pointee
        let format = try outputFormat(of: raw)
        let (ptsTick, duration) = frameTime(raw, decodeTick: decodeTick ?? raw.pkt_dts)
        let pts = ptsTick == mp_nopts_value() ? MediaTime.invalid : MediaTime(value: ptsTick, timescale: timescale)
        let timing = SampleTiming(presentationTime: pts, decodeTime: pts, duration: duration)
        let flags: MediaSample.Flags = raw.key_frame != 0 ? .keyframe : []
        frameCount += 1
        if raw.decode_error_flags != 0 || raw.flags & AV_FRAME_FLAG_CORRUPT != 0 {
            damagedFrameCount += 1
            if let last = unreportedDamage.last, last.accessUnit == releasedBy {
                unreportedDamage[unreportedDamage.count - 1].count += 1
            } else {
                unreportedDamage.append((releasedBy, 1))
            }
        }
        let pixels = format.pixelFormat ?? .yuv420p
        let rowBytes = format.bytesPerRow
        func rows(_ plane: Int) -> Int { pixels.planeSize(plane, width: format.width, height: format.height).rows }
        let sample: MediaSample
        if rowBytes.indices.allSatisfy({ slot.linesize($0) == rowBytes[$0] }) {
            // FFmpeg's rows are already tightly packed (every line size a multiple of its alignment:
            // 1280, 1920 wide...): the sample borrows the decoder's planes.
            sample = recycler.make(
                format: .video(format), timing: timing, frameCount: 1, flags: flags, planeCount: rowBytes.count,
                owner: slot
            ) { plane in slot.plane(plane, rows: rows(plane), rowBytes: rowBytes[plane]) }
        } else {
            // Padded rows: packed into the sample's own (recycled) buffers.
            sample = recycler.make(
                format: .video(format), timing: timing, frameCount: 1, flags: flags, planeCount: rowBytes.count
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

    /// Takes the damage reports not taken yet.
    func takeDamageReports() -> [(accessUnit: Int64, count: Int64)] {
        guard !unreportedDamage.isEmpty else { return [] }
        defer { unreportedDamage.removeAll(keepingCapacity: true) }
        return unreportedDamage
    }

    /// Lets go of the storage kept for the next sample (the end of the stream).
    func finish() { recycler.removeAll() }

    /// The tick and duration of the frame `raw` (see ``H264Decoder``'s output times): by
    /// presentation time while those increase, else by `decodeTick`, the decode time of the access
    /// unit whose decoding released the frame, else the previous frame's tick plus its duration.
    private func frameTime(_ raw: AVFrame, decodeTick: Int64) -> (tick: Int64, duration: MediaTime) {
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
        if clock == .decode, isNext(decodeTick) { tick = decodeTick }
        if clock == .decode, decodeTick == none {
            // A decoder that gives no decode time (libdav1d): the frame's own time, when it is the next.
            let presented = raw.best_effort_timestamp != none ? raw.best_effort_timestamp : raw.pts
            if isNext(presented) { tick = presented }
        }
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

@available(*, unavailable) extension VideoFrameOutput: Sendable {}

/// How ``H264Decoder`` times its frames: by the input's presentation times, or by its decode times when
/// the presentation times are decode-order placeholders.
enum FrameClock {
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
