public import MediaCore
import MediaBitstream

extension AudioFormat {
    /// The PCM sample type that holds this audio without loss, when the format says: linear PCM's own
    /// type; for Apple Lossless the source's bit depth from its magic cookie (`ALACSpecificConfig`'s
    /// `bitDepth`: 16 → s16, 20 and 24 → s24, 32 → s32). `nil` for lossy codecs (their decoders give
    /// float, which holds them) and for a cookie that cannot be read.
    ///
    /// A converter that is not told otherwise writes this type, so that lossless stays lossless:
    /// `audio-convert` and MediaPipeline's `AudioFile` do.
    public var sourceSampleType: PCMSampleType? {
        if let pcm { return pcm.sampleType }
        guard case .other(let fourCC) = codec, fourCC == AudioStreamBasicDescription.appleLossless,
            let config = try? ALACMagicCookie.config(in: magicCookie)
        else { return nil }
        switch config[5] {
        case 16: return .s16
        case 20, 24: return .s24
        case 32: return .s32
        default: return nil
        }
    }
}
