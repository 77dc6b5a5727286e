public import ArgumentParser
public import MediaFFmpeg

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

    /// `--audio-bitrate`: the AAC bit rate.
    @Option(name: .customLong("audio-bitrate"), help: "The AAC bit rate in bits per second.")
    public var audioBitrate = 128_000

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
