public import MediaCore

/// The fixed parts of a Core Audio Format file: the file header and the chunk header
/// (Apple, "Core Audio Format Specification 1.0": `CAFFileHeader`, `CAFChunkHeader`).
public enum CAFFile {
    /// `mFileType`: `'caff'`.
    public static let fileType: [UInt8] = Array("caff".utf8)
    /// `mFileVersion`: 1, the only version.
    public static let fileVersion: UInt16 = 1
    /// Bytes of the file header: `mFileType`, `mFileVersion`, `mFileFlags`.
    public static let fileHeaderSize = 8
    /// Bytes of a chunk header: `mChunkType` and the 64-bit `mChunkSize`.
    public static let chunkHeaderSize = 12
    /// `kCAFChannelLayoutTag_UseChannelBitmap`: the `chan` chunk's layout is given by `mChannelBitmap`.
    public static let channelLayoutTagUseBitmap: UInt32 = 1 << 16
    /// `kCAFChannelLayoutTag_Mono`.
    public static let channelLayoutTagMono: UInt32 = 100 << 16 | 1
    /// `kCAFChannelLayoutTag_Stereo`.
    public static let channelLayoutTagStereo: UInt32 = 101 << 16 | 2

    /// The big-endian four-character code of `text` (`"aac "` → `0x61616320`); 0 unless it has 4 bytes.
    public static func fourCC(_ text: String) -> UInt32 {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { return 0 }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The text of a four-character code (`0x61616320` → `"aac "`), with non-printable bytes as `?`.
    public static func fourCCString(_ code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: code >> (24 - 8 * $0)) }
        return String(decoding: bytes.map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
    }
}

/// The `desc` chunk: the stream's `AudioStreamBasicDescription`, big-endian, 32 bytes.
public struct CAFAudioDescription: Sendable, Hashable {
    /// `kAudioFormatLinearPCM`: `'lpcm'`.
    public static let linearPCM = CAFFile.fourCC("lpcm")
    /// `kAudioFormatMPEG4AAC`: `'aac '`.
    public static let mpeg4AAC = CAFFile.fourCC("aac ")
    /// `kAudioFormatAppleLossless`: `'alac'`.
    public static let appleLossless = CAFFile.fourCC("alac")
    /// `kCAFLinearPCMFormatFlagIsFloat`.
    public static let flagIsFloat: UInt32 = 1 << 0
    /// `kCAFLinearPCMFormatFlagIsLittleEndian`.
    public static let flagIsLittleEndian: UInt32 = 1 << 1
    /// Bytes of the chunk's body.
    public static let size = 32

    /// `mSampleRate`: frames per second.
    public var sampleRate: Double
    /// `mFormatID`: the codec's four-character code.
    public var formatID: UInt32
    /// `mFormatFlags`: for linear PCM, ``flagIsFloat`` and ``flagIsLittleEndian``.
    public var formatFlags: UInt32
    /// `mBytesPerPacket`: 0 when packets vary in size (their sizes are in `pakt`).
    public var bytesPerPacket: UInt32
    /// `mFramesPerPacket`: 0 when packets vary in duration.
    public var framesPerPacket: UInt32
    /// `mChannelsPerFrame`.
    public var channelsPerFrame: UInt32
    /// `mBitsPerChannel`: 0 for compressed formats.
    public var bitsPerChannel: UInt32

    /// A description with every field given.
    public init(
        sampleRate: Double, formatID: UInt32, formatFlags: UInt32, bytesPerPacket: UInt32,
        framesPerPacket: UInt32, channelsPerFrame: UInt32, bitsPerChannel: UInt32
    ) {
        self.sampleRate = sampleRate
        self.formatID = formatID
        self.formatFlags = formatFlags
        self.bytesPerPacket = bytesPerPacket
        self.framesPerPacket = framesPerPacket
        self.channelsPerFrame = channelsPerFrame
        self.bitsPerChannel = bitsPerChannel
    }

