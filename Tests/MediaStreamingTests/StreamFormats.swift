import MediaCore

/// The formats the live-sink tests tag their stand-in samples with: AAC-like audio and small raw video
/// (their bytes are never decoded; the sinks only tell audio from video and look for keyframes).
let audioFormat = MediaFormat.audio(
    .aac(sampleRate: 48_000, channelLayout: .default(channelCount: 2), audioSpecificConfig: [0x11, 0x90]))
let videoFormat = MediaFormat.video(.raw(.yuv420p, width: 16, height: 16))
