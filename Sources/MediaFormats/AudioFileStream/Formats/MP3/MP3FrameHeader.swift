import MediaCore

/// The 4-byte header of an MPEG audio frame (ISO/IEC 11172-3 §2.4.1.3, ISO/IEC 13818-3 §2.4.1.3, and the
/// MPEG-2.5 extension for 8–12 kHz), with what follows from it: the frame's length, its frames of
/// audio, the stream's format.
///
/// Accepts any header with the 11-bit sync, a version other than the reserved `01`, a layer other
/// than the reserved `00`, a bit-rate index other than the forbidden `1111` and a sample-rate index other
/// than the reserved `11`. Layer I and the free format (bit-rate index 0) are valid headers here;
/// ``isFreeFormat`` says that the frame's length is not known from the header, and the stream parser
/// refuses both streams (``MP3StreamParser``). It does not check the emphasis field or the
/// Layer II bit-rate/channel-mode combinations that ISO 11172-3 disallows, as FFmpeg does not.
struct MP3FrameHeader: Sendable, Hashable {
    /// The MPEG version.
    enum Version: Sendable, Hashable {
        /// MPEG-1: 32, 44.1 and 48 kHz.
        case mpeg1
        /// MPEG-2 LSF: 16, 22.05 and 24 kHz.
        case mpeg2
        /// MPEG-2.5: 8, 11.025 and 12 kHz.
        case mpeg25

        /// `MPEG-1`, `MPEG-2` or `MPEG-2.5`, for messages.
        var name: String {
            switch self {
            case .mpeg1: return "MPEG-1"
            case .mpeg2: return "MPEG-2"
            case .mpeg25: return "MPEG-2.5"
            }
        }
    }

    /// What must stay the same from frame to frame for two headers to belong to one stream: the
    /// version, the layer, the sample rate and mono-or-not (stereo, joint stereo and dual channel may
    /// alternate). The bit rate, padding, CRC and mode extension vary freely.
    struct StreamClass: Sendable, Hashable {
        /// The MPEG version.
        let version: Version
        /// 1, 2 or 3.
        let layer: Int
        /// Frames per second.
        let sampleRate: Int
        /// 1 (single channel) or 2.
        let channels: Int
    }

    /// The MPEG version.
    let version: Version
    /// The layer: 1, 2 or 3.
    let layer: Int
    /// Whether a 16-bit CRC follows the header (the protection bit is 0).
    let hasCRC: Bool
    /// The bit-rate index (0: free format).
    let bitRateIndex: Int
    /// Bits per second, 0 for the free format.
    let bitRate: Int
    /// Frames (samples per channel) per second.
    let sampleRate: Int
    /// Whether the frame has the padding slot (one byte for Layers II and III, four for Layer I).
    let hasPadding: Bool
    /// The channel mode: 0 stereo, 1 joint stereo, 2 dual channel, 3 single channel.
    let channelMode: Int

    /// The header's four bytes: `nil` when they are not a valid MPEG audio header.
    init?(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
        switch (b1 >> 3) & 3 {
        case 3: version = .mpeg1
        case 2: version = .mpeg2
        case 0: version = .mpeg25
        default: return nil
        }
        let layerBits = Int((b1 >> 1) & 3)
        guard layerBits != 0 else { return nil }
        layer = 4 - layerBits
        hasCRC = b1 & 1 == 0
        bitRateIndex = Int(b2 >> 4)
        let rateIndex = Int((b2 >> 2) & 3)
        guard bitRateIndex != 15, rateIndex != 3 else { return nil }
        let rates: [Int]
        switch version {
        case .mpeg1: rates = [44_100, 48_000, 32_000]
        case .mpeg2: rates = [22_050, 24_000, 16_000]
        case .mpeg25: rates = [11_025, 12_000, 8_000]
        }
        sampleRate = rates[rateIndex]
        bitRate = Self.kilobitsPerSecond(version: version, layer: layer)[bitRateIndex] * 1000
        hasPadding = (b2 >> 1) & 1 == 1
        channelMode = Int(b3 >> 6)
    }

