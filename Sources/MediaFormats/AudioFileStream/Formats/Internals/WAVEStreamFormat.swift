import MediaCore

/// What a WAVE file's `fmt ` chunk says, as Core Audio's `AudioFileStream` reports it: the packets'
/// ``AudioStreamBasicDescription`` and the channel layout. Built by ``WAVEStreamParser`` from a
/// ``WAVFormatChunk`` (parsed by `WAVFormatChunk(parsing:declaredSize:chunkOffset:)`, as ``WAVReader``
/// parses it).
///
/// Accepts, by format tag (or the sub-format of `WAVE_FORMAT_EXTENSIBLE`):
/// - 1 PCM and 3 IEEE float, checked by ``WAVFormatChunk/pcmSampleType(chunkOffset:)`` (``WAVReader``'s
///   rules): `lpcm`, little-endian, packed, signed except 8-bit, float for tag 3. A `wValidBitsPerSample`
///   (or a `wBitsPerSample` such as 12 or 20) smaller than the container gives that many
///   `bitsPerChannel`, aligned high and not packed, as Core Audio describes such data.
/// - 6 A-law and 7 µ-law: `alaw`/`ulaw`, 8 bits per channel, a frame of one byte per channel.
/// - 0x11 IMA ADPCM: ``AudioStreamBasicDescription/dviIntelIMA``, `bytesPerPacket` = `nBlockAlign`,
///   `framesPerPacket` = `wSamplesPerBlock` from the chunk's extension or, when absent or 0, what a
///   block of that size holds.
///
/// Refuses, with the offset of the offending field: 0 channels or a rate of 0 Hz, a block align that
/// does not fit the format (``/MediaCore/MediaError/Code/invalidData``); another format tag, sub-format, or bit
/// depth (``/MediaCore/MediaError/Code/unsupportedFormat``).
struct WAVEStreamFormat: Sendable {
    /// The packets' format.
    var description: AudioStreamBasicDescription
    /// The extensible chunk's channel mask when it names as many speakers as there are channels, else the
    /// channel count's default layout.
    var channelLayout: ChannelLayout
    /// What was worked around (a channel mask or valid bit count that does not fit).
    var diagnostics: [AudioFileStreamDiagnostic] = []

    /// WAVE's A-law format tag.
    static let aLawTag: UInt16 = 0x0006
    /// WAVE's µ-law format tag.
    static let uLawTag: UInt16 = 0x0007
    /// WAVE's IMA (DVI) ADPCM format tag.
    static let imaADPCMTag: UInt16 = 0x0011

    /// The format of `chunk`, whose body (at least its first 20 bytes when it has them) is `body` and
    /// whose header starts at file offset `chunkOffset`.
    init(_ chunk: WAVFormatChunk, body: [UInt8], chunkOffset: Int64) throws(MediaError) {
        let rate = Double(chunk.sampleRate)
        switch chunk.codecTag {
        case WAVFormatChunk.pcmTag, WAVFormatChunk.ieeeFloatTag:
            let type = try chunk.pcmSampleType(chunkOffset: chunkOffset)
            let containerBits = type.bytesPerSample * 8
            var bits = chunk.bitsPerSample
            if chunk.isExtensible && chunk.validBitsPerSample > 0 {
                if chunk.validBitsPerSample <= chunk.bitsPerSample {
                    bits = chunk.validBitsPerSample
                } else {
                    diagnostics.append(
                        .note(
                            "wValidBitsPerSample \(chunk.validBitsPerSample) exceeds the \(chunk.bitsPerSample)-bit container; the container's bits are used",
                            byteOffset: chunkOffset + 26))
                }
            }
            description = .linearPCM(
                sampleRate: rate, channels: chunk.channelCount, bits: containerBits, float: type.isFloat,
                bigEndian: false, signed8: false)
            if !type.isFloat && bits < containerBits {
                description.bitsPerChannel = UInt32(bits)
                description.formatFlags = description.flags.subtracting(.isPacked).union(.isAlignedHigh).rawValue
            }
        case Self.aLawTag, Self.uLawTag:
            try Self.checkRateAndChannels(chunk, chunkOffset: chunkOffset)
            guard chunk.bitsPerSample == 8 || chunk.bitsPerSample == 0 else {
                throw MediaError(
                    .unsupportedFormat,
                    "WAVE G.711 with \(count: chunk.bitsPerSample, "bit") per sample is not supported: only 8 bits are",
                    byteOffset: chunkOffset + 22)
            }
            guard chunk.blockAlign == chunk.channelCount else {
                throw MediaError.invalidData(
                    "WAVE G.711 block align of \(count: chunk.blockAlign, "byte") does not match \(count: chunk.channelCount, "channel") × 1 byte",
                    at: chunkOffset + 20)
            }
            let id =
                chunk.codecTag == Self.aLawTag ? AudioStreamBasicDescription.aLaw : AudioStreamBasicDescription.uLaw
            description = .g711(id, sampleRate: rate, channels: chunk.channelCount)
        case Self.imaADPCMTag:
            description = try Self.imaADPCM(chunk, body: body, chunkOffset: chunkOffset)
        default:
            let name = WAVFormatChunk.formatTagName(chunk.codecTag).map { " (\($0))" } ?? ""
            let what = chunk.isExtensible ? "WAVE_FORMAT_EXTENSIBLE sub-format" : "WAVE format tag"
            throw MediaError(
                .unsupportedFormat,
                "\(what) 0x\(FourCC.hex(chunk.codecTag, digits: 4))\(name) is not supported: only PCM, IEEE float, A-law, µ-law and IMA ADPCM are",
                byteOffset: chunkOffset + (chunk.isExtensible ? 32 : 8))
        }
        let (layout, maskIgnored) = chunk.channelLayout()
        channelLayout = layout
        if maskIgnored {
            diagnostics.append(
                .note(
                    "dwChannelMask 0x\(FourCC.hex(chunk.channelMask, digits: 8)) names \(chunk.channelMask.nonzeroBitCount) speakers but the file has \(count: chunk.channelCount, "channel"); the default layout is used",
                    byteOffset: chunkOffset + 28))
        }
    }

