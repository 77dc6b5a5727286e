public import MediaAudio
public import MediaCore
public import MediaFFmpeg

extension AudioMixer.Input {
    /// An input of `source` in any PCM format (rate, channel layout, sample type), converted on the way
    /// in to the float32 a mix of `sampleRate` Hz and `channels` channels takes, by an ``/MediaFFmpeg/AudioConverter``
    /// resampling with `resampler` (libsoxr by default: what `sox` does), after `stages` (a decoder, for
    /// compressed audio): `AVAudioMixerNode`'s conversion of each input bus.
    ///
    /// ```swift
    /// let voice = try AudioMixer.Input(converting: try WAVReader(path: "voice-44k-mono.wav"), sampleRate: 48_000, channels: 2)
    /// ```
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for a rate or channel count the converter refuses.
    public init(
        converting source: sending any MediaSource, stages: sending [any MediaStage] = [], sampleRate: Int,
        channels: Int, resampler: AudioConverter.ResamplerEngine = .soxr, offset: MediaTime = .zero,
        gain: Double = 1, pan: Double = 0, meter: LevelMeter? = nil
    ) throws(MediaError) {
        let converter = try AudioConverter(
            format: .f32, sampleRate: sampleRate, channelLayout: .default(channelCount: channels), resampler: resampler)
        self.init(source: source, stages: stages + [converter], offset: offset, gain: gain, pan: pan, meter: meter)
    }
}
