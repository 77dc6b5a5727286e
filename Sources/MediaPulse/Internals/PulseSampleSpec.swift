internal import CPulseAudio
import MediaCore

// Translations between MediaCore's PCM vocabulary and libpulse's sample specs and channel maps.

enum PulseSampleSpec {
    /// libpulse's sample format for `type` (always little-endian), or `nil` when it has none (f64).
    static func format(for type: PCMSampleType) -> pa_sample_format_t? {
        switch type {
        case .u8: return PA_SAMPLE_U8
        case .s16: return PA_SAMPLE_S16LE
        case .s24: return PA_SAMPLE_S24LE
        case .s32: return PA_SAMPLE_S32LE
        case .f32: return PA_SAMPLE_FLOAT32LE
        case .f64: return nil
        }
    }

    /// MediaCore's sample type for libpulse's `format`, or `nil` for one MediaCore cannot hold
    /// (big-endian, A-law, µ-law, 24-in-32).
    static func sampleType(for format: pa_sample_format_t) -> PCMSampleType? {
        switch format {
        case PA_SAMPLE_U8: return .u8
        case PA_SAMPLE_S16LE: return .s16
        case PA_SAMPLE_S24LE: return .s24
        case PA_SAMPLE_S32LE: return .s32
        case PA_SAMPLE_FLOAT32LE: return .f32
        default: return nil
        }
    }

    /// A valid sample spec for `type`, `sampleRate` and `channels`.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unsupportedFormat`` for f64; ``/MediaCore/MediaError/Code/invalidArgument``
    ///   for a rate or channel count libpulse refuses (`pa_sample_spec_valid`: 1…384000 Hz, 1…32).
    static func spec(_ type: PCMSampleType, sampleRate: Int, channels: Int) throws(MediaError) -> pa_sample_spec {
        guard let format = format(for: type) else {
            throw MediaError(
                .unsupportedFormat, "PulseAudio has no \(type) sample format (use s16, s24, s32, f32 or u8)")
        }
        guard let rate = UInt32(exactly: sampleRate), let count = UInt8(exactly: channels) else {
            throw MediaError(
                .invalidArgument, "\(sampleRate) Hz, \(count: channels, "channel") is not a PulseAudio sample spec")
        }
        var spec = pa_sample_spec(format: format, rate: rate, channels: count)
        guard pa_sample_spec_valid(&spec) != 0 else {
            throw MediaError(
                .invalidArgument,
                "\(sampleRate) Hz, \(count: channels, "channel") is not a valid PulseAudio sample spec (1...384000 Hz, 1...32 channels)"
            )
        }
        return spec
    }

    /// The WAVE-order channel map for `channels` (`PA_CHANNEL_MAP_WAVEEX`: mono, stereo, 5.1, 7.1 as
    /// WAV files order them).
    static func waveMap(channels: UInt8) -> pa_channel_map {
        var map = pa_channel_map()
        pa_channel_map_init_extend(&map, UInt32(channels), PA_CHANNEL_MAP_WAVEEX)
        return map
    }

    /// The ``/MediaCore/ChannelLayout`` of a channel map: speaker positions as WAV's mask when the map's
    /// positions are WAV speakers in WAV's order, else unspecified with the count.
    static func layout(of map: pa_channel_map) -> ChannelLayout {
        let count = Int(map.channels)
        var positions = map.map
        let list = withUnsafeBytes(of: &positions) { raw in
            Array(raw.bindMemory(to: pa_channel_position_t.self).prefix(count))
        }
        if count == 1 && (list.first == PA_CHANNEL_POSITION_MONO || list.first == PA_CHANNEL_POSITION_FRONT_CENTER) {
            return .mono
        }
        var mask: UInt64 = 0
        for position in list {
            guard let bit = waveBit(position), bit > mask else { return .unspecified(count) }  // in WAV order
            mask |= bit
        }
        return ChannelLayout(mask: mask)
    }

    /// The WAV `dwChannelMask` bit of a libpulse channel position, or `nil`.
    private static func waveBit(_ position: pa_channel_position_t) -> UInt64? {
        switch position {
        case PA_CHANNEL_POSITION_FRONT_LEFT: return 0x1
        case PA_CHANNEL_POSITION_FRONT_RIGHT: return 0x2
        case PA_CHANNEL_POSITION_FRONT_CENTER: return 0x4
        case PA_CHANNEL_POSITION_LFE: return 0x8
        case PA_CHANNEL_POSITION_REAR_LEFT: return 0x10
        case PA_CHANNEL_POSITION_REAR_RIGHT: return 0x20
        case PA_CHANNEL_POSITION_FRONT_LEFT_OF_CENTER: return 0x40
        case PA_CHANNEL_POSITION_FRONT_RIGHT_OF_CENTER: return 0x80
        case PA_CHANNEL_POSITION_REAR_CENTER: return 0x100
        case PA_CHANNEL_POSITION_SIDE_LEFT: return 0x200
        case PA_CHANNEL_POSITION_SIDE_RIGHT: return 0x400
        default: return nil
        }
    }
}
