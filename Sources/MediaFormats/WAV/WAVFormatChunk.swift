import MediaCore

/// The `fmt ` chunk of a WAV file: the fields of `WAVEFORMATEX`, plus those of `WAVE_FORMAT_EXTENSIBLE`
/// when present.
///
/// ``WAVReader`` exposes the chunk it parsed as ``WAVReader/formatChunk``; ``WAVMuxer`` writes one built
/// from the format of the samples it is given. Field names follow Microsoft's `mmreg.h`.
public struct WAVFormatChunk: Sendable, Hashable {
    /// `wFormatTag` as written: ``pcmTag``, ``ieeeFloatTag`` or ``extensibleTag``.
    public var formatTag: UInt16
    /// `nChannels`.
    public var channelCount: Int
    /// `nSamplesPerSec`: frames per second.
    public var sampleRate: Int
    /// `nAvgBytesPerSec`: what the writer declared; not used for reading.
    public var byteRate: Int
    /// `nBlockAlign`: the bytes of one frame, all channels.
    public var blockAlign: Int
    /// `wBitsPerSample`: the bits of one sample value's container (rounded up to whole bytes when stored).
    public var bitsPerSample: Int
    /// `wValidBitsPerSample` of an extensible chunk (how many of the container's bits carry signal; 0 means
    /// all of them), or ``bitsPerSample`` when the chunk is not extensible.
    public var validBitsPerSample: Int
    /// `dwChannelMask` of an extensible chunk (speaker positions, as in ``/MediaCore/ChannelLayout/mask``); 0 when the
    /// chunk is not extensible.
    public var channelMask: UInt32
    /// The format tag that the `SubFormat` GUID of an extensible chunk carries in its first bytes
    /// (`KSDATAFORMAT_SUBTYPE_PCM` carries ``pcmTag``); `nil` when the chunk is not extensible.
    public var subFormatTag: UInt16?

    /// `WAVE_FORMAT_PCM`: integer PCM.
    public static let pcmTag: UInt16 = 0x0001
    /// `WAVE_FORMAT_IEEE_FLOAT`: IEEE floating-point PCM.
    public static let ieeeFloatTag: UInt16 = 0x0003
    /// `WAVE_FORMAT_EXTENSIBLE`: the real format is in the `SubFormat` GUID.
    public static let extensibleTag: UInt16 = 0xFFFE

    /// A chunk with every field given.
    public init(
        formatTag: UInt16,
        channelCount: Int,
        sampleRate: Int,
        byteRate: Int,
        blockAlign: Int,
        bitsPerSample: Int,
        validBitsPerSample: Int,
        channelMask: UInt32 = 0,
        subFormatTag: UInt16? = nil
    ) {
        self.formatTag = formatTag
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.byteRate = byteRate
        self.blockAlign = blockAlign
        self.bitsPerSample = bitsPerSample
        self.validBitsPerSample = validBitsPerSample
        self.channelMask = channelMask
        self.subFormatTag = subFormatTag
    }

    /// Whether the chunk is `WAVE_FORMAT_EXTENSIBLE`.
    public var isExtensible: Bool { formatTag == Self.extensibleTag }

    /// The tag that says what the samples are: the sub-format of an extensible chunk, else ``formatTag``.
    public var codecTag: UInt16 { subFormatTag ?? formatTag }

    /// The bytes of one sample value's container: ``bitsPerSample`` rounded up to whole bytes.
    public var bytesPerSample: Int { (bitsPerSample + 7) / 8 }
}