    /// The IMA ADPCM format: blocks of `nBlockAlign` bytes, each a 4-byte header per channel and then
    /// 4-bit samples in 4-byte words per channel.
    private static func imaADPCM(_ chunk: WAVFormatChunk, body: [UInt8], chunkOffset: Int64) throws(MediaError)
        -> AudioStreamBasicDescription
    {
        try checkRateAndChannels(chunk, chunkOffset: chunkOffset)
        guard chunk.bitsPerSample == 4 else {
            throw MediaError(
                .unsupportedFormat,
                "WAVE IMA ADPCM with \(count: chunk.bitsPerSample, "bit") per sample is not supported: only 4 bits are",
                byteOffset: chunkOffset + 22)
        }
        let channels = chunk.channelCount
        guard chunk.blockAlign > 4 * channels, chunk.blockAlign % (4 * channels) == 0 else {
            throw MediaError.invalidData(
                "WAVE IMA ADPCM block align of \(count: chunk.blockAlign, "byte") is not a multiple of 4 × \(count: channels, "channel") larger than the block headers",
                at: chunkOffset + 20)
        }
        let capacity = (chunk.blockAlign / channels - 4) * 2 + 1
        // wSamplesPerBlock: in the 2-byte extension after cbSize, or the extensible chunk's Samples union.
        var declared = 0
        if chunk.isExtensible {
            declared = chunk.validBitsPerSample
        } else if body.count >= 20, Int(body[16]) | Int(body[17]) << 8 >= 2 {
            declared = Int(body[18]) | Int(body[19]) << 8
        }
        guard declared <= capacity else {
            throw MediaError.invalidData(
                "WAVE IMA ADPCM declares \(count: declared, "sample") per block but a \(chunk.blockAlign)-byte block of \(count: channels, "channel") holds \(capacity)",
                at: chunkOffset + 26)
        }
        return AudioStreamBasicDescription(
            sampleRate: Double(chunk.sampleRate), formatID: AudioStreamBasicDescription.dviIntelIMA, formatFlags: 0,
            bytesPerPacket: UInt32(chunk.blockAlign), framesPerPacket: UInt32(declared > 0 ? declared : capacity),
            bytesPerFrame: 0, channelsPerFrame: UInt32(channels), bitsPerChannel: 0)
    }

    /// Refuses 0 channels and a rate of 0 Hz (the checks ``WAVFormatChunk/pcmSampleType(chunkOffset:)``
    /// makes for PCM), with the field's offset.
    private static func checkRateAndChannels(_ chunk: WAVFormatChunk, chunkOffset: Int64) throws(MediaError) {
        guard chunk.channelCount > 0 else {
            throw MediaError.invalidData("WAV 'fmt ' chunk declares 0 channels", at: chunkOffset + 10)
        }
        guard chunk.sampleRate > 0 else {
            throw MediaError.invalidData("WAV 'fmt ' chunk declares a sample rate of 0 Hz", at: chunkOffset + 12)
        }
    }
}
