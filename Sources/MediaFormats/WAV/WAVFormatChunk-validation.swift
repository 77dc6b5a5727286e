import MediaCore

extension WAVFormatChunk {
    /// Byte offsets of the `WAVEFORMATEX` fields from the start of the chunk header, for errors.
    private enum FieldOffset {
        static let formatTag: Int64 = 8
        static let channels: Int64 = 10
        static let sampleRate: Int64 = 12
        static let blockAlign: Int64 = 20
        static let bitsPerSample: Int64 = 22
        static let subFormat: Int64 = 32
    }

    /// Checks the chunk describes PCM this library reads and returns the type of its sample values.
    ///
    /// Checks, in this order: channels and sample rate are not zero, the format (tag or extensible
    /// sub-format) is integer PCM or IEEE float, bits per sample is not zero and is a supported depth, and
    /// block align equals channels × bytes per sample. Integer depths that are not whole bytes (12, 20)
    /// are stored in the next whole byte, as in FFmpeg.
    ///
    /// - Parameter chunkOffset: where the chunk header starts in the file; errors give the offset of the
    ///   offending field.
    func pcmSampleType(chunkOffset: Int64) throws(MediaError) -> PCMSampleType {
        guard channelCount > 0 else {
            throw MediaError.invalidData("WAV 'fmt ' chunk declares 0 channels", at: chunkOffset + FieldOffset.channels)
        }
        guard sampleRate > 0 else {
            throw MediaError.invalidData(
                "WAV 'fmt ' chunk declares a sample rate of 0 Hz", at: chunkOffset + FieldOffset.sampleRate)
        }
        guard sampleRate <= Int(Int32.max) else {
            throw MediaError(
                .unsupportedFormat,
                "WAV sample rate of \(sampleRate) Hz exceeds the \(Int32.max) Hz limit of MediaTime timescales",
                byteOffset: chunkOffset + FieldOffset.sampleRate)
        }
        let isFloat: Bool
        switch codecTag {
        case Self.pcmTag: isFloat = false
        case Self.ieeeFloatTag: isFloat = true
        default:
            let name = Self.formatTagName(codecTag).map { " (\($0))" } ?? ""
            let hex = "0x" + FourCC.hex(codecTag, digits: 4)
            if isExtensible {
                throw MediaError(
                    .unsupportedFormat,
                    "WAVE_FORMAT_EXTENSIBLE sub-format \(hex)\(name) is not supported: only PCM (0x0001) and IEEE float (0x0003) are",
                    byteOffset: chunkOffset + FieldOffset.subFormat)
            }
            throw MediaError(
                .unsupportedFormat,
                "WAV format tag \(hex)\(name) is not supported: only PCM (0x0001), IEEE float (0x0003) and WAVE_FORMAT_EXTENSIBLE (0xFFFE) are",
                byteOffset: chunkOffset + FieldOffset.formatTag)
        }
        guard bitsPerSample > 0 else {
            throw MediaError.invalidData(
                "WAV 'fmt ' chunk declares 0 bits per sample", at: chunkOffset + FieldOffset.bitsPerSample)
        }
        let type: PCMSampleType
        if isFloat {
            switch bitsPerSample {
            case 32: type = .f32
            case 64: type = .f64
            default:
                throw MediaError(
                    .unsupportedFormat, "\(bitsPerSample)-bit IEEE float WAV is not supported: only 32 and 64 bits are",
                    byteOffset: chunkOffset + FieldOffset.bitsPerSample)
            }
        } else {
            switch bytesPerSample {
            case 1: type = .u8
            case 2: type = .s16
            case 3: type = .s24
            case 4: type = .s32
            default:
                throw MediaError(
                    .unsupportedFormat,
                    "\(bitsPerSample)-bit integer PCM WAV is not supported: only 1 to 32 bits (stored in 1 to 4 bytes) are",
                    byteOffset: chunkOffset + FieldOffset.bitsPerSample)
            }
        }
        let expected = channelCount * type.bytesPerSample
        guard blockAlign == expected else {
            throw MediaError.invalidData(
                "WAV block align of \(count: blockAlign, "byte") does not match \(count: channelCount, "channel") × \(count: type.bytesPerSample, "byte") = \(expected)",
                at: chunkOffset + FieldOffset.blockAlign)
        }
        return type
    }

    /// The channel layout: the extensible chunk's mask when it names exactly ``channelCount`` speakers,
    /// otherwise the default layout for the channel count (``/MediaCore/ChannelLayout/default(channelCount:)``).
    ///
    /// The second value is `true` when a non-zero mask was set aside because its speaker count differs.
    func channelLayout() -> (layout: ChannelLayout, maskIgnored: Bool) {
        let mask = UInt64(channelMask)
        if mask != 0 && mask.nonzeroBitCount == channelCount { return (ChannelLayout(mask: mask), false) }
        return (.default(channelCount: channelCount), mask != 0)
    }

    /// The usual name of a few registered WAV format tags (from `mmreg.h`), for error messages.
    static func formatTagName(_ tag: UInt16) -> String? {
        switch tag {
        case 0x0002: return "Microsoft ADPCM"
        case 0x0006: return "A-law"
        case 0x0007: return "µ-law"
        case 0x0011: return "IMA ADPCM"
        case 0x0031: return "GSM 6.10"
        case 0x0050: return "MPEG audio"
        case 0x0055: return "MPEG Layer 3"
        case 0x00FF, 0x1600, 0x1610: return "AAC"
        case 0x2000: return "AC-3"
        case 0xF1AC: return "FLAC"
        default: return nil
        }
    }
}
