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
/// ``VideoEncoder/finish(into:)`` drains the frames the encoder holds back (lookahead, B-frames).
///
/// The average bit rate can change while the encoder runs, from the next frame on
/// (``setAverageBitRate(_:)``, or a ``/MediaCore/BitRateControl`` another thread writes, as a live
/// stream's ``/MediaStreaming/AdaptiveBitRate`` does); in constant-quality mode (no ``VideoEncoderSettings/averageBitRate``)
/// it cannot, and a control is refused with ``/MediaCore/MediaError/Code/invalidArgument``.
///
/// Backed by libavcodec's `libx264` encoder (or another by name, e.g. `h264_nvenc`, `h264_vaapi`),
/// `avcodec_send_frame` / `avcodec_receive_packet`, in the session every ``VideoEncoder``
/// shares.
public final class H264Encoder: VideoEncoder {
    /// The control this encoder reads its target bit rate from before each frame, if any.
    public let bitRateControl: BitRateControl?

    /// An encoder with `settings`, backed by the libavcodec encoder named `encoderName`.
    ///
    /// Throws ``/MediaCore/MediaError/Code/unavailable`` when this FFmpeg build has no such encoder, and
    /// ``/MediaCore/MediaError/Code/invalidArgument`` for a setting out of range. Whether hardware encoders
    /// (`h264_nvenc`, `h264_vaapi`) can run is known only when the first frame opens them: that throws
    /// ``/MediaCore/MediaError/Code/unavailable`` too (``VideoEncoderProbe`` asks beforehand).
    public convenience init(settings: Settings = Settings(), encoderName: String = "libx264") throws(MediaError) {
        try self.init(settings: settings, encoderName: encoderName, bitRateControl: nil)
    }

    /// An encoder with `settings`, backed by the libavcodec encoder named `encoderName`, whose average
    /// bit rate follows `bitRateControl` (see ``setAverageBitRate(_:)``; `nil`: as the initializer
    /// without it).
    ///
    /// Throws as ``init(settings:encoderName:)``, and ``/MediaCore/MediaError/Code/invalidArgument`` for a
    /// `bitRateControl` without ``VideoEncoderSettings/averageBitRate`` (constant quality has no bit rate
    /// to change).
    public init(
        settings: Settings = Settings(), encoderName: String = "libx264", bitRateControl: BitRateControl?
    ) throws(MediaError) {
        if bitRateControl != nil, settings.averageBitRate == nil {
            throw MediaError(
                .invalidArgument,
                "H264Encoder bitRateControl needs averageBitRate: constant quality (CRF) has no bit rate to change")
        }
        self.bitRateControl = bitRateControl
        try super.init(
            H264Codec(encoderName: encoderName), settings: settings,
            ratePlan: H264RatePlan(settings: settings, control: bitRateControl))
    }
}

/// libx264 (or an H.264 encoder by name) in a ``VideoEncoderSession``: opened without
/// `AV_CODEC_FLAG_GLOBAL_HEADER`, as the CLI opens it for raw H.264 (x264's rate control counts the
/// SPS/PPS it repeats before each IDR frame, so a global-header encode is a different stream); the
/// parameter sets are read from the packets into the format and stripped, the rest written as AVCC.
struct H264Codec: VideoEncoderCodec {
    let encoderName: String
    var name: String { "H.264" }
    var usesGlobalHeader: Bool { false }
    /// libx264's planar 8- and 10-bit formats, and nv12.
    var acceptedPixelFormats: Set<PixelFormat> {
        [.yuv420p, .yuv422p, .yuv444p, .nv12, .yuv420p10le, .yuv422p10le, .yuv444p10le]
    }

    func options(for settings: VideoEncoderSettings, context: UnsafeMutablePointer<AVCodecContext>)
        -> [(String, String)]
    {
        guard encoderName == "libx264" || encoderName == "libx264rgb" else {
            // Hardware encoders take the profile; their presets are named differently.
            return settings.profile.map { [("profile", $0)] } ?? []
        }
        var options: [(String, String)] = [("preset", settings.preset ?? "medium")]
        if settings.realTime { options.append(("tune", "zerolatency")) }
        if let profile = settings.profile { options.append(("profile", profile)) }
        if let level = settings.level { options.append(("level", level)) }
        return options
    }

    func openedFormat(_ context: UnsafeMutablePointer<AVCodecContext>, base: VideoFormat) -> VideoFormat? {
        // Encoders that give global headers anyway (Annex-B extradata).
        guard let extradata = context.pointee.extradata, context.pointee.extradata_size > 0 else { return nil }
        let header = Array(UnsafeBufferPointer(start: extradata, count: Int(context.pointee.extradata_size)))
        return format(base, H264Bitstream.parameterSets(in: H264Bitstream.annexBNALUnits(header)))
    }

    func inspect(_ packet: UnsafeRawBufferPointer, current: VideoFormat?, base: VideoFormat) -> (
        format: VideoFormat?, hasPicture: Bool
    ) {
        // One walk over the packet in place: the parameter sets copied out (keyframes only), the other
        // NAL units counted.
        var sequenceSets: [[UInt8]] = []
        var pictureSets: [[UInt8]] = []
        var others = 0
        H264Bitstream.forEachAnnexBNALUnit(in: packet) { unit in
            switch H264Bitstream.nalUnitType(of: unit) {
            case .sps: sequenceSets.append(Array(unit))
            case .pps: pictureSets.append(Array(unit))
            default: others += 1
            }
        }
        guard !sequenceSets.isEmpty, !pictureSets.isEmpty else { return (current, others > 0) }
        let parameters = H264Parameters(sequenceParameterSets: sequenceSets, pictureParameterSets: pictureSets)
        return (format(base, parameters), others > 0)
    }

    /// AVCC, without the parameter sets (the format carries them).
    func write(_ packet: UnsafeRawBufferPointer, into avcc: inout [UInt8]) {
        H264Bitstream.forEachAnnexBNALUnit(in: packet) { unit in
            let type = H264Bitstream.nalUnitType(of: unit)
            guard type != .sps, type != .pps else { return }
            let length = UInt32(truncatingIfNeeded: unit.count)  // under 2 GiB: an AVPacket's size
            for shift in stride(from: 24, through: 0, by: -8) {
                avcc.append(UInt8(truncatingIfNeeded: length >> UInt32(shift)))  // NALUnitLength
            }
            avcc.append(contentsOf: unit)  // NALUnit
        }
    }

    private func format(_ base: VideoFormat, _ parameters: H264Parameters?) -> VideoFormat? {
        guard let parameters else { return nil }
        var format = base
        format.codec = .h264
        format.h264 = parameters
        return format
    }
}
