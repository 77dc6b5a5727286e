import MediaCore

/// An AIFF or AIFF-C `COMM` chunk (AIFF 1.3, AIFF-C draft 1991), and the packets it describes.
///
/// Accepts `numChannels` ≥ 1, any `numSampleFrames`, a normal 80-bit sample rate from 1 Hz to 2^31-1 Hz
/// (see ``ExtendedFloat80``), and these encodings:
/// - AIFF, and AIFF-C `NONE`/`twos`: big-endian signed integers of 1 to 32 bits (`sampleSize`) in whole
///   bytes, left-justified (8-bit AIFF is signed); `sowt`: the same little-endian; `in24`/`in32`:
///   big-endian 24/32-bit, `42ni`/`23ni`: little-endian 24/32-bit; `raw `: unsigned 8-bit;
/// - `fl32`/`FL32`, `fl64`/`FL64`: big-endian IEEE floats (whatever `sampleSize` says);
/// - `ulaw`/`ULAW`, `alaw`/`ALAW`: G.711, one byte per sample (`ulaw`/`alaw` formats, 8 bits);
/// - `ima4`: Apple IMA4, packets of 34 bytes per channel holding 64 frames.
///
/// Packets: a frame for PCM and G.711, a 64-frame block for IMA4. For IMA4 `numSampleFrames` counts
/// packets, as FFmpeg's and libsndfile's writers fill it in (libsndfile writes frames / 64) and FFmpeg's
/// reader takes it (duration = numSampleFrames × 64); ``framesMayCountSamples`` tells the parser to fall
/// back to reading it as a frame count (packets = numSampleFrames / 64 rounded up) when the `SSND` chunk
/// cannot hold that many packets, for writers that count frames.
///
/// - Throws: ``/MediaCore/MediaError/Code/invalidData`` for 0 or negative channels, a sample size outside
///   1...32 for integer PCM, or an unusable rate; ``/MediaCore/MediaError/Code/unsupportedFormat`` for
///   another compression type (`MAC3`, `GSM `, `QDM2` …), naming it. Byte offsets point into the chunk.
struct AIFFCommonChunk: Sendable, Hashable {
    /// Bytes of an AIFF `COMM` body; AIFF-C adds the 4-byte compression type (and a name after it).
    static let aiffSize = 18
    /// Bytes of the AIFF-C `COMM` body this parser reads.
    static let aifcSize = 22

    /// The packets' format.
    var format: AudioStreamBasicDescription
    /// `numSampleFrames` as stored: frames, or for IMA4 packets.
    var numSampleFrames: UInt32
    /// The compression type (`NONE` for AIFF).
    var compressionType: String
    /// Whether `numSampleFrames` may be a frame count rather than a packet count (IMA4).
    var framesMayCountSamples: Bool { format.formatID == AudioStreamBasicDescription.appleIMA4 }