    /// Parses the chunk's body; `offset` is its position in the file, for errors.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` when the body is shorter than 32 bytes.
    public init(parsing body: [UInt8], at offset: Int64 = 0) throws(MediaError) {
        var r = ByteReader(body, baseOffset: offset)
        sampleRate = Double(bitPattern: try r.readUInt64BE("CAF 'desc' mSampleRate"))  // mSampleRate
        formatID = try r.readUInt32BE("CAF 'desc' mFormatID")  // mFormatID
        formatFlags = try r.readUInt32BE("CAF 'desc' mFormatFlags")  // mFormatFlags
        bytesPerPacket = try r.readUInt32BE("CAF 'desc' mBytesPerPacket")  // mBytesPerPacket
        framesPerPacket = try r.readUInt32BE("CAF 'desc' mFramesPerPacket")  // mFramesPerPacket
        channelsPerFrame = try r.readUInt32BE("CAF 'desc' mChannelsPerFrame")  // mChannelsPerFrame
        bitsPerChannel = try r.readUInt32BE("CAF 'desc' mBitsPerChannel")  // mBitsPerChannel
    }

    /// The 32-byte body, big-endian.
    public var bytes: [UInt8] {
        var w = ByteWriter(capacity: Self.size)
        w.writeUInt64BE(sampleRate.bitPattern)  // mSampleRate
        w.writeUInt32BE(formatID)  // mFormatID
        w.writeUInt32BE(formatFlags)  // mFormatFlags
        w.writeUInt32BE(bytesPerPacket)  // mBytesPerPacket
        w.writeUInt32BE(framesPerPacket)  // mFramesPerPacket
        w.writeUInt32BE(channelsPerFrame)  // mChannelsPerFrame
        w.writeUInt32BE(bitsPerChannel)  // mBitsPerChannel
        return w.bytes
    }

    /// Whether the format is linear PCM.
    public var isLinearPCM: Bool { formatID == Self.linearPCM }
}

/// The `pakt` chunk: how many packets and frames the stream has, and each packet's size (and duration,
/// when they vary) as the CAF variable-length integers.
public struct CAFPacketTable: Sendable, Hashable {
    /// `mNumberPackets`.
    public var numberPackets: Int64
    /// `mNumberValidFrames`: frames left after dropping priming and remainder.
    public var numberValidFrames: Int64
    /// `mPrimingFrames`: frames at the start that playback drops (encoder delay).
    public var primingFrames: Int32
    /// `mRemainderFrames`: frames at the end that playback drops (padding of the last packet).
    public var remainderFrames: Int32
    /// Each packet's byte size; empty when `mBytesPerPacket` is constant.
    public var packetSizes: [Int]
    /// Each packet's frame count; empty when `mFramesPerPacket` is constant.
    public var packetFrames: [Int]

    /// A table with every field given.
    public init(
        numberPackets: Int64, numberValidFrames: Int64, primingFrames: Int32, remainderFrames: Int32,
        packetSizes: [Int], packetFrames: [Int] = []
    ) {
        self.numberPackets = numberPackets
        self.numberValidFrames = numberValidFrames
        self.primingFrames = primingFrames
        self.remainderFrames = remainderFrames
        self.packetSizes = packetSizes
        self.packetFrames = packetFrames
    }

