public import MediaCore

/// An HEVC decoder configuration record (`hvcC`, ISO/IEC 14496-15 section 8.3.3.1): the profile, tier,
/// level, chroma format and bit depths of the stream, and its VPS, SPS, PPS and SEI NAL units, as an
/// MP4 `hvc1` sample entry or Matroska's `CodecPrivate` carries it. Samples that go with it hold
/// NAL units each preceded by a 4-byte big-endian length.
///
/// Built from the parameter sets an encoder gives (``init(nalUnits:)``), with the fields libavformat's
/// writer fills from the SPS (`ff_isom_write_hvcc`); what it reads from the VUI and PPS
/// (`min_spatial_segmentation_idc`, `parallelismType`) is written as 0, "unknown", which the format
/// allows, and which libavformat writes too for an SPS without bitstream restrictions.
public struct HEVCDecoderConfigurationRecord: Sendable, Hashable {
    /// `general_profile_space`, `general_tier_flag` and `general_profile_idc` (2, 1 and 5 bits), the
    /// 32 compatibility flags, the 48 constraint flags and `general_level_idc`: the 12 bytes of the
    /// SPS's `profile_tier_level`, as the record stores them.
    public var profileTierLevel: [UInt8]
    /// `chroma_format_idc`: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chromaFormat: Int
    /// The luma bit depth: 8, 10 or 12 (`bit_depth_luma_minus8 + 8`).
    public var bitDepthLuma: Int
    /// The chroma bit depth: 8, 10 or 12 (`bit_depth_chroma_minus8 + 8`).
    public var bitDepthChroma: Int
    /// `sps_max_sub_layers_minus1 + 1`.
    public var temporalLayers: Int
    /// `sps_temporal_id_nesting_flag`.
    public var temporalIDNested: Bool
    /// The NAL units, header included, without start codes: VPS, SPS, PPS, then SEI, each kind in one
    /// array of the record.
    public var nalUnits: [[UInt8]]

    /// `general_profile_idc` (1 Main, 2 Main 10, 4 range extensions).
    public var profile: Int { Int(profileTierLevel[0] & 0x1F) }
    /// `general_level_idc`: 30 × the level (123 is level 4.1).
    public var level: Int { Int(profileTierLevel[11]) }

    /// The NAL unit type of an HEVC NAL unit (6 bits of its first byte).
    public static func nalUnitType(of unit: some Collection<UInt8>) -> Int {
        unit.first.map { Int($0 >> 1 & 0x3F) } ?? -1
    }

    /// A record for `nalUnits` (without start codes), which must hold an SPS; other than VPS, SPS, PPS
    /// and SEI units are left out.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` when there is no SPS, and what reading its first
    ///   fields throws (``/MediaCore/MediaError/Code/truncated`` for a cut one).
    public init(nalUnits units: [some Collection<UInt8>]) throws(MediaError) {
        let kept = units.map { Array($0) }.filter { [32, 33, 34, 39, 40].contains(Self.nalUnitType(of: $0)) }
        guard let sps = kept.first(where: { Self.nalUnitType(of: $0) == 33 }) else {
            throw MediaError(.invalidData, "an HEVC configuration needs a sequence parameter set; none was given")
        }
        let rbsp = H264RBSP.removeEmulationPrevention(sps.dropFirst(2))  // past the 2-byte NAL header
        var bits = BitReader(rbsp)
        try bits.skip(4, "sps_video_parameter_set_id")
        let subLayersMinus1 = Int(try bits.read(3, "sps_max_sub_layers_minus1"))
        temporalIDNested = try bits.readFlag("sps_temporal_id_nesting_flag")
        guard rbsp.count >= 13 else {
            throw MediaError(.truncated, "HEVC SPS of \(sps.count) bytes ends inside profile_tier_level")
        }
        profileTierLevel = Array(rbsp[1..<13])
        try bits.skip(96, "general profile_tier_level")
        var subLayerFlags: [(profile: Bool, level: Bool)] = []
        for _ in 0..<subLayersMinus1 {
            subLayerFlags.append((try bits.readFlag("sub_layer_profile_present_flag"), try bits.readFlag()))
        }
        if subLayersMinus1 > 0 { try bits.skip(2 * (8 - subLayersMinus1), "reserved_zero_2bits") }
        for flags in subLayerFlags {
            if flags.profile { try bits.skip(88, "sub_layer profile") }
            if flags.level { try bits.skip(8, "sub_layer_level_idc") }
        }
        _ = try bits.readUE("sps_seq_parameter_set_id")
        chromaFormat = Int(try bits.readUE("chroma_format_idc"))
        if chromaFormat == 3 { try bits.skip(1, "separate_colour_plane_flag") }
        _ = try bits.readUE("pic_width_in_luma_samples")
        _ = try bits.readUE("pic_height_in_luma_samples")
        if try bits.readFlag("conformance_window_flag") {
            for _ in 0..<4 { _ = try bits.readUE("conf_win_offset") }
        }
        bitDepthLuma = Int(try bits.readUE("bit_depth_luma_minus8")) + 8
        bitDepthChroma = Int(try bits.readUE("bit_depth_chroma_minus8")) + 8
        temporalLayers = subLayersMinus1 + 1
        // VPS, SPS, PPS, SEI prefix, SEI suffix: libavformat's order.
        nalUnits = [32, 33, 34, 39, 40].flatMap { type in kept.filter { Self.nalUnitType(of: $0) == type } }
    }

    /// The record's bytes, as the `hvcC` box's payload.
    public var bytes: [UInt8] {
        var out = ByteWriter()
        out.writeUInt8(1)  // configurationVersion
        for byte in profileTierLevel { out.writeUInt8(byte) }
        out.writeUInt16BE(0xF000)  // reserved '1111', min_spatial_segmentation_idc 0
        out.writeUInt8(0xFC)  // reserved '111111', parallelismType 0 (unknown)
        out.writeUInt8(0xFC | UInt8(chromaFormat & 3))
        out.writeUInt8(0xF8 | UInt8((bitDepthLuma - 8) & 7))
        out.writeUInt8(0xF8 | UInt8((bitDepthChroma - 8) & 7))
        out.writeUInt16BE(0)  // avgFrameRate: unspecified
        // constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3
        out.writeUInt8(UInt8((temporalLayers & 7) << 3) | (temporalIDNested ? 0x04 : 0) | 0x03)
        let types = [32, 33, 34, 39, 40].filter { type in nalUnits.contains { Self.nalUnitType(of: $0) == type } }
        out.writeUInt8(UInt8(types.count))  // numOfArrays
        for type in types {
            let units = nalUnits.filter { Self.nalUnitType(of: $0) == type }
            // array_completeness 0, as libavformat 5.1 writes it for `hvc1` too (the encoders here do not
            // repeat the sets in-band, but the record does not promise it), reserved 0, NAL_unit_type
            out.writeUInt8(UInt8(type))
            out.writeUInt16BE(UInt16(clamping: units.count))
            for unit in units {
                out.writeUInt16BE(UInt16(clamping: unit.count))
                for byte in unit { out.writeUInt8(byte) }
            }
        }
        return out.bytes
    }
}