    /// Parses the first 18 (AIFF, or AIFF-C without a compression type) or 22 bytes of the body, which
    /// starts at file offset `offset`.
    init(parsing body: ArraySlice<UInt8>, isAIFC: Bool, at offset: Int64) throws(MediaError) {
        let b = Array(body)
        guard b.count >= Self.aiffSize else {
            throw MediaError.truncated("AIFF 'COMM' chunk", needed: Self.aiffSize, available: b.count, at: offset)
        }
        func be16(_ i: Int) -> Int { Int(Int16(bitPattern: UInt16(b[i]) << 8 | UInt16(b[i + 1]))) }
        let channels = be16(0)
        numSampleFrames = b[2..<6].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let sampleSize = be16(6)
        guard channels >= 1 else {
            throw MediaError.invalidData(
                "AIFF 'COMM' numChannels of \(channels) is not a usable channel count", at: offset)
        }
        let rate = try ExtendedFloat80.double(bigEndian: b[8..<18], at: offset + 8)
        guard rate >= 1, rate <= Double(Int32.max) else {
            throw MediaError.invalidData("AIFF 'COMM' sampleRate of \(rate) is not a usable rate", at: offset + 8)
        }
        let code = isAIFC && b.count >= Self.aifcSize ? Array(b[18..<22]) : Array("NONE".utf8)
        compressionType = String(decoding: code.map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
        format = try Self.format(compressionType, channels: channels, sampleSize: sampleSize, rate: rate, at: offset)
    }

    private static func format(
        _ code: String, channels: Int, sampleSize: Int, rate: Double, at offset: Int64
    ) throws(MediaError) -> AudioStreamBasicDescription {
        switch code {
        case "NONE", "twos":
            return try integerPCM(sampleSize, channels: channels, rate: rate, bigEndian: true, at: offset)
        case "sowt": return try integerPCM(sampleSize, channels: channels, rate: rate, bigEndian: false, at: offset)
        case "in24": return try integerPCM(24, channels: channels, rate: rate, bigEndian: true, at: offset)
        case "in32": return try integerPCM(32, channels: channels, rate: rate, bigEndian: true, at: offset)
        case "42ni": return try integerPCM(24, channels: channels, rate: rate, bigEndian: false, at: offset)
        case "23ni": return try integerPCM(32, channels: channels, rate: rate, bigEndian: false, at: offset)
        case "raw ":
            return .linearPCM(
                sampleRate: rate, channels: channels, bits: 8, float: false, bigEndian: true, signed8: false)
        case "fl32", "FL32":
            return .linearPCM(sampleRate: rate, channels: channels, bits: 32, float: true, bigEndian: true)
        case "fl64", "FL64":
            return .linearPCM(sampleRate: rate, channels: channels, bits: 64, float: true, bigEndian: true)
        case "ulaw", "ULAW", "alaw", "ALAW":
            return AudioStreamBasicDescription(
                sampleRate: rate,
                formatID: code.lowercased() == "ulaw"
                    ? AudioStreamBasicDescription.uLaw : AudioStreamBasicDescription.aLaw,
                bytesPerPacket: UInt32(channels), framesPerPacket: 1, bytesPerFrame: UInt32(channels),
                channelsPerFrame: UInt32(channels), bitsPerChannel: 8)
        case "ima4":
            return AudioStreamBasicDescription(
                sampleRate: rate, formatID: AudioStreamBasicDescription.appleIMA4,
                bytesPerPacket: UInt32(34 * channels),
                framesPerPacket: 64, bytesPerFrame: 0, channelsPerFrame: UInt32(channels), bitsPerChannel: 0)
        default:
            throw MediaError(
                .unsupportedFormat, "AIFF-C compression type '\(code)' is not supported", byteOffset: offset + 18)
        }
    }

    /// Signed integers of `bits` bits in whole bytes, left-justified (`isAlignedHigh` when not packed).
    private static func integerPCM(
        _ bits: Int, channels: Int, rate: Double, bigEndian: Bool, at offset: Int64
    ) throws(MediaError) -> AudioStreamBasicDescription {
        guard (1...32).contains(bits) else {
            throw MediaError.invalidData(
                "AIFF 'COMM' sampleSize of \(count: bits, "bit") is not 1 to 32", at: offset + 6)
        }
        guard bits % 8 != 0 else {
            return .linearPCM(sampleRate: rate, channels: channels, bits: bits, float: false, bigEndian: bigEndian)
        }
        var flags: AudioStreamBasicDescription.Flags = [.isSignedInteger, .isAlignedHigh]
        if bigEndian { flags.insert(.isBigEndian) }
        let frameBytes = UInt32(channels * ((bits + 7) / 8))
        return AudioStreamBasicDescription(
            sampleRate: rate, formatID: AudioStreamBasicDescription.linearPCM, formatFlags: flags.rawValue,
            bytesPerPacket: frameBytes, framesPerPacket: 1, bytesPerFrame: frameBytes,
            channelsPerFrame: UInt32(channels),
            bitsPerChannel: UInt32(bits))
    }
}
