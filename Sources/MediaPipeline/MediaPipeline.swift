@_exported public import MediaCore
@_exported public import MediaBitstream
@_exported public import MediaFormats
@_exported public import MediaStreaming
@_exported public import MediaFFmpeg
@_exported public import MediaAudio
@_exported public import MediaPulse