extension WAVFormatChunk {
    /// The 14 bytes that follow the format tag in every `SubFormat` GUID of the form
    /// `XXXXXXXX-0000-0010-8000-00AA00389B71` (`KSDATAFORMAT_SUBTYPE_PCM` and its kin), in file order:
    /// the upper half of `Data1`, then `Data2`, `Data3` and `Data4`.
    static let subFormatGUIDSuffix: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71
    ]

    /// The size of the `WAVEFORMATEX` fields every `fmt ` chunk has.
    static let baseSize = 16
    /// The size of a `WAVE_FORMAT_EXTENSIBLE` chunk body (`WAVEFORMATEX` + `cbSize` + 22 bytes).
    static let extensibleSize = 40

    /// Parses a `fmt ` chunk body. `body` may stop short of the chunk's declared size (the caller reads a
    /// bounded prefix) but holds at least every field the chunk declares up to ``extensibleSize``.
    ///
    /// - Parameters:
    ///   - body: the chunk's bytes after its 8-byte header.
    ///   - declaredSize: the chunk's size field.
    ///   - chunkOffset: where the chunk header starts in the file, for errors.
    init(parsing body: [UInt8], declaredSize: Int64, chunkOffset: Int64) throws(MediaError) {
        guard declaredSize >= Int64(Self.baseSize) else {
            throw MediaError.invalidData(
                "WAV 'fmt ' chunk of \(count: declaredSize, "byte") is shorter than the \(count: Self.baseSize, "byte") of WAVEFORMATEX",
                at: chunkOffset)
        }
        var reader = ByteReader(body, baseOffset: chunkOffset + 8)
        formatTag = try reader.readUInt16LE("wFormatTag")
        channelCount = Int(try reader.readUInt16LE("nChannels"))
        sampleRate = Int(try reader.readUInt32LE("nSamplesPerSec"))
        byteRate = Int(try reader.readUInt32LE("nAvgBytesPerSec"))
        blockAlign = Int(try reader.readUInt16LE("nBlockAlign"))
        bitsPerSample = Int(try reader.readUInt16LE("wBitsPerSample"))
        validBitsPerSample = bitsPerSample
        channelMask = 0
        subFormatTag = nil
        guard formatTag == Self.extensibleTag else { return }

        guard declaredSize >= Int64(Self.extensibleSize) else {
            throw MediaError.invalidData(
                "WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk of \(count: declaredSize, "byte") is shorter than the \(count: Self.extensibleSize, "byte") it needs",
                at: chunkOffset)
        }
        let extensionSize = try reader.readUInt16LE("cbSize")
        guard extensionSize >= 22 else {
            throw MediaError.invalidData(
                "WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk declares cbSize \(extensionSize), less than the 22 bytes of its fields",
                at: reader.absoluteOffset - 2)
        }
        validBitsPerSample = Int(try reader.readUInt16LE("wValidBitsPerSample"))
        channelMask = try reader.readUInt32LE("dwChannelMask")
        let guidOffset = reader.absoluteOffset
        let guid = Array(try reader.readBytes(16, "SubFormat"))
        guard Array(guid[2...]) == Self.subFormatGUIDSuffix else {
            throw MediaError(
                .unsupportedFormat,
                "WAVE_FORMAT_EXTENSIBLE sub-format GUID \(Self.describeGUID(guid)) is not supported: only PCM and IEEE float are",
                byteOffset: guidOffset)
        }
        subFormatTag = UInt16(guid[0]) | UInt16(guid[1]) << 8
    }

    /// A GUID in its usual text form, `{00000055-0000-0010-8000-00AA00389B71}`, from its 16 file bytes.
    static func describeGUID(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return FourCC.describe(bytes) }
        let data1 = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        let data2 = UInt16(bytes[4]) | UInt16(bytes[5]) << 8
        let data3 = UInt16(bytes[6]) | UInt16(bytes[7]) << 8
        let data4 = bytes[8...].map { FourCC.hex($0, digits: 2) }
        return "{" + FourCC.hex(data1, digits: 8) + "-" + FourCC.hex(data2, digits: 4) + "-"
            + FourCC.hex(data3, digits: 4)
            + "-" + data4[0..<2].joined() + "-" + data4[2...].joined() + "}"
    }

    /// The chunk, header included, as a file holds it: 8 + 16 bytes, or 8 + 40 when extensible.
    func serialized() -> [UInt8] {
        var writer = ByteWriter(capacity: 8 + Self.extensibleSize)
        writer.write(FourCC.fmt)
        writer.writeUInt32LE(UInt32(isExtensible ? Self.extensibleSize : Self.baseSize))  // chunk size
        writer.writeUInt16LE(formatTag)  // wFormatTag
        writer.writeUInt16LE(UInt16(truncatingIfNeeded: channelCount))  // nChannels
        writer.writeUInt32LE(UInt32(truncatingIfNeeded: sampleRate))  // nSamplesPerSec
        writer.writeUInt32LE(UInt32(truncatingIfNeeded: byteRate))  // nAvgBytesPerSec
        writer.writeUInt16LE(UInt16(truncatingIfNeeded: blockAlign))  // nBlockAlign
        writer.writeUInt16LE(UInt16(truncatingIfNeeded: bitsPerSample))  // wBitsPerSample
        if isExtensible {
            writer.writeUInt16LE(22)  // cbSize
            writer.writeUInt16LE(UInt16(truncatingIfNeeded: validBitsPerSample))  // wValidBitsPerSample
            writer.writeUInt32LE(channelMask)  // dwChannelMask
            writer.writeUInt32LE(UInt32(subFormatTag ?? Self.pcmTag))  // SubFormat: Data1
            writer.write(Self.subFormatGUIDSuffix.dropFirst(2))  // SubFormat: Data2, Data3, Data4
        }
        return writer.bytes
    }
}