    /// Parses the chunk's body. `hasSizes` / `hasFrames`: whether each entry holds a byte size
    /// (`mBytesPerPacket` is 0) and a frame count (`mFramesPerPacket` is 0). `offset` is the body's
    /// position in the file.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` for a header shorter than 24 bytes or a table that ends
    ///   early, ``/MediaCore/MediaError/Code/invalidData`` for negative counts, a packet count the chunk cannot
    ///   hold, or a variable-length integer longer than 9 bytes or larger than `Int.max`.
    public init(parsing body: [UInt8], hasSizes: Bool, hasFrames: Bool, at offset: Int64 = 0) throws(MediaError) {
        var r = ByteReader(body, baseOffset: offset)
        let packets = Int64(bitPattern: try r.readUInt64BE("CAF 'pakt' mNumberPackets"))  // mNumberPackets
        let valid = Int64(bitPattern: try r.readUInt64BE("CAF 'pakt' mNumberValidFrames"))  // mNumberValidFrames
        let priming = Int32(bitPattern: try r.readUInt32BE("CAF 'pakt' mPrimingFrames"))  // mPrimingFrames
        let remainder = Int32(bitPattern: try r.readUInt32BE("CAF 'pakt' mRemainderFrames"))  // mRemainderFrames
        guard packets >= 0, valid >= 0, priming >= 0, remainder >= 0 else {
            throw MediaError.invalidData(
                "CAF 'pakt' has a negative count (packets \(packets), valid \(valid), priming \(priming), remainder \(remainder))",
                at: offset)
        }
        let perEntry = (hasSizes ? 1 : 0) + (hasFrames ? 1 : 0)
        // Every integer takes at least one byte: a count the chunk cannot hold is refused before allocating.
        guard perEntry == 0 || packets <= Int64(r.remaining / perEntry) else {
            throw MediaError.invalidData(
                "CAF 'pakt' declares \(count: packets, "packet") but its table of \(count: r.remaining, "byte") holds at most \(r.remaining / perEntry)",
                at: offset)
        }
        var sizes: [Int] = []
        var frames: [Int] = []
        if hasSizes { sizes.reserveCapacity(Int(packets)) }
        if hasFrames { frames.reserveCapacity(Int(packets)) }
        var index: Int64 = 0
        while index < packets && perEntry > 0 {
            if hasSizes { sizes.append(try Self.readVarint(&r, "size of packet \(index)")) }
            if hasFrames { frames.append(try Self.readVarint(&r, "frame count of packet \(index)")) }
            index += 1
        }
        numberPackets = packets
        numberValidFrames = valid
        primingFrames = priming
        remainderFrames = remainder
        packetSizes = sizes
        packetFrames = frames
    }

    /// The chunk's body: the four counts, then each entry's size and frame count as variable-length
    /// integers (whichever of ``packetSizes`` and ``packetFrames`` are not empty).
    public var bytes: [UInt8] {
        var w = ByteWriter(capacity: 24 + packetSizes.count * 2)
        w.writeUInt64BE(UInt64(bitPattern: numberPackets))  // mNumberPackets
        w.writeUInt64BE(UInt64(bitPattern: numberValidFrames))  // mNumberValidFrames
        w.writeUInt32BE(UInt32(bitPattern: primingFrames))  // mPrimingFrames
        w.writeUInt32BE(UInt32(bitPattern: remainderFrames))  // mRemainderFrames
        for i in 0..<max(packetSizes.count, packetFrames.count) {
            if i < packetSizes.count { Self.writeVarint(UInt64(clamping: packetSizes[i]), into: &w) }
            if i < packetFrames.count { Self.writeVarint(UInt64(clamping: packetFrames[i]), into: &w) }
        }
        return w.bytes
    }

    /// The most bytes a variable-length integer may take: 9 × 7 = 63 bits.
    static let maxVarintBytes = 9

    /// Reads one CAF variable-length integer: 7 bits per byte, most significant first, high bit set on
    /// every byte but the last.
    /// `what` names the integer in errors; it is built only when one is thrown.
    static func readVarint(_ r: inout ByteReader, _ what: @autoclosure () -> String) throws(MediaError) -> Int {
        let start = r.absoluteOffset
        var value: UInt64 = 0
        for _ in 0..<maxVarintBytes {
            let byte = try r.readUInt8("CAF 'pakt' \(what())")
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                guard let result = Int(exactly: value) else {
                    throw MediaError.invalidData("CAF 'pakt' \(what()) of \(value) is too large", at: start)
                }
                return result
            }
        }
        throw MediaError.invalidData(
            "CAF 'pakt' \(what()) is a variable-length integer that does not end within \(count: maxVarintBytes, "byte")",
            at: start)
    }

    /// Appends `value` as a CAF variable-length integer.
    static func writeVarint(_ value: UInt64, into w: inout ByteWriter) {
        var groups = 1
        while groups < 10 && value >> (7 * UInt64(groups)) != 0 { groups += 1 }
        for g in stride(from: groups - 1, through: 0, by: -1) {
            let bits = UInt8(truncatingIfNeeded: value >> (7 * UInt64(g))) & 0x7F
            w.writeUInt8(g == 0 ? bits : bits | 0x80)
        }
    }
}

