public import MediaFFmpeg

/// What a ``MediaExportSession`` makes of the audio and the video: `AVAssetExportSession`'s presets,
/// as values that can be changed.
///
/// ```swift
/// var preset = ExportPreset.h264At1280x720          // AVAssetExportPreset1280x720
/// preset.audio = .aac(bitRate: 96_000)
/// ```
public struct ExportPreset: Sendable, Hashable {
    /// What the video becomes.
    public enum Video: Sendable, Hashable {
        /// Dropped: the output has no video.
        case none
        /// Copied as it is (a remux).
        case passthrough
        /// Decoded and encoded with ``/MediaFFmpeg/H264Encoder`` (`settings`), scaled down to fit in
        /// `maxWidth` × `maxHeight` with its aspect ratio kept (even sizes; never up), when they are given.
        case h264(H264Encoder.Settings, maxWidth: Int? = nil, maxHeight: Int? = nil)
        /// As ``h264(_:maxWidth:maxHeight:)``, encoded with ``/MediaFFmpeg/HEVCEncoder`` (libx265; `hvc1` in MP4).
        case hevc(VideoEncoderSettings, maxWidth: Int? = nil, maxHeight: Int? = nil)
        /// As ``h264(_:maxWidth:maxHeight:)``, encoded with ``/MediaFFmpeg/AV1Encoder`` (SVT-AV1).
        case av1(VideoEncoderSettings, maxWidth: Int? = nil, maxHeight: Int? = nil)
        /// As ``h264(_:maxWidth:maxHeight:)``, encoded with ``/MediaFFmpeg/VP9Encoder`` (libvpx).
        case vp9(VideoEncoderSettings, maxWidth: Int? = nil, maxHeight: Int? = nil)

        /// The bounds of an encoding case, with a new encoder for it; `nil` for ``none`` and ``passthrough``.
        func encoding() throws(MediaError) -> (encoder: VideoEncoder, maxWidth: Int?, maxHeight: Int?)? {
            switch self {
            case .none, .passthrough: return nil
            case .h264(let settings, let maxWidth, let maxHeight):
                return (try H264Encoder(settings: settings), maxWidth, maxHeight)
            case .hevc(let settings, let maxWidth, let maxHeight):
                return (try HEVCEncoder(settings: settings), maxWidth, maxHeight)
            case .av1(let settings, let maxWidth, let maxHeight):
                return (try AV1Encoder(settings: settings), maxWidth, maxHeight)
            case .vp9(let settings, let maxWidth, let maxHeight):
                return (try VP9Encoder(settings: settings), maxWidth, maxHeight)
            }
        }
    }

    /// What the audio becomes.
    public enum Audio: Sendable, Hashable {
        /// Dropped: the output has no audio.
        case none
        /// Copied as it is (a remux).
        case passthrough
        /// Decoded (when it is not PCM) and encoded with ``/MediaFFmpeg/AACEncoder`` at `bitRate` bits a
        /// second.
        case aac(bitRate: Int)
        /// Decoded (when it is not PCM) and encoded with ``/MediaFFmpeg/OpusEncoder`` (`settings`), at 48 kHz.
        case opus(OpusEncoder.Settings)
    }

    /// What the video becomes.
    public var video: Video
    /// What the audio becomes.
    public var audio: Audio

    /// A preset of `video` and `audio`.
    public init(video: Video, audio: Audio) {
        self.video = video
        self.audio = audio
    }

    /// Every stream copied as it is (`AVAssetExportPresetPassthrough`, `ffmpeg -c copy`).
    public static let passthrough = ExportPreset(video: .passthrough, audio: .passthrough)
    /// H.264 at the input's size (libx264's defaults: `-preset medium -crf 23`) and AAC at 128 kb/s:
    /// the ffmpeg CLI's defaults for MP4.
    public static let h264 = ExportPreset(video: .h264(H264Encoder.Settings()), audio: .aac(bitRate: 128_000))
    /// H.264 fitted in 1280 × 720 and AAC at 128 kb/s (`AVAssetExportPreset1280x720`).
    public static let h264At1280x720 = ExportPreset(
        video: .h264(H264Encoder.Settings(), maxWidth: 1280, maxHeight: 720), audio: .aac(bitRate: 128_000))
    /// H.264 fitted in 1920 × 1080 and AAC at 128 kb/s (`AVAssetExportPreset1920x1080`).
    public static let h264At1920x1080 = ExportPreset(
        video: .h264(H264Encoder.Settings(), maxWidth: 1920, maxHeight: 1080), audio: .aac(bitRate: 128_000))
    /// The audio alone as AAC at 128 kb/s, for an `.m4a` (`AVAssetExportPresetAppleM4A`).
    public static let appleM4A = ExportPreset(video: .none, audio: .aac(bitRate: 128_000))

    /// The names ``init(name:)`` takes, in the order of the presets above.
    public static let names = ["passthrough", "h264", "1280x720", "1920x1080", "m4a"]

    /// The preset called `name` (one of ``names``); `nil` for another name.
    public init?(name: String) {
        switch name.lowercased() {
        case "passthrough": self = .passthrough
        case "h264": self = .h264
        case "1280x720": self = .h264At1280x720
        case "1920x1080": self = .h264At1920x1080
        case "m4a": self = .appleM4A
        default: return nil
        }
    }

    /// The size a `width` × `height` picture is scaled to: fitted in `maxWidth` × `maxHeight` (either may
    /// be `nil`: no bound), aspect ratio kept, rounded to even; `nil` when it already fits.
    static func fitted(width: Int, height: Int, maxWidth: Int?, maxHeight: Int?) -> (width: Int, height: Int)? {
        let scale = min(
            maxWidth.map { Double($0) / Double(width) } ?? 1, maxHeight.map { Double($0) / Double(height) } ?? 1)
        guard scale < 1, width > 0, height > 0 else { return nil }
        let even = { (value: Double) in max(2, Int((value / 2).rounded()) * 2) }
        return (even(Double(width) * scale), even(Double(height) * scale))
    }
}
