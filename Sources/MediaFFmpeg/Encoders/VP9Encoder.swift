internal import CMediaFFmpeg
import MediaBitstream
public import MediaCore

/// Encodes raw video frames to VP9 with libvpx: GStreamer's `vp9enc`, WebM's video codec.
///
/// ```swift
/// var settings = VP9Encoder.Settings()
/// settings.averageBitRate = 1_000_000
/// settings.encoderOptions = ["row-mt": "1"]
/// let encoder = try VP9Encoder(settings: settings)
/// ```
///
/// - Input: raw frames of `yuv420p` (profile 0), `yuv422p` or `yuv444p` (profile 1), or their 10-bit
///   forms (profiles 2 and 3, when libvpx was built for them), as ``VideoEncoder`` says.
/// - Output: one frame per sample (a superframe where libvpx joins a hidden alternate reference to the
///   frame shown after it, as WebM and MP4 store it), in a format ``/MediaCore/VideoCodec/other(fourCC:)``
///   `'vp09'` whose configuration is its `vpcC` record (``/MediaBitstream/VPCodecConfigurationRecord``:
///   profile, bit depth, chroma subsampling, colours; VP9 has no header of its own that says them), as
///   an MP4 `vp09` sample entry stores it and a demuxer hands it out.
///
/// With the settings `nil`, libvpx's defaults as the `ffmpeg` CLI uses them (`deadline=good`,
/// `cpu-used=1`, an average bit rate of 256 kb/s), so the same settings give the CLI's packets.
/// ``VideoEncoderSettings/preset`` is libvpx's `cpu-used` (`"0"` … `"8"`); ``VideoEncoderSettings/realTime``
/// is `deadline=realtime` without lag; ``VideoEncoderSettings/profile`` is `"0"` … `"3"`; a
/// ``VideoEncoderSettings/level`` is refused.
public final class VP9Encoder: VideoEncoder {
    /// An encoder with `settings`, backed by the libavcodec encoder named `encoderName` (`libvpx-vp9`,
    /// `vp9_vaapi`, `vp9_qsv`).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` when this FFmpeg build has no such encoder;
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` for a setting out of range, a level, or a profile
    ///   other than 0 to 3.
    public init(settings: Settings = Settings(), encoderName: String = "libvpx-vp9") throws(MediaError) {
        try super.init(VP9Codec(encoderName: encoderName), settings: settings)
    }
}

/// libvpx-vp9 (or a VP9 encoder by name) in the video encoder session: packets as they come.
struct VP9Codec: VideoEncoderCodec {
    let encoderName: String
    var name: String { "VP9" }
    var usesGlobalHeader: Bool { true }
    /// libvpx's planar formats; hardware encoders take nv12 too.
    var acceptedPixelFormats: Set<PixelFormat> {
        let planar: Set<PixelFormat> = [.yuv420p, .yuv422p, .yuv444p, .yuv420p10le, .yuv422p10le, .yuv444p10le]
        return encoderName == "libvpx-vp9" ? planar : planar.union([.nv12])
    }

    func validate(_ settings: VideoEncoderSettings) throws(MediaError) {
        if let level = settings.level {
            throw MediaError(.invalidArgument, "VP9Encoder takes no level (\(level)): libvpx derives it")
        }
        if let profile = settings.profile, Int32(profile).map({ (0...3).contains($0) }) != true {
            throw MediaError(.invalidArgument, "VP9Encoder profile \(profile) is not one of 0, 1, 2 and 3")
        }
    }

    func options(for settings: VideoEncoderSettings, context: UnsafeMutablePointer<AVCodecContext>)
        -> [(String, String)]
    {
        if let profile = settings.profile.flatMap({ Int32($0) }) { context.pointee.profile = profile }
        guard encoderName == "libvpx-vp9" else { return [] }
        var options: [(String, String)] = []
        if let preset = settings.preset { options.append(("cpu-used", preset)) }
        if settings.realTime { options += [("deadline", "realtime"), ("lag-in-frames", "0")] }
        return options
    }

    func openedFormat(_ context: UnsafeMutablePointer<AVCodecContext>, base: VideoFormat) -> VideoFormat? {
        var format = base
        format.codec = .other(fourCC: FourCC("vp09").rawValue)
        let ctx = context.pointee
        format.codecConfiguration =
            VP9Configuration.record(
                pixels: ctx.pix_fmt, profile: ctx.profile, range: ctx.color_range, primaries: ctx.color_primaries,
                transfer: ctx.color_trc, matrix: ctx.colorspace, location: ctx.chroma_sample_location)?.bytes ?? []
        return format
    }
}