/// The AAC magic cookie as Apple writes it in `kuki`: an MPEG-4 `ES_Descriptor` (ISO 14496-1 7.2.6.5)
/// around the AudioSpecificConfig.
public enum CAFMagicCookie {
    /// `ES_DescrTag`.
    static let esDescriptorTag: UInt8 = 0x03
    /// `DecoderConfigDescrTag`.
    static let decoderConfigTag: UInt8 = 0x04
    /// `DecSpecificInfoTag`.
    static let decoderSpecificInfoTag: UInt8 = 0x05
    /// `SLConfigDescrTag`.
    static let slConfigTag: UInt8 = 0x06
    /// Offset of `maxBitrate` within the cookie that ``esDescriptor(audioSpecificConfig:bufferSize:maxBitrate:averageBitrate:)`` writes.
    public static let maxBitrateOffset = 18
    /// Offset of `avgBitrate` within that cookie.
    public static let averageBitrateOffset = 22

    /// The `ES_Descriptor` Apple's AAC encoder writes, with each length as 4 bytes (`80 80 80 LL`): 39
    /// bytes for a 2-byte AudioSpecificConfig.
    public static func esDescriptor(
        audioSpecificConfig asc: [UInt8], bufferSize: UInt32 = 6144, maxBitrate: UInt32 = 0, averageBitrate: UInt32 = 0
    ) -> [UInt8] {
        var dsi = ByteWriter()
        dsi.write(asc)  // DecSpecificInfo: AudioSpecificConfig
        var decoderConfig = ByteWriter()
        decoderConfig.writeUInt8(0x40)  // objectTypeIndication: MPEG-4 Audio
        decoderConfig.writeUInt8(5 << 2 | 1)  // streamType AudioStream (5), upStream 0, reserved 1
        decoderConfig.writeUInt8(UInt8(truncatingIfNeeded: bufferSize >> 16))  // bufferSizeDB (24 bits)
        decoderConfig.writeUInt16BE(UInt16(truncatingIfNeeded: bufferSize))
        decoderConfig.writeUInt32BE(maxBitrate)  // maxBitrate
        decoderConfig.writeUInt32BE(averageBitrate)  // avgBitrate
        appendDescriptor(decoderSpecificInfoTag, dsi.bytes, into: &decoderConfig)
        var es = ByteWriter()
        es.writeUInt16BE(0)  // ES_ID
        es.writeUInt8(0)  // streamDependenceFlag, URL_Flag, OCRstreamFlag, streamPriority
        appendDescriptor(decoderConfigTag, decoderConfig.bytes, into: &es)
        appendDescriptor(slConfigTag, [0x02], into: &es)  // SLConfigDescriptor predefined = 2 (MP4 file)
        var cookie = ByteWriter()
        appendDescriptor(esDescriptorTag, es.bytes, into: &cookie)
        return cookie.bytes
    }

    private static func appendDescriptor(_ tag: UInt8, _ body: [UInt8], into w: inout ByteWriter) {
        w.writeUInt8(tag)
        let length = UInt32(truncatingIfNeeded: body.count)
        w.writeUInt8(0x80 | UInt8(truncatingIfNeeded: length >> 21 & 0x7F))  // sizeOfInstance, 7 bits per byte
        w.writeUInt8(0x80 | UInt8(truncatingIfNeeded: length >> 14 & 0x7F))
        w.writeUInt8(0x80 | UInt8(truncatingIfNeeded: length >> 7 & 0x7F))
        w.writeUInt8(UInt8(truncatingIfNeeded: length & 0x7F))
        w.write(body)
    }

