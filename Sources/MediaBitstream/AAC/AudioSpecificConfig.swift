public import MediaCore

/// The MPEG-4 audio decoder configuration, `AudioSpecificConfig()` of ISO/IEC 14496-3 section 1.6.2.1:
/// the magic cookie of an AAC stream (what `esds`, CAF's `kuki` chunk and FFmpeg's extradata hold).
///
/// The type reads and writes the fields every AAC decoder needs: the audio object type, the sampling
/// frequency (an index into ``samplingFrequencies`` or an explicit 24-bit rate), the channel
/// configuration and, for the general-audio object types 1–4 and 7, the leading bits of
/// `GASpecificConfig()`. A backward-compatible SBR signal after the core configuration (sync extension
/// `0x2B7`, as FFmpeg's AAC encoder writes it) is read into ``sbrSignal``. Anything else that follows
/// (a `program_config_element()` when the channel configuration is 0, explicit hierarchical HE-AAC
/// fields, error-resilience fields) is kept as opaque bits, so that ``bytes`` gives back what was parsed:
///
/// ```swift
/// let apple = try AudioSpecificConfig(parsing: [0x12, 0x10])          // AAC LC, 44100 Hz, stereo
/// let ffmpeg = try AudioSpecificConfig(parsing: [0x11, 0x90, 0x56, 0xE5, 0x00])
/// assert(ffmpeg.sampleRate == 48_000 && ffmpeg.sbrSignal?.isPresent == false)
/// assert(ffmpeg.bytes == [0x11, 0x90, 0x56, 0xE5, 0x00])
/// ```
public struct AudioSpecificConfig: Sendable, Hashable, CustomStringConvertible {
    /// `audioObjectType`: 1 AAC Main, 2 AAC LC, 3 AAC SSR, 4 AAC LTP, 5 SBR, 29 PS, ... (ISO/IEC 14496-3
    /// table 1.17). Values from 32 to 95 use the 5-bit escape value 31 followed by 6 bits.
    public let objectType: Int
    /// `samplingFrequencyIndex` into ``samplingFrequencies``, or `nil` when the rate is written
    /// explicitly as 24 bits (index 15).
    public let samplingFrequencyIndex: Int?
    /// The sampling frequency in Hz, from the index or the explicit field.
    public let sampleRate: Int
    /// `channelConfiguration`: 1 to 7 name a fixed speaker arrangement (7 is 7.1, eight channels);
    /// 0 means a `program_config_element()` describes the channels.
    public let channelConfiguration: Int
    /// `GASpecificConfig` `frameLengthFlag`: `true` for 960-frame packets, `false` for 1024.
    public let frameLengthFlag: Bool
    /// `GASpecificConfig` `dependsOnCoreCoder`.
    public let dependsOnCoreCoder: Bool
    /// `GASpecificConfig` `coreCoderDelay` (14 bits), present only when ``dependsOnCoreCoder`` is set; 0 otherwise.
    public let coreCoderDelay: Int
    /// `GASpecificConfig` `extensionFlag`.
    public let extensionFlag: Bool
    /// The backward-compatible SBR signal after the core configuration, or `nil` when there is none.
    public let sbrSignal: SBRSignal?
    /// Bits after the fields this type reads, written back unchanged by ``bytes``.
    private let unparsedBits: BitString

    /// The backward-compatible HE-AAC signal of ISO/IEC 14496-3 1.6.2.1: `syncExtensionType` 0x2B7,
    /// `extensionAudioObjectType` 5 (SBR), `sbrPresentFlag` and the SBR output rate, optionally followed
    /// by `syncExtensionType` 0x548 and `psPresentFlag`.
    ///
    /// FFmpeg's AAC encoder appends this signal with `sbrPresentFlag` 0 to say "plain AAC LC, no SBR".
    public struct SBRSignal: Sendable, Hashable {
        /// `sbrPresentFlag`.
        public let isPresent: Bool
        /// `extensionSamplingFrequencyIndex`, or `nil` when SBR is absent or the rate is explicit.
        public let samplingFrequencyIndex: Int?
        /// The output sampling frequency with SBR, or `nil` when SBR is absent.
        public let sampleRate: Int?
        /// `psPresentFlag`, or `nil` when the 0x548 sync extension is absent.
        public let psPresent: Bool?

