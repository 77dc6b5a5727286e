/// Core Audio's `AudioStreamBasicDescription`: what an audio file's packets are, field for field.
///
/// ```swift
/// let asbd = AudioStreamBasicDescription.linearPCM(sampleRate: 44_100, channels: 2, bits: 16, float: false, bigEndian: true)
/// print(asbd.formatIDString, asbd.bytesPerPacket)   // lpcm 4
/// ```
///
/// Constant-bit-rate formats have ``bytesPerPacket`` > 0 (linear PCM: one frame per packet; IMA4: 34
/// bytes per 64-frame packet and channel); variable ones (AAC, MP3, ALAC) have 0 and describe each packet.
public struct AudioStreamBasicDescription: Sendable, Hashable, CustomStringConvertible {
    /// Frames per second.
    public var sampleRate: Double
    /// The format's four-character code (``linearPCM``, ``mpeg4AAC``, ``mpegLayer3`` …).
    public var formatID: UInt32
    /// Format-specific flags; for linear PCM the ``Flags`` below.
    public var formatFlags: UInt32
    /// Bytes in one packet, 0 when packets vary in size.
    public var bytesPerPacket: UInt32
    /// Frames in one packet, 0 when packets vary in length.
    public var framesPerPacket: UInt32
    /// Bytes in one frame of uncompressed data (linear PCM, A-law, µ-law), 0 for compressed formats.
    public var bytesPerFrame: UInt32
    /// Channels in each frame.
    public var channelsPerFrame: UInt32
    /// Bits of one channel's sample in one frame (linear PCM, A-law, µ-law), 0 for compressed formats.
    public var bitsPerChannel: UInt32

    /// A description with every field given.
    public init(
        sampleRate: Double, formatID: UInt32, formatFlags: UInt32 = 0, bytesPerPacket: UInt32, framesPerPacket: UInt32,
        bytesPerFrame: UInt32, channelsPerFrame: UInt32, bitsPerChannel: UInt32
    ) {
        self.sampleRate = sampleRate
        self.formatID = formatID
        self.formatFlags = formatFlags
        self.bytesPerPacket = bytesPerPacket
        self.framesPerPacket = framesPerPacket
        self.bytesPerFrame = bytesPerFrame
        self.channelsPerFrame = channelsPerFrame
        self.bitsPerChannel = bitsPerChannel
    }

    /// Packed, interleaved linear PCM: signed integers (8-bit samples are unsigned when `signed8` is
    /// false, as in WAVE) or IEEE floats, in either byte order.
    public static func linearPCM(
        sampleRate: Double, channels: Int, bits: Int, float: Bool, bigEndian: Bool, signed8: Bool = true
    ) -> AudioStreamBasicDescription {
        var flags: Flags = [.isPacked]
        if float { flags.insert(.isFloat) } else if bits > 8 || signed8 { flags.insert(.isSignedInteger) }
        if bigEndian && bits > 8 { flags.insert(.isBigEndian) }
        let frameBytes = UInt32(clamping: channels * ((bits + 7) / 8))
        return AudioStreamBasicDescription(
            sampleRate: sampleRate, formatID: linearPCM, formatFlags: flags.rawValue, bytesPerPacket: frameBytes,
            framesPerPacket: 1, bytesPerFrame: frameBytes, channelsPerFrame: UInt32(clamping: channels),
            bitsPerChannel: UInt32(clamping: bits))
    }

    /// The format ID as four characters (`lpcm`, `aac `, `.mp3`), or `0x…` when not printable.
    public var formatIDString: String { Self.fourCharacters(formatID) }

    /// Whether the data is linear PCM.
    public var isLinearPCM: Bool { formatID == Self.linearPCM }

    /// Whether every packet has the same size (``bytesPerPacket`` > 0).
    public var isConstantBitRate: Bool { bytesPerPacket > 0 }

    /// The linear-PCM flags.
    public var flags: Flags { Flags(rawValue: formatFlags) }

    /// E.g. `lpcm 44100 Hz 2 ch 16 bit big-endian signed` or `.mp3 44100 Hz 2 ch 1152 frames/packet`.
    public var description: String {
        var text =
            "\(formatIDString) \(sampleRate.rounded() == sampleRate ? String(Int(sampleRate)) : String(sampleRate)) Hz \(channelsPerFrame) ch"
        if isLinearPCM {
            text += " \(bitsPerChannel) bit"
            text += flags.contains(.isFloat) ? " float" : flags.contains(.isSignedInteger) ? " signed" : " unsigned"
            if flags.contains(.isBigEndian) { text += " big-endian" }
        } else {
            text += framesPerPacket > 0 ? " \(framesPerPacket) frames/packet" : " variable frames/packet"
            text += bytesPerPacket > 0 ? " \(bytesPerPacket) bytes/packet" : ""
        }
        return text
    }

    /// `value` as four characters when all are printable ASCII, else `0x` and eight hex digits.
    public static func fourCharacters(_ value: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: bytes, as: UTF8.self) }
        let hex = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }

    /// The code of four ASCII characters, e.g. `fourCC("lpcm")`.
    public static func fourCC(_ text: StaticString) -> UInt32 {
        text.withUTF8Buffer { bytes in bytes.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } }
    }
}

extension AudioStreamBasicDescription {
    /// `'lpcm'`: linear PCM.
    public static let linearPCM = fourCC("lpcm")
    /// `'aac '`: MPEG-4 AAC.
    public static let mpeg4AAC = fourCC("aac ")
    /// `'.mp3'`: MPEG-1/2/2.5 Layer III.
    public static let mpegLayer3 = fourCC(".mp3")
    /// `'.mp2'`: MPEG-1/2 Layer II.
    public static let mpegLayer2 = fourCC(".mp2")
    /// `'ima4'`: Apple IMA4 (QuickTime IMA ADPCM: 34-byte packets of 64 frames per channel).
    public static let appleIMA4 = fourCC("ima4")
    /// `'alac'`: Apple Lossless.
    public static let appleLossless = fourCC("alac")
    /// `'ulaw'`: G.711 µ-law.
    public static let uLaw = fourCC("ulaw")
    /// `'alaw'`: G.711 A-law.
    public static let aLaw = fourCC("alaw")
    /// `0x6D730011`: Intel/DVI IMA ADPCM as WAVE stores it (Core Audio's `kAudioFormatDVIIntelIMA`).
    public static let dviIntelIMA: UInt32 = 0x6D73_0011

    /// Linear PCM's `mFormatFlags` (Core Audio's `kAudioFormatFlag…`).
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt32
        /// Flags from raw bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// IEEE floating point samples.
        public static let isFloat = Flags(rawValue: 1 << 0)
        /// Big-endian samples.
        public static let isBigEndian = Flags(rawValue: 1 << 1)
        /// Signed integer samples.
        public static let isSignedInteger = Flags(rawValue: 1 << 2)
        /// Samples fill their bytes.
        public static let isPacked = Flags(rawValue: 1 << 3)
        /// Samples sit in the high bits of their bytes (only meaningful when not packed).
        public static let isAlignedHigh = Flags(rawValue: 1 << 4)
        /// One buffer per channel.
        public static let isNonInterleaved = Flags(rawValue: 1 << 5)
    }
}
