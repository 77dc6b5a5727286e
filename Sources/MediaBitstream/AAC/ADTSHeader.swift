public import MediaCore

/// The header of one ADTS frame: `adts_fixed_header()` and `adts_variable_header()` of ISO/IEC 13818-7
/// section 6.2 (and ISO/IEC 14496-3 1.A.2.2), 7 bytes, or 9 with the `crc_check` that follows when
/// ``protectionAbsent`` is `false`.
///
/// ```swift
/// let header = ADTSHeader(objectType: 2, samplingFrequencyIndex: 4, channelConfiguration: 2, payloadLength: 0)
/// header.bytes   // [0xFF, 0xF1, 0x50, 0x80, 0x00, 0xFF, 0xFC]
/// ```
///
/// The properties hold whatever was parsed or set; ``bytes`` writes each one masked to its field width.
public struct ADTSHeader: Sendable, Hashable {
    /// `ID`: 0 for MPEG-4, 1 for MPEG-2 AAC.
    public var id: Int
    /// `layer`: always 0.
    public var layer: Int
    /// `protection_absent`: `true` when no `crc_check` follows the 7 fixed bytes.
    public var protectionAbsent: Bool
    /// `profile_ObjectType`: the MPEG-4 audio object type minus 1 (1 is AAC LC).
    public var profile: Int
    /// `sampling_frequency_index` into ``AudioSpecificConfig/samplingFrequencies``.
    public var samplingFrequencyIndex: Int
    /// `private_bit`.
    public var privateBit: Bool
    /// `channel_configuration`, as in ``AudioSpecificConfig/channelConfiguration``.
    public var channelConfiguration: Int
    /// `original_copy`.
    public var originalCopy: Bool
    /// `home`.
    public var home: Bool
    /// `copyright_identification_bit`.
    public var copyrightIdBit: Bool
    /// `copyright_identification_start`.
    public var copyrightIdStart: Bool
    /// `aac_frame_length`: the bytes of the whole frame, header (and CRC) included; at most 8191.
    public var frameLength: Int
    /// `adts_buffer_fullness`; 0x7FF means variable bit rate.
    public var bufferFullness: Int
    /// `number_of_raw_data_blocks_in_frame`: the frame holds this many raw data blocks plus one.
    public var rawDataBlocks: Int
    /// `crc_check`, written after the 7 fixed bytes when ``protectionAbsent`` is `false`.
    public var crcCheck: UInt16

    /// The largest `aac_frame_length`, the field being 13 bits wide.
    public static let maximumFrameLength = 0x1FFF

    /// A header with ID 0 (MPEG-4), layer 0, no CRC, all flags 0, buffer fullness 0x7FF (VBR) and one raw
    /// data block: the header FFmpeg's ADTS muxer writes.
    ///
    /// - Parameters:
    ///   - objectType: the MPEG-4 audio object type, 1 to 4 (2 is AAC LC); written as `objectType - 1`.
    ///   - samplingFrequencyIndex: the index of the sample rate in ``AudioSpecificConfig/samplingFrequencies``.
    ///   - channelConfiguration: the channel configuration, 1 to 7.
    ///   - payloadLength: the bytes of the raw data block; the frame length is this plus 7.
    public init(objectType: Int, samplingFrequencyIndex: Int, channelConfiguration: Int, payloadLength: Int) {
        id = 0
        layer = 0
        protectionAbsent = true
        profile = objectType &- 1
        self.samplingFrequencyIndex = samplingFrequencyIndex
        privateBit = false
        self.channelConfiguration = channelConfiguration
        originalCopy = false
        home = false
        copyrightIdBit = false
        copyrightIdStart = false
        frameLength = payloadLength > Int.max - 7 ? Int.max : payloadLength + 7
        bufferFullness = 0x7FF
        rawDataBlocks = 0
        crcCheck = 0
    }

    /// The header FFmpeg's ADTS muxer writes for a packet of `payloadLength` bytes of a stream with
    /// configuration `config`, after checking that ADTS can carry it.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/unsupportedFormat`` when the object type is not 1 to 4 (the profile
    ///   field is 2 bits), the sample rate has no sampling frequency index, or the channel configuration
    ///   is not 1 to 7; ``/MediaCore/MediaError/Code/invalidArgument`` when the frame would exceed 8191 bytes.
    public init(audioSpecificConfig config: AudioSpecificConfig, payloadLength: Int) throws(MediaError) {
        try Self.checkCarriable(config)
        guard let index = config.samplingFrequencyIndex else {
            throw MediaError(
                .unsupportedFormat, "sample rate \(config.sampleRate) Hz has no ADTS sampling_frequency_index")
        }
        guard payloadLength >= 0 else {
            throw MediaError(.invalidArgument, "ADTS payload length \(payloadLength) is negative")
        }
        guard payloadLength <= Self.maximumFrameLength - 7 else {
            let frameLength = payloadLength > Int.max - 7 ? Int.max : payloadLength + 7
            throw MediaError(
                .invalidArgument,
                "ADTS frame of \(count: frameLength, "byte") exceeds the \(Self.maximumFrameLength)-byte aac_frame_length limit"
            )
        }
        self.init(
            objectType: config.objectType, samplingFrequencyIndex: index,
            channelConfiguration: config.channelConfiguration, payloadLength: payloadLength)
    }