        /// A signal saying that SBR is absent (what FFmpeg's AAC encoder writes).
        public static let absent = SBRSignal(
            isPresent: false, samplingFrequencyIndex: nil, sampleRate: nil, psPresent: nil)
    }

    /// The 13 sampling frequencies an index can name, `samplingFrequencyIndex` 0 (96000 Hz) to 12 (7350 Hz)
    /// (ISO/IEC 14496-3 table 1.18). Indices 13 and 14 are reserved; 15 means an explicit rate.
    public static let samplingFrequencies: [Int] = [
        96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350
    ]

    /// The `samplingFrequencyIndex` of `sampleRate`, or `nil` when the table has no such rate.
    public static func samplingFrequencyIndex(for sampleRate: Int) -> Int? {
        samplingFrequencies.firstIndex(of: sampleRate)
    }

    /// The largest object type the 5-bit field with its 6-bit escape can hold.
    static let maximumObjectType = 95
    /// The largest rate the explicit 24-bit `samplingFrequency` field can hold.
    static let maximumExplicitSampleRate = 0xFF_FFFF

    /// A configuration with the given core fields and the `GASpecificConfig` flags all zero.
    ///
    /// ``bytes`` writes the rate as an index when ``samplingFrequencies`` has it, otherwise as an explicit
    /// 24-bit rate.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when `objectType` is outside 1...95, `sampleRate`
    ///   outside 1...16777215 or `channelConfiguration` outside 0...15.
    public init(objectType: Int, sampleRate: Int, channelConfiguration: Int) throws(MediaError) {
        guard (1...Self.maximumObjectType).contains(objectType) else {
            throw MediaError(
                .invalidArgument, "audio object type \(objectType) is outside 1...\(Self.maximumObjectType)")
        }
        guard (1...Self.maximumExplicitSampleRate).contains(sampleRate) else {
            throw MediaError(
                .invalidArgument, "sample rate \(sampleRate) Hz is outside 1...\(Self.maximumExplicitSampleRate)")
        }
        guard (0...15).contains(channelConfiguration) else {
            throw MediaError(.invalidArgument, "channel configuration \(channelConfiguration) is outside 0...15")
        }
        self.init(
            objectType: objectType, samplingFrequencyIndex: Self.samplingFrequencyIndex(for: sampleRate),
            sampleRate: sampleRate, channelConfiguration: channelConfiguration)
    }

    /// A configuration from fields already known to be in range (an ADTS header's).
    package init(objectType: Int, samplingFrequencyIndex: Int?, sampleRate: Int, channelConfiguration: Int) {
        self.objectType = objectType
        self.samplingFrequencyIndex = samplingFrequencyIndex
        self.sampleRate = sampleRate
        self.channelConfiguration = channelConfiguration
        frameLengthFlag = false
        dependsOnCoreCoder = false
        coreCoderDelay = 0
        extensionFlag = false
        sbrSignal = nil
        unparsedBits = BitString()
    }

    /// Reads a configuration from its bytes (a magic cookie, FFmpeg extradata, an `esds` DecSpecificInfo).
    ///
    /// Accepts Apple's 2-byte form (`12 10`) and FFmpeg's 5-byte form with the SBR sync extension
    /// (`11 90 56 E5 00`).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` when the bytes end inside a field;
    ///   ``/MediaCore/MediaError/Code/invalidData`` for a reserved sampling frequency index (13, 14) or an explicit
    ///   rate of 0. Byte offsets count from the first byte of `bytes`.
    public init(parsing bytes: some Collection<UInt8>) throws(MediaError) {
        var reader = BitReader(bytes)
        objectType = try Self.readObjectType(&reader)
        (samplingFrequencyIndex, sampleRate) = try Self.readSamplingFrequency(&reader)
        channelConfiguration = Int(try reader.read(4, "AudioSpecificConfig channelConfiguration"))

        var parsesSyncExtension = false
        if Self.hasGASpecificConfig(objectType) {
            frameLengthFlag = try reader.readFlag("GASpecificConfig frameLengthFlag")
            dependsOnCoreCoder = try reader.readFlag("GASpecificConfig dependsOnCoreCoder")
            coreCoderDelay = dependsOnCoreCoder ? Int(try reader.read(14, "GASpecificConfig coreCoderDelay")) : 0
            extensionFlag = try reader.readFlag("GASpecificConfig extensionFlag")
            // A program_config_element or the AAC-scalable layerNr come next; this type does not read them.
            parsesSyncExtension = channelConfiguration != 0 && !extensionFlag
        } else {
            frameLengthFlag = false
            dependsOnCoreCoder = false
            coreCoderDelay = 0
            extensionFlag = false
        }
        sbrSignal = parsesSyncExtension ? Self.readSBRSignal(&reader) : nil
        unparsedBits = BitString(rest: &reader)
    }

