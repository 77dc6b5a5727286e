import MediaCore

/// A one-frame u8 PCM sample holding `byte`, timed at frame `byte`: for the checked types' tests.
func oneByteSample(_ byte: UInt8) -> MediaSample {
    MediaSample(
        format: .audio(.pcm(PCMFormat(.u8), sampleRate: 8000, channels: 1)), data: [byte],
        timing: .audio(startFrame: Int64(byte), frameCount: 1, sampleRate: 8000), frameCount: 1)
}
