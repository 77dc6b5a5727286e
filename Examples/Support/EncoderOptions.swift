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

/// The encoder flags the examples that encode H.264 and AAC share (`av-encoder`, `transcode`), with
/// the ffmpeg CLI's defaults where a flag is not given.
public struct EncoderOptions: ParsableArguments {
    /// `--bitrate`: the H.264 average bit rate; `nil` for CRF 23.
    @Option(help: "The H.264 average bit rate in bits per second (default: CRF 23, as the ffmpeg CLI).")
    public var bitrate: Int?

    /// `--keyint`: the most frames between keyframes.
    @Option(help: "The most frames between H.264 keyframes (default 250).")
    public var keyint: Int?

    /// `--preset`: the x264 preset.
    @Option(help: "The x264 preset (ultrafast ... veryslow; default medium).")
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

    /// The H.264 settings these flags give (`realTime` tunes for zero latency).
    public func h264Settings(realTime: Bool = false) -> H264Encoder.Settings {
        var settings = H264Encoder.Settings()
        settings.realTime = realTime
        settings.averageBitRate = bitrate
        settings.maxKeyFrameInterval = keyint
        settings.preset = preset
        return settings
    }
}
