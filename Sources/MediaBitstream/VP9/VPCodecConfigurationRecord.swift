public import MediaCore

/// A VP codec configuration record (`vpcC`, "VP Codec ISO Media File Format Binding" section 2.3): the
/// profile, level, bit depth, chroma subsampling and colour of a VP8 or VP9 stream, which VP9 does not
/// carry in a header of its own. The MP4 `vp09` sample entry stores it; ``bytes`` are the box's payload
/// (version 1, flags 0, no codec initialization data), which is what a VP9 ``/MediaCore/VideoFormat``
/// carries as its ``/MediaCore/VideoFormat/codecConfiguration``.
public struct VPCodecConfigurationRecord: Sendable, Hashable {
    /// How the chroma samples of 4:2:0 sit, or that the stream is 4:2:2 or 4:4:4 (`chromaSubsampling`).
    public enum ChromaSubsampling: UInt8, Sendable, Hashable {
        /// 4:2:0, chroma between the luma rows (MPEG-2's siting, the default).
        case vertical420 = 0
        /// 4:2:0, chroma on the top-left luma sample.
        case colocated420 = 1
        /// 4:2:2.
        case horizontal422 = 2
        /// 4:4:4.
        case none444 = 3
    }

    /// VP9's profile, 0 to 3 (1 and 3 for 4:2:2 and 4:4:4, 2 and 3 for 10 and 12 bits).
    public var profile: UInt8
    /// The level as the record writes it (10 for 1, 11 for 1.1, ...; 0 when unknown).
    public var level: UInt8
    /// The bit depth of every plane: 8, 10 or 12.
    public var bitDepth: UInt8
    /// The chroma planes' size and siting.
    public var chromaSubsampling: ChromaSubsampling
    /// Whether the samples use the full range (JPEG's) rather than the video range.
    public var fullRange: Bool
    /// The colour primaries, an ISO/IEC 23091-4 code point (1: BT.709, 2: unspecified, 9: BT.2020).
    public var colourPrimaries: UInt8
    /// The transfer characteristics, an ISO/IEC 23091-4 code point (2: unspecified, 16: PQ, 18: HLG).
    public var transferCharacteristics: UInt8
    /// The matrix coefficients, an ISO/IEC 23091-4 code point (1: BT.709, 2: unspecified, 9: BT.2020).
    public var matrixCoefficients: UInt8

    /// A record with every field given; the colours unspecified unless given.
    public init(
        profile: UInt8, level: UInt8 = 0, bitDepth: UInt8, chromaSubsampling: ChromaSubsampling,
        fullRange: Bool = false, colourPrimaries: UInt8 = 2, transferCharacteristics: UInt8 = 2,
        matrixCoefficients: UInt8 = 2
    ) {
        self.profile = profile
        self.level = level
        self.bitDepth = bitDepth
        self.chromaSubsampling = chromaSubsampling
        self.fullRange = fullRange
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
    }

    /// The record in `payload` (a `vpcC` box's payload: version 1, flags, then the fields).
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` for fewer than 12 bytes;
    ///   ``/MediaCore/MediaError/Code/invalidData`` for a version other than 1.
    public init(parsing payload: [UInt8]) throws(MediaError) {
        guard payload.count >= 12 else {
            throw MediaError(.truncated, "a vpcC record needs 12 bytes, not \(payload.count)")
        }
        guard payload[0] == 1 else {
            throw MediaError(.invalidData, "vpcC version \(payload[0]) is not 1", byteOffset: 0)
        }
        profile = payload[4]
        level = payload[5]
        bitDepth = payload[6] >> 4
        chromaSubsampling = ChromaSubsampling(rawValue: payload[6] >> 1 & 7) ?? .vertical420
        fullRange = payload[6] & 1 == 1
        colourPrimaries = payload[7]
        transferCharacteristics = payload[8]
        matrixCoefficients = payload[9]
    }

    /// The `vpcC` payload: version 1, flags 0, the fields, and no codec initialization data.
    public var bytes: [UInt8] {
        [
            1, 0, 0, 0, profile, level, bitDepth << 4 | chromaSubsampling.rawValue << 1 | (fullRange ? 1 : 0),
            colourPrimaries, transferCharacteristics, matrixCoefficients, 0, 0
        ]
    }
}
