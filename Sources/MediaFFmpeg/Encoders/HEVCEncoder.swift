internal import CMediaFFmpeg
import MediaBitstream
public import MediaCore

/// Encodes raw video frames to HEVC (H.265): VideoToolbox's `VTCompressionSession` with
/// `kCMVideoCodecType_HEVC`, or GStreamer's `x265enc`.
///
/// ```swift
/// var settings = HEVCEncoder.Settings()
/// settings.averageBitRate = 1_000_000
/// settings.preset = "fast"
/// let encoder = try HEVCEncoder(settings: settings)
/// ```
///
/// - Input: raw frames of `yuv420p`, `yuv422p`, `yuv444p` or their 10-bit forms (Main, Main 10 and
///   the range extensions), as ``VideoEncoder`` says.
/// - Output: one access unit per sample, its NAL units each preceded by a 4-byte big-endian length, in
///   a format ``/MediaCore/VideoCodec/other(fourCC:)`` `'hvc1'` whose
///   ``/MediaCore/VideoFormat/codecConfiguration`` is the `hvcC` record with the VPS, SPS and PPS
///   (``/MediaBitstream/HEVCDecoderConfigurationRecord``): what an MP4 `hvc1` track, Matroska and
///   Apple's players take, and what a demuxer hands out for HEVC from MP4. For MPEG-TS the muxer puts
///   the parameter sets back in front of each keyframe.
///
/// Opened as the `ffmpeg` CLI opens libx265 for MP4 or Matroska (`AV_CODEC_FLAG_GLOBAL_HEADER`: the
/// parameter sets once, not before each keyframe), with x265's defaults where a setting is `nil`, so
/// the same settings give the CLI's packets (`ffmpeg -i in.y4m -c:v libx265 -preset fast -b:v 1M
/// out.mp4`). A forced keyframe (``VideoEncoder/forceKeyframe()``) is an IDR picture (`forced-idr`).
/// ``VideoEncoderSettings/level`` becomes `level-idc`. x265 prints its own log to standard error, as
/// under the CLI (it does not go through FFmpeg's): `encoderOptions["x265-params"] = "log-level=error"`
/// quiets it, at the cost of a different options string in the stream's SEI (x265 writes its settings
/// there).
///
/// Backed by libavcodec's `libx265` (or another HEVC encoder by name: `hevc_vaapi`, `hevc_nvenc`;
/// ``VideoEncoderProbe`` says which can run here).
public final class HEVCEncoder: VideoEncoder {
    /// An encoder with `settings`, backed by the libavcodec encoder named `encoderName`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` when this FFmpeg build has no such encoder;
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` for a setting out of range.
    public init(settings: Settings = Settings(), encoderName: String = "libx265") throws(MediaError) {
        try super.init(HEVCCodec(encoderName: encoderName), settings: settings)
    }
}

/// libx265 (or an HEVC encoder by name) in the video encoder session: global header, the `hvcC` record
/// built from its VPS/SPS/PPS, access units rewritten from start codes to 4-byte lengths.
struct HEVCCodec: VideoEncoderCodec {
    let encoderName: String
    var name: String { "HEVC" }
    var usesGlobalHeader: Bool { true }
    /// libx265's planar formats; hardware encoders take nv12 too.
    var acceptedPixelFormats: Set<PixelFormat> {
        let planar: Set<PixelFormat> = [.yuv420p, .yuv422p, .yuv444p, .yuv420p10le, .yuv422p10le, .yuv444p10le]
        return encoderName == "libx265" ? planar : planar.union([.nv12])
    }

    func options(for settings: VideoEncoderSettings, context: UnsafeMutablePointer<AVCodecContext>)
        -> [(String, String)]
    {
        guard encoderName == "libx265" else { return settings.profile.map { [("profile", $0)] } ?? [] }
        var options: [(String, String)] = []
        if let preset = settings.preset { options.append(("preset", preset)) }
        if settings.realTime { options.append(("tune", "zerolatency")) }
        if let profile = settings.profile { options.append(("profile", profile)) }
        options.append(("forced-idr", "1"))
        if let level = settings.level { options.append(("x265-params", "level-idc=\(level)")) }
        return options
    }

    func openedFormat(_ context: UnsafeMutablePointer<AVCodecContext>, base: VideoFormat) throws(MediaError)
        -> VideoFormat?
    {
        guard let extradata = context.pointee.extradata, context.pointee.extradata_size > 0 else { return nil }
        let header = UnsafeRawBufferPointer(start: extradata, count: Int(context.pointee.extradata_size))
        return try format(base, units: H264Bitstream.annexBNALUnits(header))
    }

    func inspect(_ packet: UnsafeRawBufferPointer, current: VideoFormat?, base: VideoFormat) -> (
        format: VideoFormat?, hasPicture: Bool
    ) {
        // One walk in place (no array per packet): whether a coded slice is there.
        var hasPicture = false
        H264Bitstream.forEachAnnexBNALUnit(in: packet) { unit in
            if HEVCDecoderConfigurationRecord.nalUnitType(of: unit) < 32 { hasPicture = true }
        }
        guard current == nil else { return (current, hasPicture) }
        // An encoder without global header: the parameter sets of the first keyframe.
        return ((try? format(base, units: H264Bitstream.annexBNALUnits(packet))) ?? nil, hasPicture)
    }

    func write(_ packet: UnsafeRawBufferPointer, into payload: inout [UInt8]) {
        H264Bitstream.forEachAnnexBNALUnit(in: packet) { unit in
            let length = UInt32(truncatingIfNeeded: unit.count)  // under 2 GiB: an AVPacket's size
            for shift in stride(from: 24, through: 0, by: -8) {
                payload.append(UInt8(truncatingIfNeeded: length >> UInt32(shift)))
            }
            payload.append(contentsOf: unit)
        }
    }

    private func format(_ base: VideoFormat, units: [some Collection<UInt8>]) throws(MediaError) -> VideoFormat? {
        guard units.contains(where: { HEVCDecoderConfigurationRecord.nalUnitType(of: $0) == 33 }) else { return nil }
        var format = base
        format.codec = .other(fourCC: FourCC("hvc1").rawValue)
        do {
            format.codecConfiguration = try HEVCDecoderConfigurationRecord(nalUnits: units).bytes
        } catch {
            throw MediaError(
                .encoderFailure, "the HEVC encoder gave parameter sets that cannot be read: \(error.message)",
                ffmpegCall: "avcodec_open2")
        }
        return format
    }
}