    /// Reads a header from the start of `bytes`, which start at `offset` in the stream.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` when fewer than 7 bytes (9 with CRC) are given;
    ///   ``/MediaCore/MediaError/Code/invalidData`` when the sync word is not 0xFFF, the layer is not 0, the sampling
    ///   frequency index is 13, 14 or 15, or `aac_frame_length` is shorter than the header. The error's
    ///   byte offset is `offset`.
    @inlinable
    public init(parsing bytes: some Collection<UInt8>, at offset: Int64 = 0) throws(MediaError) {
        // Inlined into the caller, so that this loop is specialised for its collection (a parser calls it
        // for every frame); the checks are not generic.
        var fixed: UInt64 = 0
        var crc: UInt16 = 0
        var count = 0
        for byte in bytes.prefix(9) {
            if count < 7 { fixed = fixed << 8 | UInt64(byte) } else { crc = crc << 8 | UInt16(byte) }
            count += 1
        }
        try self.init(fixed: fixed, crc: crc, count: count, at: offset)
    }

    /// The header in the first `count` (at most 9) bytes read, the first 7 big-endian in the low bits of
    /// `fixed` and the next 2 in `crc`; the errors of ``init(parsing:at:)``.
    @usableFromInline
    init(fixed: UInt64, crc: UInt16, count: Int, at offset: Int64) throws(MediaError) {
        guard count >= 7 else {
            throw MediaError.truncated("ADTS header", needed: 7, available: count, at: offset)
        }
        switch Self.decode(fixed: fixed) {
        case .failure(let problem):
            throw MediaError.invalidData(problem.description, at: offset)
        case .success(var header):
            if !header.protectionAbsent {
                guard count >= 9 else {
                    throw MediaError.truncated("ADTS header with CRC", needed: 9, available: count, at: offset)
                }
                header.crcCheck = crc
            }
            self = header
        }
    }

    /// The header's bytes: 7, or 9 with ``crcCheck`` when ``protectionAbsent`` is `false`.
    public var bytes: [UInt8] {
        var w = BitWriter()
        // adts_fixed_header()
        w.write(0xFFF, bits: 12)  // syncword
        w.write(UInt32(id & 1), bits: 1)  // ID
        w.write(UInt32(layer & 3), bits: 2)  // layer
        w.writeFlag(protectionAbsent)  // protection_absent
        w.write(UInt32(profile & 3), bits: 2)  // profile_ObjectType
        w.write(UInt32(samplingFrequencyIndex & 0xF), bits: 4)  // sampling_frequency_index
        w.writeFlag(privateBit)  // private_bit
        w.write(UInt32(channelConfiguration & 7), bits: 3)  // channel_configuration
        w.writeFlag(originalCopy)  // original_copy
        w.writeFlag(home)  // home
        // adts_variable_header()
        w.writeFlag(copyrightIdBit)  // copyright_identification_bit
        w.writeFlag(copyrightIdStart)  // copyright_identification_start
        w.write(UInt32(frameLength & Self.maximumFrameLength), bits: 13)  // aac_frame_length
        w.write(UInt32(bufferFullness & 0x7FF), bits: 11)  // adts_buffer_fullness
        w.write(UInt32(rawDataBlocks & 3), bits: 2)  // number_of_raw_data_blocks_in_frame
        if !protectionAbsent {
            w.write(UInt32(crcCheck), bits: 16)  // crc_check
        }
        return w.bytes
    }

    /// The bytes before the raw data: 7, or 9 with `crc_check`.
    public var headerLength: Int { protectionAbsent ? 7 : 9 }

    /// The bytes of raw data after the header: ``frameLength`` minus ``headerLength``.
    public var payloadLength: Int { frameLength > headerLength ? frameLength - headerLength : 0 }

    /// The MPEG-4 audio object type, ``profile`` plus 1 (2 is AAC LC).
    public var objectType: Int { profile &+ 1 }

    /// The sample rate ``samplingFrequencyIndex`` names, or `nil` for an index outside the table.
    public var sampleRate: Int? {
        AudioSpecificConfig.samplingFrequencies.indices.contains(samplingFrequencyIndex)
            ? AudioSpecificConfig.samplingFrequencies[samplingFrequencyIndex] : nil
    }

    /// The audio frames the frame decodes to: 1024 per raw data block (``rawDataBlocks`` plus 1, the
    /// field being 2 bits wide).
    public var frameCount: Int { 1024 * ((rawDataBlocks & 3) + 1) }

    /// The AudioSpecificConfig equivalent to the header: object type ``objectType``, the indexed rate and
    /// the channel configuration, or `nil` when the sampling frequency index is outside the table.
    public var audioSpecificConfig: AudioSpecificConfig? {
        guard let sampleRate else { return nil }
        return AudioSpecificConfig(
            objectType: objectType, samplingFrequencyIndex: samplingFrequencyIndex,
            sampleRate: sampleRate, channelConfiguration: channelConfiguration)
    }

