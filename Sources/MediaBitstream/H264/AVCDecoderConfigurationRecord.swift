public import MediaCore

/// The H.264 decoder configuration, `AVCDecoderConfigurationRecord` of ISO/IEC 14496-15 section
/// 5.3.3.1 (5.2.4.1 in earlier editions): the payload of an MP4 `avcC` box, the magic cookie of an
/// H.264 stream, holding its SPS and PPS NAL units.
///
/// ```swift
/// let record = try AVCDecoderConfigurationRecord(sequenceParameterSets: [sps], pictureParameterSets: [pps])
/// let bytes = record.bytes                                   // what ffmpeg writes into an MP4's avcC box
/// assert(try AVCDecoderConfigurationRecord(parsing: bytes) == record)
/// ```
public struct AVCDecoderConfigurationRecord: Sendable, Hashable {
    /// `configurationVersion`: always 1.
    public var configurationVersion: UInt8
    /// `AVCProfileIndication`: `profile_idc` of the SPS.
    public var profileIndication: UInt8
    /// `profile_compatibility`: the constraint-flag byte of the SPS.
    public var profileCompatibility: UInt8
    /// `AVCLevelIndication`: `level_idc` of the SPS.
    public var levelIndication: UInt8
    /// `lengthSizeMinusOne`: the size of the NAL unit length prefixes of the samples, minus one (0, 1 or 3).
    public var lengthSizeMinusOne: UInt8
    /// The `sequenceParameterSetNALUnit`s (header byte included, emulation prevention in place).
    public var sequenceParameterSets: [[UInt8]]
    /// The `pictureParameterSetNALUnit`s.
    public var pictureParameterSets: [[UInt8]]
    /// The fields that follow for the high profiles, or `nil` when the record has none.
    public var highProfileExtension: HighProfileExtension?

    /// The fields ISO/IEC 14496-15 adds after the PPS for the high profiles.
    public struct HighProfileExtension: Sendable, Hashable {
        /// `chroma_format` (2 bits): `chroma_format_idc` of the SPS.
        public var chromaFormat: UInt8
        /// `bit_depth_luma_minus8` (3 bits).
        public var bitDepthLumaMinus8: UInt8
        /// `bit_depth_chroma_minus8` (3 bits).
        public var bitDepthChromaMinus8: UInt8
        /// The `sequenceParameterSetExtNALUnit`s.
        public var sequenceParameterSetExtensions: [[UInt8]]

        /// An extension with every field given.
        public init(
            chromaFormat: UInt8, bitDepthLumaMinus8: UInt8, bitDepthChromaMinus8: UInt8,
            sequenceParameterSetExtensions: [[UInt8]] = []
        ) {
            self.chromaFormat = chromaFormat
            self.bitDepthLumaMinus8 = bitDepthLumaMinus8
            self.bitDepthChromaMinus8 = bitDepthChromaMinus8
            self.sequenceParameterSetExtensions = sequenceParameterSetExtensions
        }
    }

    /// Whether a record for `profileIdc` carries ``HighProfileExtension``: for every profile except
    /// 66 (Baseline), 77 (Main) and 88 (Extended). The first edition of ISO/IEC 14496-15 names only
    /// 100, 110, 122 and 144; this is the later rule that FFmpeg's `ff_isom_write_avcc` follows, so that
    /// High 4:4:4 Predictive (244) streams get the same bytes as in FFmpeg's MP4 files.
    public static func hasHighProfileExtension(profileIdc: UInt8) -> Bool {
        profileIdc != 66 && profileIdc != 77 && profileIdc != 88
    }