    /// The configuration as bytes, zero-padded to a whole byte.
    ///
    /// The rate is written as its index when it has one and as index 15 plus a 24-bit rate otherwise.
    public var bytes: [UInt8] {
        var w = BitWriter()
        Self.writeObjectType(objectType, into: &w)  // audioObjectType
        if let index = samplingFrequencyIndex {
            w.write(UInt32(index), bits: 4)  // samplingFrequencyIndex
        } else {
            w.write(0xF, bits: 4)  // samplingFrequencyIndex (escape)
            w.write(UInt32(truncatingIfNeeded: sampleRate), bits: 24)  // samplingFrequency
        }
        w.write(UInt32(truncatingIfNeeded: channelConfiguration), bits: 4)  // channelConfiguration
        if Self.hasGASpecificConfig(objectType) {
            w.writeFlag(frameLengthFlag)  // GASpecificConfig frameLengthFlag
            w.writeFlag(dependsOnCoreCoder)  // GASpecificConfig dependsOnCoreCoder
            if dependsOnCoreCoder {
                w.write(UInt32(truncatingIfNeeded: coreCoderDelay), bits: 14)  // GASpecificConfig coreCoderDelay
            }
            w.writeFlag(extensionFlag)  // GASpecificConfig extensionFlag
        }
        if let sbr = sbrSignal {
            w.write(0x2B7, bits: 11)  // syncExtensionType
            Self.writeObjectType(5, into: &w)  // extensionAudioObjectType (SBR)
            w.writeFlag(sbr.isPresent)  // sbrPresentFlag
            if sbr.isPresent {
                if let index = sbr.samplingFrequencyIndex {
                    w.write(UInt32(index), bits: 4)  // extensionSamplingFrequencyIndex
                } else {
                    w.write(0xF, bits: 4)  // extensionSamplingFrequencyIndex (escape)
                    w.write(UInt32(truncatingIfNeeded: sbr.sampleRate ?? 0), bits: 24)  // extensionSamplingFrequency
                }
                if let ps = sbr.psPresent {
                    w.write(0x548, bits: 11)  // syncExtensionType
                    w.writeFlag(ps)  // psPresentFlag
                }
            }
        }
        unparsedBits.write(into: &w)
        return w.bytes
    }

    /// E.g. `AAC LC 44100 Hz, channel configuration 2`.
    public var description: String {
        var text = "\(Self.objectTypeName(objectType)) \(sampleRate) Hz, channel configuration \(channelConfiguration)"
        if let sbr = sbrSignal, sbr.isPresent, let rate = sbr.sampleRate { text += ", SBR to \(rate) Hz" }
        return text
    }

    // MARK: - Fields

    /// Whether `GASpecificConfig()` follows and this type reads its leading flags: the non-error-resilient
    /// general-audio object types without AAC-scalable layer fields.
    static func hasGASpecificConfig(_ objectType: Int) -> Bool {
        switch objectType {
        case 1, 2, 3, 4, 7: return true
        default: return false
        }
    }

