internal import CMediaFFmpeg
import Glibc
import MediaBitstream
public import MediaCore

/// Encodes raw video frames to AV1, with SVT-AV1 by default or libaom by name: GStreamer's `svtav1enc`
/// and `av1enc`.
///
/// ```swift
/// var settings = AV1Encoder.Settings()
/// settings.preset = "10"                      // SVT-AV1's speed, 0 (slowest) … 13
/// settings.averageBitRate = 800_000
/// let encoder = try AV1Encoder(settings: settings)                          // libsvtav1
/// let reference = try AV1Encoder(settings: settings, encoderName: "libaom-av1")
/// ```
///
/// - Input: raw frames of `yuv420p` or `yuv420p10le` (SVT-AV1's Main profile); libaom takes `yuv422p`,
///   `yuv444p` and their 10-bit forms too. As ``VideoEncoder`` says otherwise.
/// - Output: one temporal unit per sample (OBUs in the low-overhead format, as MP4 and Matroska store
///   them), in a format ``/MediaCore/VideoCodec/other(fourCC:)`` `'av01'` whose
///   ``/MediaCore/VideoFormat/codecConfiguration`` is the sequence header OBU the encoder gives as its
///   global header; the MP4 and Matroska muxers write the `av1C` record from it.
///
/// Opened as the `ffmpeg` CLI opens the encoder for MP4, Matroska or WebM (global header), with the
/// library's defaults where a setting is `nil` (SVT-AV1: preset 10, CRF 35), so the same settings give
/// the CLI's packets. ``VideoEncoderSettings/preset`` is SVT-AV1's `preset` or libaom's `cpu-used`;
/// ``VideoEncoderSettings/profile`` is `"main"`, `"high"` or `"professional"`; a
/// ``VideoEncoderSettings/level`` is refused (the encoders derive it). FFmpeg 5.1's SVT-AV1 wrapper
/// cannot code a keyframe on request (``VideoEncoder/forceKeyframe()``, a ``VideoEncoder/keyframeRequest``;
/// the CLI's `-force_key_frames` is ignored as well): each request is logged as a warning
/// (`keyframeNotHonoured`) and the stream goes on; libaom honours them. SVT-AV1 prints its own log to
/// standard error unless `SVT_LOG` says otherwise: the encoder sets `SVT_LOG=1` (errors only) when the
/// variable is not set.
public final class AV1Encoder: VideoEncoder {
    /// An encoder with `settings`, backed by the libavcodec encoder named `encoderName` (`libsvtav1`,
    /// `libaom-av1`, `librav1e`, `av1_nvenc`, ...).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unavailable`` when this FFmpeg build has no such encoder;
    ///   ``/MediaCore/MediaError/Code/invalidArgument`` for a setting out of range, a level, or a profile
    ///   AV1 does not have.
    public init(settings: Settings = Settings(), encoderName: String = "libsvtav1") throws(MediaError) {
        if encoderName == "libsvtav1" { setenv("SVT_LOG", "1", 0) }
        try super.init(AV1Codec(encoderName: encoderName), settings: settings)
    }
}

/// An AV1 encoder in the video encoder session: global header (the sequence header OBU), packets as
/// they come.
struct AV1Codec: VideoEncoderCodec {
    /// AV1's `seq_profile` by name.
    static let profiles = ["main": Int32(0), "high": 1, "professional": 2]
    let encoderName: String
    var name: String { "AV1" }
    var usesGlobalHeader: Bool { true }
    /// FFmpeg 5.1's libsvtav1 wrapper does not read `pict_type` (the CLI's `-force_key_frames` is
    /// ignored too); libaom's does.
    var honoursKeyframeRequests: Bool { encoderName != "libsvtav1" }
    var acceptedPixelFormats: Set<PixelFormat> {
        switch encoderName {
        case "libsvtav1": return [.yuv420p, .yuv420p10le]
        case "libaom-av1", "librav1e": return [.yuv420p, .yuv422p, .yuv444p, .yuv420p10le, .yuv422p10le, .yuv444p10le]
        default: return [.yuv420p, .nv12, .yuv420p10le]  // hardware encoders
        }
    }

    func validate(_ settings: VideoEncoderSettings) throws(MediaError) {
        if let level = settings.level {
            throw MediaError(.invalidArgument, "AV1Encoder takes no level (\(level)): the encoder derives it")
        }
        if let profile = settings.profile, Self.profiles[profile] == nil {
            throw MediaError(
                .invalidArgument, "AV1Encoder profile \(profile) is not one of main, high and professional")
        }
    }

    func options(for settings: VideoEncoderSettings, context: UnsafeMutablePointer<AVCodecContext>)
        -> [(String, String)]
    {
        if let profile = settings.profile.flatMap({ Self.profiles[$0] }) { context.pointee.profile = profile }
        var options: [(String, String)] = []
        switch encoderName {
        case "libsvtav1":
            if let preset = settings.preset { options.append(("preset", preset)) }
            // `force-key-frames`: SVT-AV1 honours a key frame asked for (`pict_type` I) only with it; it
            // changes nothing else (the packets of a run without a request are the CLI's without it).
            options.append(
                ("svtav1-params", settings.realTime ? "force-key-frames=1:pred-struct=1" : "force-key-frames=1"))
        case "libaom-av1":
            if let preset = settings.preset { options.append(("cpu-used", preset)) }
            if settings.realTime { options += [("usage", "realtime"), ("lag-in-frames", "0")] }
        default:
            break
        }
        return options
    }

    func openedFormat(_ context: UnsafeMutablePointer<AVCodecContext>, base: VideoFormat) -> VideoFormat? {
        var format = base
        format.codec = .other(fourCC: FourCC("av01").rawValue)
        if let extradata = context.pointee.extradata, context.pointee.extradata_size > 0 {
            format.codecConfiguration = Array(
                UnsafeBufferPointer(start: extradata, count: Int(context.pointee.extradata_size)))
        }
        return format
    }
}