    /// A record for the given parameter set NAL units: profile, compatibility and level from the first
    /// SPS, `lengthSizeMinusOne` 3 (4-byte lengths), and the high-profile extension (chroma format and
    /// bit depths from the SPS) when ``hasHighProfileExtension(profileIdc:)`` says so.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` without an SPS, with more than 31 SPS or 255 PPS,
    ///   or with a parameter set longer than 65535 bytes; the errors of ``H264SPS/init(parsing:baseOffset:)``
    ///   for the first SPS.
    public init(sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]]) throws(MediaError) {
        guard let first = sequenceParameterSets.first else {
            throw MediaError(.invalidArgument, "an AVCDecoderConfigurationRecord needs at least one SPS")
        }
        guard sequenceParameterSets.count <= 31, pictureParameterSets.count <= 255 else {
            throw MediaError(
                .invalidArgument,
                "an AVCDecoderConfigurationRecord holds at most 31 SPS and 255 PPS, not \(sequenceParameterSets.count) and \(pictureParameterSets.count)"
            )
        }
        for set in sequenceParameterSets + pictureParameterSets where set.isEmpty || set.count > 0xFFFF {
            throw MediaError(
                .invalidArgument, "a parameter set of \(set.count) bytes does not fit a 16-bit length (1...65535)")
        }
        let sps = try H264SPS(parsing: first)
        configurationVersion = 1
        profileIndication = sps.profileIdc
        profileCompatibility = sps.constraintFlags
        levelIndication = sps.levelIdc
        lengthSizeMinusOne = 3
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        highProfileExtension = nil
        if Self.hasHighProfileExtension(profileIdc: sps.profileIdc) {
            highProfileExtension = HighProfileExtension(
                chromaFormat: UInt8(sps.chromaFormatIdc),
                bitDepthLumaMinus8: UInt8(sps.bitDepthLumaMinus8),
                bitDepthChromaMinus8: UInt8(sps.bitDepthChromaMinus8))
        }
    }

    /// Parses the payload of an `avcC` box (without the box header), which starts at `baseOffset`.
    ///
    /// The high-profile extension is read when at least four bytes follow the PPS; fewer trailing bytes
    /// are ignored, as FFmpeg does for records written before the extension existed.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` when a count or a length runs past the end, with the
    ///   offset of the field; ``/MediaCore/MediaError/Code/invalidData`` for a `configurationVersion` other than 1
    ///   or an empty parameter set.
    public init(parsing bytes: [UInt8], baseOffset: Int64 = 0) throws(MediaError) {
        var reader = ByteReader(bytes, baseOffset: baseOffset)
        configurationVersion = try reader.readUInt8("configurationVersion")
        guard configurationVersion == 1 else {
            throw MediaError.invalidData("avcC configurationVersion is \(configurationVersion), not 1", at: baseOffset)
        }
        profileIndication = try reader.readUInt8("AVCProfileIndication")
        profileCompatibility = try reader.readUInt8("profile_compatibility")
        levelIndication = try reader.readUInt8("AVCLevelIndication")
        // reserved '111111'b, lengthSizeMinusOne
        lengthSizeMinusOne = try reader.readUInt8("lengthSizeMinusOne") & 0x03
        // reserved '111'b
        let numOfSequenceParameterSets = Int(try reader.readUInt8("numOfSequenceParameterSets") & 0x1F)
        sequenceParameterSets = try Self.readParameterSets(
            &reader, count: numOfSequenceParameterSets, "sequenceParameterSet")
        let numOfPictureParameterSets = Int(try reader.readUInt8("numOfPictureParameterSets"))
        pictureParameterSets = try Self.readParameterSets(
            &reader, count: numOfPictureParameterSets, "pictureParameterSet")
        highProfileExtension = nil
        if reader.remaining >= 4 {
            let chromaFormat = try reader.readUInt8("chroma_format") & 0x03  // reserved '111111'b
            let bitDepthLumaMinus8 = try reader.readUInt8("bit_depth_luma_minus8") & 0x07  // reserved '11111'b
            let bitDepthChromaMinus8 = try reader.readUInt8("bit_depth_chroma_minus8") & 0x07  // reserved '11111'b
            let numOfSequenceParameterSetExt = Int(try reader.readUInt8("numOfSequenceParameterSetExt"))
            let extensions = try Self.readParameterSets(
                &reader, count: numOfSequenceParameterSetExt, "sequenceParameterSetExt")
            highProfileExtension = HighProfileExtension(
                chromaFormat: chromaFormat, bitDepthLumaMinus8: bitDepthLumaMinus8,
                bitDepthChromaMinus8: bitDepthChromaMinus8, sequenceParameterSetExtensions: extensions)
        }
    }

    private static func readParameterSets(
        _ reader: inout ByteReader, count: Int, _ what: String
    ) throws(MediaError) -> [[UInt8]] {
        var sets: [[UInt8]] = []
        for _ in 0..<count {
            let lengthOffset = reader.absoluteOffset
            let length = Int(try reader.readUInt16BE("\(what)Length"))
            guard length > 0 else {
                throw MediaError.invalidData("avcC \(what)Length is 0", at: lengthOffset)
            }
            guard length <= reader.remaining else {
                throw MediaError.truncated(
                    "avcC \(what)NALUnit", needed: length, available: reader.remaining, at: lengthOffset)
            }
            sets.append(Array(try reader.readBytes(length, "\(what)NALUnit")))
        }
        return sets
    }

    /// The record as the bytes of an `avcC` box payload.
    public var bytes: [UInt8] {
        var w = ByteWriter()
        w.writeUInt8(configurationVersion)  // configurationVersion
        w.writeUInt8(profileIndication)  // AVCProfileIndication
        w.writeUInt8(profileCompatibility)  // profile_compatibility
        w.writeUInt8(levelIndication)  // AVCLevelIndication
        w.writeUInt8(0xFC | lengthSizeMinusOne & 0x03)  // reserved '111111'b, lengthSizeMinusOne
        // reserved '111'b, numOfSequenceParameterSets
        w.writeUInt8(0xE0 | UInt8(truncatingIfNeeded: sequenceParameterSets.count) & 0x1F)
        for set in sequenceParameterSets {
            w.writeUInt16BE(UInt16(truncatingIfNeeded: set.count))  // sequenceParameterSetLength
            w.write(set)  // sequenceParameterSetNALUnit
        }
        w.writeUInt8(UInt8(truncatingIfNeeded: pictureParameterSets.count))  // numOfPictureParameterSets
        for set in pictureParameterSets {
            w.writeUInt16BE(UInt16(truncatingIfNeeded: set.count))  // pictureParameterSetLength
            w.write(set)  // pictureParameterSetNALUnit
        }
        if let ext = highProfileExtension {
            w.writeUInt8(0xFC | ext.chromaFormat & 0x03)  // reserved '111111'b, chroma_format
            w.writeUInt8(0xF8 | ext.bitDepthLumaMinus8 & 0x07)  // reserved '11111'b, bit_depth_luma_minus8
            w.writeUInt8(0xF8 | ext.bitDepthChromaMinus8 & 0x07)  // reserved '11111'b, bit_depth_chroma_minus8
            // numOfSequenceParameterSetExt
            w.writeUInt8(UInt8(truncatingIfNeeded: ext.sequenceParameterSetExtensions.count))
            for set in ext.sequenceParameterSetExtensions {
                w.writeUInt16BE(UInt16(truncatingIfNeeded: set.count))  // sequenceParameterSetExtLength
                w.write(set)  // sequenceParameterSetExtNALUnit
            }
        }
        return w.bytes
    }
}
