public import ArgumentParser
public import MediaCore
public import MediaFFmpeg

/// `--audio-codec`: the audio encoder.
public enum AudioCodecChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// AAC-LC with FFmpeg's `aac` encoder.
    case aac
    /// Opus with libopus.
    case opus
}

/// `--video-codec`: the video encoder.
public enum VideoCodecChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// H.264 with libx264.
    case h264
    /// HEVC with libx265 (`hvc1` in MP4).
    case hevc
    /// AV1 with SVT-AV1.
    case av1
    /// VP9 with libvpx.
    case vp9

    /// A new encoder of this codec with `settings`.
    public func encoder(settings: VideoEncoderSettings) throws -> sending VideoEncoder {
        switch self {
        case .h264: return try H264Encoder(settings: settings)
        case .hevc: return try HEVCEncoder(settings: settings)
        case .av1: return try AV1Encoder(settings: settings)
        case .vp9: return try VP9Encoder(settings: settings)
        }
    }
}

/// The encoder flags the examples that encode video and audio share (`av-encoder`, `av-mixer`,
/// `transcode`), with the ffmpeg CLI's defaults where a flag is not given.
public struct EncoderOptions: ParsableArguments {
    /// `--video-codec`: H.264, HEVC, AV1 or VP9.
    @Option(
        name: .customLong("video-codec"),
        help:
            "The video codec: h264 (libx264), hevc (libx265; hvc1 in .mp4), av1 (SVT-AV1) or vp9 (libvpx; for .webm, .mkv, .mp4)."
    )
    public var videoCodec = VideoCodecChoice.h264

    /// `--hardware`: a hardware encoder for `--video-codec` when one works here.
    @Flag(
        help:
            "Encode video with a hardware encoder (NVENC, Quick Sync, VA-API, V4L2) when one works here, else with the software one (video-devices --encoders lists them)."
    )
    public var hardware = false

    /// `--bitrate`: the video average bit rate; `nil` for the encoder's constant quality.
    @Option(
        help:
            "The video average bit rate in bits per second (default: the encoder's constant quality, as the ffmpeg CLI: CRF 23 for H.264)."
    )
    public var bitrate: Int?

    /// `--keyint`: the most frames between keyframes.
    @Option(help: "The most frames between keyframes (default: the encoder's, 250 for H.264 and HEVC).")
    public var keyint: Int?

    /// `--preset`: the encoder's speed preset.
    @Option(
        help:
            "The encoder's preset: x264's and x265's ultrafast ... veryslow (default medium), SVT-AV1's 0 ... 13, libvpx's cpu-used 0 ... 8."
    )
    public var preset: String?

    /// `--audio-bitrate`: the audio encoder's bit rate.
    @Option(name: .customLong("audio-bitrate"), help: "The audio bit rate in bits per second.")
    public var audioBitrate = 128_000

    /// `--audio-codec`: AAC or Opus.
    @Option(
        name: .customLong("audio-codec"),
        help:
            "The audio codec: aac (FFmpeg's AAC-LC encoder) or opus (libopus, at 48 kHz; for .webm, .mkv, .ogg, .mp4).")
    public var audioCodec = AudioCodecChoice.aac

    /// The defaults.
    public init() {}

    /// Refuses non-positive rates and intervals.
    public func validate() throws {
        if let bitrate, bitrate <= 0 { throw ValidationError("--bitrate must be positive") }
        if let keyint, keyint <= 0 { throw ValidationError("--keyint must be positive") }
        if !(1_000...2_000_000).contains(audioBitrate) {
            throw ValidationError("--audio-bitrate must be 1000 to 2000000")
        }
    }

    /// The audio encoder these flags give: ``/MediaFFmpeg/AACEncoder`` or ``/MediaFFmpeg/OpusEncoder`` at
    /// `--audio-bitrate`.
    public func audioEncoder() throws -> sending any MediaStage {
        switch audioCodec {
        case .aac: return try AACEncoder(bitRate: audioBitrate)
        case .opus: return try OpusEncoder(settings: opusSettings)
        }
    }

    /// The Opus settings these flags give: `--audio-bitrate`, libopus's defaults otherwise.
    public var opusSettings: OpusEncoder.Settings {
        var settings = OpusEncoder.Settings()
        settings.bitRate = audioBitrate
        return settings
    }

    /// The video encoder these flags give: `--video-codec` with ``videoSettings(realTime:)``.
    public func videoEncoder(realTime: Bool = false) throws -> sending VideoEncoder {
        guard hardware else { return try videoCodec.encoder(settings: videoSettings(realTime: realTime)) }
        let family = VideoEncoderFamily(rawValue: videoCodec.rawValue) ?? .h264
        let name = VideoEncoderProbe.encoderName(for: family, preferringHardware: true)
        return try family.encoder(settings: videoSettings(realTime: realTime), encoderName: name)
    }

    /// The video settings these flags give (`realTime` tunes for live use: no lookahead, no reordering).
    public func videoSettings(realTime: Bool = false) -> VideoEncoderSettings {
        var settings = VideoEncoderSettings()
        settings.realTime = realTime
        settings.averageBitRate = bitrate
        settings.maxKeyFrameInterval = keyint
        settings.preset = preset
        return settings
    }
}
