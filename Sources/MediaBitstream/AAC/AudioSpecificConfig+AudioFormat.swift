public import MediaCore

extension AudioSpecificConfig {
    /// The number of channels ``channelConfiguration`` names: 1 to 6 channels for configurations 1 to 6,
    /// 8 for configuration 7 (7.1); `nil` for 0 (the channels are in a `program_config_element()`) and
    /// for the reserved configurations 8 to 15.
    public var channelCount: Int? {
        Self.channelCount(forConfiguration: channelConfiguration)
    }

    /// The speaker layout of ``channelConfiguration``: mono, stereo, 5.1 (side) for 6 and 7.1 for 7;
    /// configurations 3, 4 and 5 give the default layout for 3, 4 and 5 channels. Configurations without
    /// a channel count (0, 8 to 15) give an unspecified layout of 0 channels.
    public var channelLayout: ChannelLayout {
        Self.channelLayout(forConfiguration: channelConfiguration)
    }

    /// The audio format of a stream with this configuration: AAC at ``sampleRate`` with ``channelLayout``,
    /// ``bytes`` as the magic cookie, and 1024 frames per packet (960 when ``frameLengthFlag`` is set).
    ///
    /// The rate is the core rate: for HE-AAC it is the rate of the AAC layer, as in the configuration.
    public var audioFormat: AudioFormat {
        var format = AudioFormat.aac(sampleRate: sampleRate, channelLayout: channelLayout, audioSpecificConfig: bytes)
        if frameLengthFlag { format.framesPerPacket = 960 }
        return format
    }

    /// See ``channelCount``.
    static func channelCount(forConfiguration configuration: Int) -> Int? {
        switch configuration {
        case 1...6: return configuration
        case 7: return 8
        default: return nil
        }
    }

    /// See ``channelLayout``.
    static func channelLayout(forConfiguration configuration: Int) -> ChannelLayout {
        switch configuration {
        case 1: return .mono
        case 2: return .stereo
        case 6: return .surround51
        case 7: return .surround71
        default:
            guard let count = channelCount(forConfiguration: configuration) else { return .unspecified(0) }
            return .default(channelCount: count)
        }
    }

    /// The `channelConfiguration` whose layout is `layout`, or `nil` when no configuration 1 to 7 has it.
    public static func channelConfiguration(for layout: ChannelLayout) -> Int? {
        (1...7).first { channelLayout(forConfiguration: $0) == layout }
    }
}

extension AudioFormat {
    /// The AudioSpecificConfig of this AAC format, read from its ``/MediaCore/AudioFormat/magicCookie``:
    /// the one place where the muxers (`ADTSMuxer`, `CAFMuxer`, `ContainerMuxer`) get the parsed
    /// configuration, so that they accept and refuse the same cookies with the same errors. (The format
    /// lives in MediaCore, below this module, so it carries the bytes; a muxer asks once per format.)
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when the format is not AAC or has no magic
    ///   cookie; ``/MediaCore/MediaError/Code/invalidData`` when the cookie is not a readable
    ///   AudioSpecificConfig, with the parser's reason and byte offset.
    public func audioSpecificConfig() throws(MediaError) -> AudioSpecificConfig {
        guard codec == .aac else {
            throw MediaError(.invalidArgument, "\(self) is not AAC, so it has no AudioSpecificConfig")
        }
        guard !magicCookie.isEmpty else {
            throw MediaError(.invalidArgument, "AAC format \(self) has no AudioSpecificConfig magic cookie")
        }
        do {
            return try AudioSpecificConfig(parsing: magicCookie)
        } catch {
            throw MediaError(
                .invalidData,
                "AAC format \(self) has a magic cookie that is not a readable AudioSpecificConfig: "
                    + error.message, byteOffset: error.byteOffset)
        }
    }
}
