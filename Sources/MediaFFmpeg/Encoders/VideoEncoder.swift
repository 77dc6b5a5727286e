internal import CMediaFFmpeg
public import Logging
public import MediaCore

/// What every video encoder stage is: raw frames in, one compressed picture per sample out, through the
/// one encoder session they share. ``H264Encoder``, ``HEVCEncoder``, ``AV1Encoder`` and
/// ``VP9Encoder`` are this class with their codec; a graph can hold any of them as a `VideoEncoder`, as
/// `transcode --video-codec` does.
///
/// - Input: raw frames of a pixel format the codec takes (each encoder lists its own), any stride, one
///   frame per sample, presentation times increasing (the first need not be 0). Other formats throw
///   ``/MediaCore/MediaError/Code/formatMismatch``: put a ``VideoConverter`` in front. A format the
///   FFmpeg build's encoder does not list throws ``/MediaCore/MediaError/Code/unsupportedFormat``
///   naming the formats it takes.
/// - Output: one coded picture per sample, its presentation times the input's, decode times in the
///   input's timescale (behind the presentation times when the encoder reorders); keyframes carry
///   ``/MediaCore/MediaSample/Flags/keyframe``. The format (``outputFormat``) carries the parameter sets.
///
/// Frames are mapped to ticks of 1/frame rate, as the `ffmpeg` CLI does; two frames in one tick throw
/// ``/MediaCore/MediaError/Code/invalidData``. ``finish(into:)`` drains the frames the encoder holds
/// back (lookahead, reordering).
public class VideoEncoder: MediaStage, DiagnosticReporting {
    /// Where warnings go (a keyframe the encoder could not honour); `nil` by default.
    public var logger: Logger?
    /// The settings the encoder was created with.
    public let settings: VideoEncoderSettings
    /// The libavcodec encoder's name: `libx264`, `libx265`, `libsvtav1`, `libvpx-vp9`, `hevc_vaapi`, ...
    public let encoderName: String
    /// The output format with the parameter sets (set once the encoder has opened; for H.264, once it
    /// has given its first picture).
    public var outputFormat: VideoFormat? { state.session?.outputFormat }

    /// Where others ask for a keyframe (a ``/MediaStreaming/ReconnectingSink`` after a reconnection, an
    /// app on a viewer's request): read before each frame; when a request is pending, that frame is
    /// coded as a keyframe that starts a closed group, as VideoToolbox's
    /// `kVTEncodeFrameOptionKey_ForceKeyFrame` does. Set it before the encoder is handed to a graph.
    public var keyframeRequest: KeyframeRequest?

    var state: VideoEncoderStageState

    /// A stage for `codec` with `settings`: throws ``/MediaCore/MediaError/Code/unavailable`` when this
    /// FFmpeg build lacks the encoder, ``/MediaCore/MediaError/Code/invalidArgument`` for a setting out of
    /// range or one the codec has no equivalent for.
    init(_ codec: any VideoEncoderCodec, settings: VideoEncoderSettings, ratePlan: H264RatePlan? = nil)
        throws(MediaError)
    {
        guard avcodec_find_encoder_by_name(codec.encoderName) != nil else {
            throw MediaError(
                .unavailable, "this FFmpeg build has no \(codec.name) encoder named \(codec.encoderName)",
                ffmpegCall: "avcodec_find_encoder_by_name")
        }
        let stage = "\(Self.self)"
        try settings.validate(encoder: stage)
        try codec.validate(settings)
        self.settings = settings
        encoderName = codec.encoderName
        state = VideoEncoderStageState(codec, settings: settings, ratePlan: ratePlan)
        FFmpeg.quietLogging()
    }

    /// The class's name (`HEVCEncoder`), for errors and progress.
    public var name: String { String(describing: type(of: self)) }

    /// Encodes one frame; emits the pictures that are ready (none while the encoder looks ahead).
    public func process(_ sample: MediaSample, into emit: (MediaSample) throws -> Void) throws {
        try state.process(sample, stage: name, request: keyframeRequest, logger: logger, into: emit)
    }

    /// Drains the encoder: emits every picture it still holds.
    public func finish(into emit: (MediaSample) throws -> Void) throws {
        try state.finish(into: emit)
    }
}

@available(*, unavailable) extension VideoEncoder: Sendable {}

extension VideoEncoder: KeyframeForcing {
    /// Codes the next frame as a keyframe (an IDR picture for H.264 and HEVC): what a graph asks when a
    /// sink joins the encoder's branch while it runs. From the thread that runs the encoder; for other
    /// threads, ``keyframeRequest``.
    public func forceKeyframe() { state.isKeyframeForced = true }
}
