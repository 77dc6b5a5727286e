/// What a sample's bytes are, like `CMFormatDescription`: the media type and its parameters.
public enum MediaFormat: Sendable, Hashable, CustomStringConvertible {
    /// Audio, PCM or compressed.
    case audio(AudioFormat)
    /// Video, raw frames or compressed.
    case video(VideoFormat)

    /// The audio format, or `nil` for other media.
    public var audio: AudioFormat? {
        if case .audio(let format) = self { return format }
        return nil
    }

    /// The video format, or `nil` for other media.
    public var video: VideoFormat? {
        if case .video(let format) = self { return format }
        return nil
    }

    /// A short human-readable summary, e.g. `aac 48000 Hz stereo` or `h264 1280x720 @ 24/1`.
    public var description: String {
        switch self {
        case .audio(let format): return format.description
        case .video(let format): return format.description
        }
    }
}

/// The codec of an audio stream.
public enum AudioCodec: Sendable, Hashable, CustomStringConvertible {
    /// Linear PCM in the given layout.
    case pcm(PCMFormat)
    /// MPEG-4 AAC; the stream's AudioSpecificConfig is the format's ``AudioFormat/magicCookie``.
    case aac
    /// Any other codec, by its four-character code (as Core Audio's `mFormatID`).
    case other(fourCC: UInt32)

    /// `s16`, `f32p`, `aac`, or the four-character code.
    public var description: String {
        switch self {
        case .pcm(let pcm): return pcm.description
        case .aac: return "aac"
        case .other(let code):
            let chars = (0..<4).map { Character(Unicode.Scalar(UInt8(truncatingIfNeeded: code >> (24 - 8 * $0)))) }
            return "'\(String(chars))'"
        }
    }
}

/// An audio stream's format: `AudioStreamBasicDescription` plus channel layout and magic cookie.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// The codec, with the PCM layout for linear PCM.
    public var codec: AudioCodec
    /// Frames per second.
    public var sampleRate: Int
    /// The channels and their speaker positions.
    public var channelLayout: ChannelLayout
    /// Frames in one packet: 1 for PCM, 1024 for AAC-LC.
    public var framesPerPacket: Int
    /// Codec configuration the decoder needs: for AAC the AudioSpecificConfig bytes (ISO 14496-3 1.6.2.1).
    public var magicCookie: [UInt8]

    /// A format with every field given.
    public init(
        codec: AudioCodec, sampleRate: Int, channelLayout: ChannelLayout, framesPerPacket: Int,
        magicCookie: [UInt8] = []
    ) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channelLayout = channelLayout
        self.framesPerPacket = framesPerPacket
        self.magicCookie = magicCookie
    }

    /// Linear PCM at `sampleRate` with `channelLayout`.
    public static func pcm(_ pcm: PCMFormat, sampleRate: Int, channelLayout: ChannelLayout) -> AudioFormat {
        AudioFormat(codec: .pcm(pcm), sampleRate: sampleRate, channelLayout: channelLayout, framesPerPacket: 1)
    }

    /// Linear PCM at `sampleRate` with `channels` channels in their default layout.
    public static func pcm(_ pcm: PCMFormat, sampleRate: Int, channels: Int) -> AudioFormat {
        .pcm(pcm, sampleRate: sampleRate, channelLayout: .default(channelCount: channels))
    }

    /// AAC with the given AudioSpecificConfig bytes as magic cookie, 1024 frames per packet.
    public static func aac(sampleRate: Int, channelLayout: ChannelLayout, audioSpecificConfig: [UInt8]) -> AudioFormat {
        AudioFormat(
            codec: .aac, sampleRate: sampleRate, channelLayout: channelLayout, framesPerPacket: 1024,
            magicCookie: audioSpecificConfig)
    }

    /// The number of channels.
    public var channelCount: Int { channelLayout.channelCount }

    /// The PCM layout when the codec is linear PCM, otherwise `nil`.
    public var pcm: PCMFormat? {
        if case .pcm(let pcm) = codec { return pcm }
        return nil
    }

    /// For interleaved PCM, bytes per frame (all channels); for planar PCM, bytes per frame in one plane.
    /// Zero for compressed formats.
    public var bytesPerFrame: Int {
        guard let pcm else { return 0 }
        return pcm.sampleType.bytesPerSample * (pcm.isInterleaved ? channelCount : 1)
    }

    /// How many buffers a sample holds: the channel count for planar PCM, otherwise 1.
    public var planeCount: Int {
        if let pcm, !pcm.isInterleaved { return channelCount }
        return 1
    }

    /// E.g. `s16 44100 Hz stereo` or `aac 48000 Hz 5.1`.
    public var description: String { "\(codec) \(sampleRate) Hz \(channelLayout)" }
}