    /// The AudioSpecificConfig inside an `ES_Descriptor` cookie (lengths of 1 to 4 bytes); a cookie that
    /// does not start with the `ES_Descriptor` tag is returned as it is (a bare AudioSpecificConfig).
    /// `offset` is the cookie's position in the file, for errors.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` or ``/MediaCore/MediaError/Code/invalidData`` when a descriptor's length
    ///   runs past its parent or the `DecoderConfigDescriptor` or `DecSpecificInfo` is missing.
    public static func audioSpecificConfig(unwrapping cookie: [UInt8], at offset: Int64 = 0) throws(MediaError)
        -> [UInt8]
    {
        guard cookie.first == esDescriptorTag else { return cookie }
        var r = ByteReader(cookie, baseOffset: offset)
        let es = try readDescriptor(&r)
        return try findDecoderSpecificInfo(in: es.body, at: es.offset)
    }

    private static func findDecoderSpecificInfo(in esBody: ArraySlice<UInt8>, at offset: Int64) throws(MediaError)
        -> [UInt8]
    {
        var r = ByteReader(Array(esBody), baseOffset: offset)
        _ = try r.readUInt16BE("ES_Descriptor ES_ID")  // ES_ID
        let flags = try r.readUInt8("ES_Descriptor flags")  // streamDependenceFlag, URL_Flag, OCRstreamFlag
        if flags & 0x80 != 0 { try r.skip(2, "ES_Descriptor dependsOn_ES_ID") }
        if flags & 0x40 != 0 {
            let urlLength = Int(try r.readUInt8("ES_Descriptor URLlength"))
            try r.skip(urlLength, "ES_Descriptor URLstring")
        }
        if flags & 0x20 != 0 { try r.skip(2, "ES_Descriptor OCR_ES_Id") }
        while !r.isAtEnd {
            let descriptor = try readDescriptor(&r)
            guard descriptor.tag == decoderConfigTag else { continue }
            var d = ByteReader(Array(descriptor.body), baseOffset: descriptor.offset)
            try d.skip(13, "DecoderConfigDescriptor")  // objectTypeIndication … avgBitrate
            while !d.isAtEnd {
                let inner = try readDescriptor(&d)
                if inner.tag == decoderSpecificInfoTag { return Array(inner.body) }
            }
            throw MediaError.invalidData("AAC magic cookie has no DecSpecificInfo", at: descriptor.offset)
        }
        throw MediaError.invalidData("AAC magic cookie has no DecoderConfigDescriptor", at: offset)
    }

    private static func readDescriptor(
        _ r: inout ByteReader
    ) throws(MediaError) -> (tag: UInt8, offset: Int64, body: ArraySlice<UInt8>) {
        // `offset` in the result is the body's position, for errors about what is inside it.
        let start = r.absoluteOffset
        let tag = try r.readUInt8("MPEG-4 descriptor tag")
        var length = 0
        for i in 0..<4 {
            let byte = try r.readUInt8("MPEG-4 descriptor length")
            length = length << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
            if i == 3 {
                throw MediaError.invalidData(
                    "MPEG-4 descriptor 0x\(FourCC.hex(tag, digits: 2)) has a length longer than 4 bytes", at: start)
            }
        }
        guard length <= r.remaining else {
            throw MediaError.truncated(
                "MPEG-4 descriptor 0x\(FourCC.hex(tag, digits: 2))", needed: length, available: r.remaining, at: start)
        }
        let bodyOffset = r.absoluteOffset
        return (tag, bodyOffset, try r.readBytes(length, "MPEG-4 descriptor body"))
    }
}