    // MARK: - Decoding

    /// Why 7 bytes are not a valid ADTS header.
    package enum Problem: Error, CustomStringConvertible {
        case syncWord(UInt64)
        case layer(Int)
        case samplingFrequencyIndex(Int)
        case frameLength(Int, headerLength: Int)

        package var description: String {
            switch self {
            case .syncWord(let sync):
                return "ADTS syncword 0x\(String(sync, radix: 16, uppercase: true)) is not 0xFFF"
            case .layer(let layer):
                return "ADTS layer \(layer) is not 0"
            case .samplingFrequencyIndex(let index):
                return "ADTS sampling_frequency_index \(index) is \(index == 15 ? "not allowed" : "reserved")"
            case .frameLength(let length, let headerLength):
                return "ADTS aac_frame_length \(length) is shorter than the \(headerLength)-byte header"
            }
        }
    }

    /// Decodes the 56 bits of the fixed and variable header (the first 7 bytes, big-endian, in the low
    /// bits of `fixed`) and checks them. Allocates nothing: the parser calls it at every candidate position.
    package static func decode(fixed: UInt64) -> Result<ADTSHeader, Problem> {
        var f = FieldReader(bits: fixed, width: 56)
        let syncword = f.take(12)  // syncword
        let id = f.take(1)  // ID
        let layer = f.take(2)  // layer
        let protectionAbsent = f.take(1)  // protection_absent
        let profile = f.take(2)  // profile_ObjectType
        let samplingFrequencyIndex = f.take(4)  // sampling_frequency_index
        let privateBit = f.take(1)  // private_bit
        let channelConfiguration = f.take(3)  // channel_configuration
        let originalCopy = f.take(1)  // original_copy
        let home = f.take(1)  // home
        let copyrightIdBit = f.take(1)  // copyright_identification_bit
        let copyrightIdStart = f.take(1)  // copyright_identification_start
        let frameLength = f.take(13)  // aac_frame_length
        let bufferFullness = f.take(11)  // adts_buffer_fullness
        let rawDataBlocks = f.take(2)  // number_of_raw_data_blocks_in_frame

        guard syncword == 0xFFF else { return .failure(.syncWord(UInt64(syncword))) }
        guard layer == 0 else { return .failure(.layer(layer)) }
        guard samplingFrequencyIndex < AudioSpecificConfig.samplingFrequencies.count else {
            return .failure(.samplingFrequencyIndex(samplingFrequencyIndex))
        }
        let headerLength = protectionAbsent == 1 ? 7 : 9
        guard frameLength >= headerLength else {
            return .failure(.frameLength(frameLength, headerLength: headerLength))
        }

        var header = ADTSHeader(
            objectType: profile + 1, samplingFrequencyIndex: samplingFrequencyIndex,
            channelConfiguration: channelConfiguration, payloadLength: 0)
        header.id = id
        header.layer = layer
        header.protectionAbsent = protectionAbsent == 1
        header.privateBit = privateBit == 1
        header.originalCopy = originalCopy == 1
        header.home = home == 1
        header.copyrightIdBit = copyrightIdBit == 1
        header.copyrightIdStart = copyrightIdStart == 1
        header.frameLength = frameLength
        header.bufferFullness = bufferFullness
        header.rawDataBlocks = rawDataBlocks
        return .success(header)
    }

    /// Checks that ADTS can carry a stream with configuration `config` (everything but the sample rate).
    package static func checkCarriable(_ config: AudioSpecificConfig) throws(MediaError) {
        guard (1...4).contains(config.objectType) else {
            throw MediaError(
                .unsupportedFormat,
                "audio object type \(config.objectType) (\(AudioSpecificConfig.objectTypeName(config.objectType))) "
                    + "does not fit the 2-bit ADTS profile field, which holds object types 1 to 4")
        }
        guard (1...7).contains(config.channelConfiguration) else {
            throw MediaError(
                .unsupportedFormat,
                "channel configuration \(config.channelConfiguration) cannot be written in ADTS, which takes 1 to 7")
        }
    }

    /// Replaces the `aac_frame_length` field (bits 30 to 42) of header bytes already written, so that a
    /// muxer can reuse one header buffer for a stream's packets. `frameLength` is at most 8191.
    package static func patchFrameLength(_ frameLength: Int, in header: inout [UInt8]) {
        guard header.count >= 7 else { return }
        let length = UInt8(truncatingIfNeeded: frameLength >> 11) & 0x03
        header[3] = header[3] & 0xFC | length
        header[4] = UInt8(truncatingIfNeeded: frameLength >> 3)
        header[5] = header[5] & 0x1F | UInt8(truncatingIfNeeded: frameLength << 5)
    }
}

/// Takes bit fields, most significant first, from up to 64 bits held in an integer.
private struct FieldReader {
    let bits: UInt64
    var left: Int

    init(bits: UInt64, width: Int) {
        self.bits = bits
        self.left = width
    }

    mutating func take(_ count: Int) -> Int {
        left -= count
        return Int(truncatingIfNeeded: (bits >> UInt64(left)) & ((1 << UInt64(count)) - 1))
    }
}