    /// The bit rates in kbit/s by index (0: free format) for a version and layer.
    static func kilobitsPerSecond(version: Version, layer: Int) -> [Int] {
        switch (version, layer) {
        case (.mpeg1, 1): return [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (.mpeg1, 2): return [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (.mpeg1, _): return [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (_, 1): return [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        default: return [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
    }

    /// Whether the bit rate is the free format's (index 0): the frame's length is not in the header.
    var isFreeFormat: Bool { bitRateIndex == 0 }

    /// 1 for single channel, else 2.
    var channels: Int { channelMode == 3 ? 1 : 2 }

    /// Audio frames per MPEG frame: 384 (Layer I), 1152 (Layer II, MPEG-1 Layer III) or 576 (MPEG-2 and
    /// MPEG-2.5 Layer III).
    var framesPerPacket: Int {
        switch layer {
        case 1: return 384
        case 2: return 1152
        default: return version == .mpeg1 ? 1152 : 576
        }
    }

    /// The stream this header belongs to.
    var streamClass: StreamClass {
        StreamClass(version: version, layer: layer, sampleRate: sampleRate, channels: channels)
    }

    /// Bytes per kbit/s per kHz: Layer I 12 (times 4-byte slots), Layer II 144, Layer III 144 for
    /// MPEG-1 and 72 for MPEG-2/2.5.
    var lengthCoefficient: Int { Self.lengthCoefficient(version: version, layer: layer) }

    /// ``lengthCoefficient`` for a version and layer.
    static func lengthCoefficient(version: Version, layer: Int) -> Int {
        switch layer {
        case 1: return 12
        case 2: return 144
        default: return version == .mpeg1 ? 144 : 72
        }
    }

    /// The frame's length in bytes, header included: Layer I `(12 * bitRate / sampleRate + padding) * 4`,
    /// Layer II `144 * bitRate / sampleRate + padding`, Layer III the same with 72 for MPEG-2/2.5; 0 for
    /// the free format.
    var frameLength: Int {
        let pad = hasPadding ? 1 : 0
        if layer == 1 { return (12 * bitRate / sampleRate + pad) * 4 }
        return lengthCoefficient * bitRate / sampleRate + pad
    }

    /// The longest frame a stream of this version, layer and sample rate can have: the highest bit rate
    /// with padding. MPEG-1 Layer III at 44.1 kHz: 1045 bytes; MPEG-2 Layer II at 16 kHz: 1441.
    var maximumFrameLength: Int {
        let top = Self.kilobitsPerSecond(version: version, layer: layer)[14] * 1000
        if layer == 1 { return (12 * top / sampleRate + 1) * 4 }
        return lengthCoefficient * top / sampleRate + 1
    }

    /// The bytes from the frame's start to the end of its side information, where LAME and FFmpeg put a
    /// Xing/Info tag: 4 (header), plus 2 with a CRC, plus 17 or 32 (MPEG-1 mono or not) or 9 or 17
    /// (MPEG-2/2.5).
    var sideInfoEnd: Int {
        let side: Int
        switch (version, channels) {
        case (.mpeg1, 1): side = 17
        case (.mpeg1, _): side = 32
        case (_, 1): side = 9
        default: side = 17
        }
        return 4 + (hasCRC ? 2 : 0) + side
    }

    /// The ASBD of a stream of such frames: `.mp3` (Layer III) or `.mp2` (Layer II), the sample rate,
    /// the channels, ``framesPerPacket``, and 0 bytes per packet (each packet is described).
    var streamFormat: AudioStreamBasicDescription {
        AudioStreamBasicDescription(
            sampleRate: Double(sampleRate),
            formatID: layer == 2 ? AudioStreamBasicDescription.mpegLayer2 : AudioStreamBasicDescription.mpegLayer3,
            bytesPerPacket: 0, framesPerPacket: UInt32(framesPerPacket), bytesPerFrame: 0,
            channelsPerFrame: UInt32(channels), bitsPerChannel: 0)
    }

    /// Mono (front centre) for a single channel, else stereo (dual channel included).
    var channelLayout: ChannelLayout { channels == 1 ? .mono : .stereo }

    /// `MPEG-1 Layer III` and the like, for messages.
    var formatName: String { "\(version.name) Layer \(layer == 1 ? "I" : layer == 2 ? "II" : "III")" }
}
