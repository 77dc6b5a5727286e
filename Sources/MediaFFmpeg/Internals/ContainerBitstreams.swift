import MediaBitstream
import MediaCore

// The ADTS header before AAC frames in MPEG-TS and raw ADTS input, which ContainerDemuxer strips (the
// avcC record and the AudioSpecificConfig come from MediaBitstream). Every length is checked against
// what remains.

/// The fields of an ADTS header (ISO/IEC 13818-7 6.2.1, 14496-3 1.A.2.2) that describe the AAC frame
/// behind it.
struct ADTSFrameHeader {
    /// 7 without CRC, 9 with.
    var headerLength: Int
    /// Header plus payload.
    var frameLength: Int
    /// `profile_ObjectType + 1`: 2 is AAC-LC.
    var objectType: Int
    var samplingFrequencyIndex: Int
    var channelConfiguration: Int

    /// Whether `bytes` begin with the 12-bit ADTS syncword and layer 0.
    static func startsFrame(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xF6 == 0xF0
    }

    /// The sampling frequencies by `sampling_frequency_index`.
    static let sampleRates = AudioSpecificConfig.samplingFrequencies

    init(parsing bytes: [UInt8]) throws(MediaError) {
        guard bytes.count >= 7 else { throw MediaError.truncated("ADTS header", needed: 7, available: bytes.count, at: 0) }
        guard Self.startsFrame(bytes) else { throw MediaError.invalidData("AAC packet has no ADTS syncword", at: 0) }
        let protectionAbsent = bytes[1] & 0x01  // protection_absent
        objectType = Int(bytes[2] >> 6) + 1  // profile_ObjectType
        samplingFrequencyIndex = Int(bytes[2] >> 2 & 0x0F)  // sampling_frequency_index
        channelConfiguration = Int(bytes[2] & 0x01) << 2 | Int(bytes[3] >> 6)  // channel_configuration
        frameLength = Int(bytes[3] & 0x03) << 11 | Int(bytes[4]) << 3 | Int(bytes[5] >> 5)  // aac_frame_length
        let rawDataBlocks = Int(bytes[6] & 0x03)  // number_of_raw_data_blocks_in_frame
        headerLength = protectionAbsent == 1 ? 7 : 9
        guard samplingFrequencyIndex < Self.sampleRates.count else {
            throw MediaError.invalidData("ADTS sampling_frequency_index \(samplingFrequencyIndex) is reserved", at: 2)
        }
        guard frameLength >= headerLength, frameLength <= bytes.count else {
            throw MediaError.invalidData(
                "ADTS aac_frame_length \(frameLength) does not fit the \(bytes.count)-byte packet with its \(headerLength)-byte header", at: 3)
        }
        guard rawDataBlocks == 0 else {
            throw MediaError(
                .unsupportedFormat, "ADTS frame holds \(rawDataBlocks + 1) raw data blocks; only one per frame can become one access unit")
        }
    }

    var sampleRate: Int { Self.sampleRates[samplingFrequencyIndex] }

    /// The 2-byte AudioSpecificConfig this header implies (ISO/IEC 14496-3 1.6.2.1).
    var audioSpecificConfig: [UInt8] {
        AudioSpecificConfig(
            objectType: objectType, samplingFrequencyIndex: samplingFrequencyIndex, sampleRate: sampleRate,
            channelConfiguration: channelConfiguration
        ).bytes
    }
}

/// The length of an Opus packet from its TOC byte (RFC 6716 3.1), as FFmpeg's opus parser reads it.
enum OpusPacket {
    /// Frames at 48 kHz the packet decodes to, or `nil` when it is too short to say (an empty packet,
    /// code 3 without its frame count byte).
    static func frameCount(_ bytes: [UInt8]) -> Int? {
        guard let toc = bytes.first else { return nil }
        let config = Int(toc >> 3)  // config: mode and frame size
        let frameSize: Int  // in 1/400 s units of 120 frames: 2.5 ms = 120 frames at 48 kHz
        switch config {
        case 0..<12: frameSize = [480, 960, 1920, 2880][config & 3]  // SILK-only: 10, 20, 40, 60 ms
        case 12..<16: frameSize = [480, 960][config & 1]  // Hybrid: 10, 20 ms
        default: frameSize = [120, 240, 480, 960][config & 3]  // CELT-only: 2.5, 5, 10, 20 ms
        }
        let frames: Int
        switch toc & 0x03 {  // c: frame count code
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard bytes.count >= 2 else { return nil }
            frames = Int(bytes[1] & 0x3F)  // M: frame count
        }
        return frameSize * frames
    }
}