    /// A short name for an object type, e.g. `AAC LC`.
    package static func objectTypeName(_ objectType: Int) -> String {
        switch objectType {
        case 1: return "AAC Main"
        case 2: return "AAC LC"
        case 3: return "AAC SSR"
        case 4: return "AAC LTP"
        case 5: return "SBR"
        case 29: return "PS"
        default: return "object type \(objectType)"
        }
    }

    /// `GetAudioObjectType()`: 5 bits, or 31 followed by 6 bits for 32 and above.
    private static func readObjectType(_ reader: inout BitReader) throws(MediaError) -> Int {
        let type = Int(try reader.read(5, "audioObjectType"))
        guard type == 31 else { return type }
        return 32 + Int(try reader.read(6, "audioObjectTypeExt"))
    }

    private static func writeObjectType(_ type: Int, into w: inout BitWriter) {
        if type < 31 {
            w.write(UInt32(max(0, type)), bits: 5)  // audioObjectType
        } else {
            w.write(31, bits: 5)  // audioObjectType (escape)
            w.write(UInt32(truncatingIfNeeded: type - 32), bits: 6)  // audioObjectTypeExt
        }
    }

    /// `samplingFrequencyIndex` and, for index 15, the 24-bit `samplingFrequency`.
    private static func readSamplingFrequency(
        _ reader: inout BitReader
    ) throws(MediaError) -> (index: Int?, rate: Int) {
        let offset = reader.baseOffset + Int64(reader.bitPosition / 8)
        let index = Int(try reader.read(4, "samplingFrequencyIndex"))
        if index < samplingFrequencies.count { return (index, samplingFrequencies[index]) }
        guard index == 15 else {
            throw MediaError.invalidData("AudioSpecificConfig samplingFrequencyIndex \(index) is reserved", at: offset)
        }
        let rate = Int(try reader.read(24, "samplingFrequency"))
        guard rate > 0 else {
            throw MediaError.invalidData("AudioSpecificConfig explicit samplingFrequency is 0", at: offset)
        }
        return (nil, rate)
    }

    /// The backward-compatible SBR signal if the next bits hold one; otherwise `nil` and `reader` unmoved.
    private static func readSBRSignal(_ reader: inout BitReader) -> SBRSignal? {
        guard reader.bitsRemaining >= 16 else { return nil }
        var r = reader
        do throws(MediaError) {
            guard try r.read(11, "syncExtensionType") == 0x2B7 else { return nil }
            guard try readObjectType(&r) == 5 else { return nil }  // extensionAudioObjectType
            guard try r.readFlag("sbrPresentFlag") else {
                reader = r
                return .absent
            }
            let (index, rate) = try readSamplingFrequency(&r)  // extensionSamplingFrequency(Index)
            var ps: Bool?
            if r.bitsRemaining >= 12 {
                var p = r
                if try p.read(11, "syncExtensionType") == 0x548 {
                    ps = try p.readFlag("psPresentFlag")
                    r = p
                }
            }
            reader = r
            return SBRSignal(isPresent: true, samplingFrequencyIndex: index, sampleRate: rate, psPresent: ps)
        } catch {
            return nil  // not a complete signal: leave the bits unparsed
        }
    }
}

/// A run of bits, most significant first: the part of a bitstream a parser keeps without reading it.
struct BitString: Sendable, Hashable {
    private var storage: [UInt8] = []
    private var count = 0

    init() {}

    /// Everything left in `reader`; trailing zero padding of less than a byte is dropped, since a
    /// writer pads with zeros anyway.
    init(rest reader: inout BitReader) {
        let total = reader.bitsRemaining
        var w = BitWriter()
        var allZero = true
        while reader.bitsRemaining > 0 {
            let n = min(8, reader.bitsRemaining)
            guard let value = try? reader.read(n) else { break }
            if value != 0 { allZero = false }
            w.write(value, bits: n)
        }
        if allZero && total < 8 { return }
        storage = w.bytes
        count = w.bitsWritten
    }

    /// Appends the bits to `writer`.
    func write(into writer: inout BitWriter) {
        var left = count
        for byte in storage where left > 0 {
            let n = min(8, left)
            writer.write(UInt32(byte) >> UInt32(8 - n), bits: n)
            left -= n
        }
    }
}
