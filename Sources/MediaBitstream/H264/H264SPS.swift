public import MediaCore

/// An H.264 sequence parameter set, `seq_parameter_set_data()` of ITU-T H.264 section 7.3.2.1.1,
/// with its VUI (annex E.1.1) as far as a muxer or a player needs it.
///
/// The parser reads every field up to the end of the VUI, skipping scaling lists and HRD parameters
/// by their syntax, so that the fields after them (timing, `max_num_reorder_frames`) are found in
/// streams from any encoder. ``width`` and ``height`` are the displayed size after cropping.
///
/// ```swift
/// let sps = try H264SPS(parsing: spsNALUnit)          // the NAL unit, header byte included
/// print(sps.profileIdc, sps.levelIdc, sps.width, sps.height, sps.vui?.maxNumReorderFrames ?? -1)
/// ```
public struct H264SPS: Sendable, Hashable {
    /// `profile_idc`: 66 Baseline, 77 Main, 88 Extended, 100 High, 110 High 10, 122 High 4:2:2,
    /// 244 High 4:4:4 Predictive, ...
    public private(set) var profileIdc: UInt8
    /// The byte holding `constraint_set0_flag` (bit 7) to `constraint_set5_flag` (bit 2) and
    /// `reserved_zero_2bits`: the `profile_compatibility` byte of the avcC.
    public private(set) var constraintFlags: UInt8
    /// `level_idc`: ten times the level number (31 is level 3.1); 9 is level 1b.
    public private(set) var levelIdc: UInt8
    /// `seq_parameter_set_id` (0...31).
    public private(set) var seqParameterSetId: Int
    /// `chroma_format_idc`: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4 (1 when the profile does not send it).
    public private(set) var chromaFormatIdc: Int
    /// `separate_colour_plane_flag` (only with `chroma_format_idc` 3).
    public private(set) var separateColourPlaneFlag: Bool
    /// `bit_depth_luma_minus8` (0...6).
    public private(set) var bitDepthLumaMinus8: Int
    /// `bit_depth_chroma_minus8` (0...6).
    public private(set) var bitDepthChromaMinus8: Int
    /// `qpprime_y_zero_transform_bypass_flag`.
    public private(set) var qpprimeYZeroTransformBypassFlag: Bool
    /// `seq_scaling_matrix_present_flag` (the lists themselves are skipped).
    public private(set) var seqScalingMatrixPresentFlag: Bool
    /// `log2_max_frame_num_minus4` (0...12).
    public private(set) var log2MaxFrameNumMinus4: Int
    /// `pic_order_cnt_type` (0...2).
    public private(set) var picOrderCntType: Int
    /// `log2_max_pic_order_cnt_lsb_minus4` (0...12), with `pic_order_cnt_type` 0; 0 otherwise.
    public private(set) var log2MaxPicOrderCntLsbMinus4: Int
    /// `delta_pic_order_always_zero_flag`, with `pic_order_cnt_type` 1.
    public private(set) var deltaPicOrderAlwaysZeroFlag: Bool
    /// `offset_for_non_ref_pic`, with `pic_order_cnt_type` 1.
    public private(set) var offsetForNonRefPic: Int32
    /// `offset_for_top_to_bottom_field`, with `pic_order_cnt_type` 1.
    public private(set) var offsetForTopToBottomField: Int32
    /// `offset_for_ref_frame[i]` (at most 255 of them, `num_ref_frames_in_pic_order_cnt_cycle`),
    /// with `pic_order_cnt_type` 1.
    public private(set) var offsetForRefFrame: [Int32]
    /// `max_num_ref_frames`.
    public private(set) var maxNumRefFrames: Int
    /// `gaps_in_frame_num_value_allowed_flag`.
    public private(set) var gapsInFrameNumValueAllowedFlag: Bool
    /// `pic_width_in_mbs_minus1`.
    public private(set) var picWidthInMbsMinus1: Int
    /// `pic_height_in_map_units_minus1`.
    public private(set) var picHeightInMapUnitsMinus1: Int
    /// `frame_mbs_only_flag`: `false` when pictures may be coded as fields.
    public private(set) var frameMbsOnlyFlag: Bool
    /// `mb_adaptive_frame_field_flag` (only without `frame_mbs_only_flag`).
    public private(set) var mbAdaptiveFrameFieldFlag: Bool
    /// `direct_8x8_inference_flag`.
    public private(set) var direct8x8InferenceFlag: Bool
    /// `frame_crop_left_offset`, `frame_crop_right_offset`, `frame_crop_top_offset`,
    /// `frame_crop_bottom_offset` in crop units, or `nil` without `frame_cropping_flag`.
    public private(set) var frameCropping: Cropping?
    /// The VUI parameters, or `nil` without `vui_parameters_present_flag`.
    public private(set) var vui: VUI?

    /// The four `frame_crop_*_offset` fields, in crop units (see ``cropUnitX`` and ``cropUnitY``).
    public struct Cropping: Sendable, Hashable {
        /// `frame_crop_left_offset`.
        public var left: Int
        /// `frame_crop_right_offset`.
        public var right: Int
        /// `frame_crop_top_offset`.
        public var top: Int
        /// `frame_crop_bottom_offset`.
        public var bottom: Int

        /// Offsets of `left`, `right`, `top` and `bottom` crop units.
        public init(left: Int, right: Int, top: Int, bottom: Int) {
            self.left = left
            self.right = right
            self.top = top
            self.bottom = bottom
        }
    }

    /// `vui_parameters()` of ITU-T H.264 annex E.1.1: the fields a muxer or player uses.
    public struct VUI: Sendable, Hashable {
        /// `aspect_ratio_idc`, or `nil` without `aspect_ratio_info_present_flag`.
        public var aspectRatioIdc: UInt8?
        /// The sample aspect ratio (`sar_width`, `sar_height` for `aspect_ratio_idc` 255, the table
        /// E-1 value otherwise), or `nil` when absent or unspecified.
        public var sampleAspectRatio: (width: Int, height: Int)? {
            get { sarWidth > 0 && sarHeight > 0 ? (sarWidth, sarHeight) : nil }
        }
        var sarWidth = 0
        var sarHeight = 0
        /// `video_full_range_flag`, or `nil` without `video_signal_type_present_flag`.
        public var videoFullRangeFlag: Bool?
        /// `colour_primaries`, or `nil` without `colour_description_present_flag`.
        public var colourPrimaries: UInt8?
        /// `transfer_characteristics`, or `nil` without `colour_description_present_flag`.
        public var transferCharacteristics: UInt8?
        /// `matrix_coefficients`, or `nil` without `colour_description_present_flag`.
        public var matrixCoefficients: UInt8?
        /// `num_units_in_tick`, or `nil` without `timing_info_present_flag`.
        public var numUnitsInTick: UInt32?
        /// `time_scale`, or `nil` without `timing_info_present_flag`.
        public var timeScale: UInt32?
        /// `fixed_frame_rate_flag` (`false` without `timing_info_present_flag`).
        public var fixedFrameRateFlag = false
        /// `nal_hrd_parameters_present_flag`.
        public var nalHRDParametersPresentFlag = false
        /// `vcl_hrd_parameters_present_flag`.
        public var vclHRDParametersPresentFlag = false
        /// `pic_struct_present_flag`.
        public var picStructPresentFlag = false
        /// `max_num_reorder_frames`, or `nil` without `bitstream_restriction_flag`.
        public var maxNumReorderFrames: Int?
        /// `max_dec_frame_buffering`, or `nil` without `bitstream_restriction_flag`.
        public var maxDecFrameBuffering: Int?
    }

    /// Parses the SPS NAL unit `nalUnit` (header byte included, emulation prevention bytes in place),
    /// which starts at `baseOffset` in the input.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidData`` when the NAL unit is not an SPS or a field is out of
    ///   its range; ``/MediaCore/MediaError/Code/truncated`` when the fields run past the end. The error's byte
    ///   offset is the position in the input (emulation prevention bytes counted) of the offending field.
    public init<C: Collection>(parsing nalUnit: C, baseOffset: Int64 = 0) throws(MediaError) where C.Element == UInt8 {
        self = try H264RBSP.parse(Array(nalUnit), as: .sps, "an SPS", baseOffset: baseOffset) {
            (reader) throws(MediaError) in try H264SPS(reading: &reader)
        }
    }

    /// Reads the fields from the RBSP after the NAL header.
    private init(reading r: inout BitReader) throws(MediaError) {
        profileIdc = UInt8(try r.read(8, "profile_idc"))
        constraintFlags = UInt8(try r.read(8, "constraint_set0_flag..reserved_zero_2bits"))
        levelIdc = UInt8(try r.read(8, "level_idc"))
        seqParameterSetId = try Self.ue(&r, "seq_parameter_set_id", max: 31)
        chromaFormatIdc = 1
        separateColourPlaneFlag = false
        bitDepthLumaMinus8 = 0
        bitDepthChromaMinus8 = 0
        qpprimeYZeroTransformBypassFlag = false
        seqScalingMatrixPresentFlag = false
        if Self.profilesWithChromaFormat.contains(profileIdc) {
            chromaFormatIdc = try Self.ue(&r, "chroma_format_idc", max: 3)
            if chromaFormatIdc == 3 {
                separateColourPlaneFlag = try r.readFlag("separate_colour_plane_flag")
            }
            bitDepthLumaMinus8 = try Self.ue(&r, "bit_depth_luma_minus8", max: 6)
            bitDepthChromaMinus8 = try Self.ue(&r, "bit_depth_chroma_minus8", max: 6)
            qpprimeYZeroTransformBypassFlag = try r.readFlag("qpprime_y_zero_transform_bypass_flag")
            seqScalingMatrixPresentFlag = try r.readFlag("seq_scaling_matrix_present_flag")
            if seqScalingMatrixPresentFlag {
                for i in 0..<(chromaFormatIdc != 3 ? 8 : 12) {
                    if try r.readFlag("seq_scaling_list_present_flag") {
                        try Self.skipScalingList(&r, size: i < 6 ? 16 : 64)
                    }
                }
            }
        }
        log2MaxFrameNumMinus4 = try Self.ue(&r, "log2_max_frame_num_minus4", max: 12)
        picOrderCntType = try Self.ue(&r, "pic_order_cnt_type", max: 2)
        log2MaxPicOrderCntLsbMinus4 = 0
        deltaPicOrderAlwaysZeroFlag = false
        offsetForNonRefPic = 0
        offsetForTopToBottomField = 0
        offsetForRefFrame = []
        if picOrderCntType == 0 {
            log2MaxPicOrderCntLsbMinus4 = try Self.ue(&r, "log2_max_pic_order_cnt_lsb_minus4", max: 12)
        } else if picOrderCntType == 1 {
            deltaPicOrderAlwaysZeroFlag = try r.readFlag("delta_pic_order_always_zero_flag")
            offsetForNonRefPic = try r.readSE("offset_for_non_ref_pic")
            offsetForTopToBottomField = try r.readSE("offset_for_top_to_bottom_field")
            let cycle = try Self.ue(&r, "num_ref_frames_in_pic_order_cnt_cycle", max: 255)
            for _ in 0..<cycle {
                offsetForRefFrame.append(try r.readSE("offset_for_ref_frame"))
            }
        }
        maxNumRefFrames = try Self.ue(&r, "max_num_ref_frames", max: 32)
        gapsInFrameNumValueAllowedFlag = try r.readFlag("gaps_in_frame_num_value_allowed_flag")
        picWidthInMbsMinus1 = try Self.ue(&r, "pic_width_in_mbs_minus1", max: Self.maximumMbsMinus1)
        picHeightInMapUnitsMinus1 = try Self.ue(&r, "pic_height_in_map_units_minus1", max: Self.maximumMbsMinus1)
        frameMbsOnlyFlag = try r.readFlag("frame_mbs_only_flag")
        mbAdaptiveFrameFieldFlag = false
        if !frameMbsOnlyFlag {
            mbAdaptiveFrameFieldFlag = try r.readFlag("mb_adaptive_frame_field_flag")
        }
        direct8x8InferenceFlag = try r.readFlag("direct_8x8_inference_flag")
        frameCropping = nil
        let cropOffset = r.baseOffset + Int64(r.bitPosition / 8)
        if try r.readFlag("frame_cropping_flag") {
            let left = try Self.ue(&r, "frame_crop_left_offset", max: Self.maximumCrop)
            let right = try Self.ue(&r, "frame_crop_right_offset", max: Self.maximumCrop)
            let top = try Self.ue(&r, "frame_crop_top_offset", max: Self.maximumCrop)
            let bottom = try Self.ue(&r, "frame_crop_bottom_offset", max: Self.maximumCrop)
            frameCropping = Cropping(left: left, right: right, top: top, bottom: bottom)
        }
        vui = nil
        if try r.readFlag("vui_parameters_present_flag") {
            vui = try Self.readVUI(&r)
        }
        guard width > 0, height > 0 else {
            throw MediaError.invalidData(
                "frame cropping leaves a \(width)x\(height) picture of \(codedWidth)x\(codedHeight)", at: cropOffset)
        }
    }

    /// The profiles whose SPS carries `chroma_format_idc` and the fields after it.
    static let profilesWithChromaFormat: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]
    /// Picture sizes above 2^16 macroblocks a side are rejected (no level allows even 2^10).
    static let maximumMbsMinus1 = 65_535
    static let maximumCrop = 1 << 20

    /// `ChromaArrayType`: 0 with `separate_colour_plane_flag`, `chroma_format_idc` otherwise.
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }
    /// `CropUnitX` (equation 7-19 and 7-21).
    public var cropUnitX: Int { chromaArrayType == 0 ? 1 : (chromaArrayType == 3 ? 1 : 2) }
    /// `CropUnitY` (equation 7-20 and 7-22).
    public var cropUnitY: Int {
        let fieldFactor = frameMbsOnlyFlag ? 1 : 2
        return chromaArrayType == 0 ? fieldFactor : (chromaArrayType == 1 ? 2 : 1) * fieldFactor
    }
    /// The coded width in luma samples, `PicWidthInMbs * 16`.
    public var codedWidth: Int { (picWidthInMbsMinus1 + 1) * 16 }
    /// The coded frame height in luma samples, `FrameHeightInMbs * 16`.
    public var codedHeight: Int { (frameMbsOnlyFlag ? 1 : 2) * (picHeightInMapUnitsMinus1 + 1) * 16 }
    /// The width in pixels after cropping.
    public var width: Int {
        codedWidth - cropUnitX * ((frameCropping?.left ?? 0) + (frameCropping?.right ?? 0))
    }
    /// The height in pixels after cropping.
    public var height: Int {
        codedHeight - cropUnitY * ((frameCropping?.top ?? 0) + (frameCropping?.bottom ?? 0))
    }
    /// The luma bit depth, `bit_depth_luma_minus8 + 8`.
    public var bitDepthLuma: Int { bitDepthLumaMinus8 + 8 }
    /// The chroma bit depth, `bit_depth_chroma_minus8 + 8`.
    public var bitDepthChroma: Int { bitDepthChromaMinus8 + 8 }

    /// `ue(v)` as an `Int`, rejected above `max`.
    static func ue(_ r: inout BitReader, _ what: String, max: Int) throws(MediaError) -> Int {
        let offset = r.baseOffset + Int64(r.bitPosition / 8)
        let value = Int(try r.readUE(what))
        guard value <= max else {
            throw MediaError.invalidData("\(what) is \(value), above its limit \(max)", at: offset)
        }
        return value
    }

    /// Skips `scaling_list(scalingList, sizeOfScalingList, ...)` (ITU-T H.264 section 7.3.2.1.1.1).
    private static func skipScalingList(_ r: inout BitReader, size: Int) throws(MediaError) {
        var lastScale = 8
        var nextScale = 8
        for _ in 0..<size {
            if nextScale != 0 {
                let offset = r.baseOffset + Int64(r.bitPosition / 8)
                let deltaScale = Int(try r.readSE("delta_scale"))
                guard (-128...127).contains(deltaScale) else {
                    throw MediaError.invalidData("delta_scale is \(deltaScale), outside -128...127", at: offset)
                }
                nextScale = (lastScale + deltaScale + 256) % 256
            }
            lastScale = nextScale == 0 ? lastScale : nextScale
        }
    }

    /// `Table E-1`: the sample aspect ratios of `aspect_ratio_idc` 1 to 16.
    static let sampleAspectRatios: [(Int, Int)] = [
        (0, 0), (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1)
    ]

    /// Reads `vui_parameters()` (ITU-T H.264 annex E.1.1).
    private static func readVUI(_ r: inout BitReader) throws(MediaError) -> VUI {
        var vui = VUI()
        if try r.readFlag("aspect_ratio_info_present_flag") {
            let idc = UInt8(try r.read(8, "aspect_ratio_idc"))
            vui.aspectRatioIdc = idc
            if idc == 255 {  // Extended_SAR
                vui.sarWidth = Int(try r.read(16, "sar_width"))
                vui.sarHeight = Int(try r.read(16, "sar_height"))
            } else if Int(idc) < sampleAspectRatios.count {
                (vui.sarWidth, vui.sarHeight) = sampleAspectRatios[Int(idc)]
            }
        }
        if try r.readFlag("overscan_info_present_flag") {
            _ = try r.readFlag("overscan_appropriate_flag")
        }
        if try r.readFlag("video_signal_type_present_flag") {
            _ = try r.read(3, "video_format")
            vui.videoFullRangeFlag = try r.readFlag("video_full_range_flag")
            if try r.readFlag("colour_description_present_flag") {
                vui.colourPrimaries = UInt8(try r.read(8, "colour_primaries"))
                vui.transferCharacteristics = UInt8(try r.read(8, "transfer_characteristics"))
                vui.matrixCoefficients = UInt8(try r.read(8, "matrix_coefficients"))
            }
        }
        if try r.readFlag("chroma_loc_info_present_flag") {
            _ = try ue(&r, "chroma_sample_loc_type_top_field", max: 5)
            _ = try ue(&r, "chroma_sample_loc_type_bottom_field", max: 5)
        }
        if try r.readFlag("timing_info_present_flag") {
            vui.numUnitsInTick = try r.read(32, "num_units_in_tick")
            vui.timeScale = try r.read(32, "time_scale")
            vui.fixedFrameRateFlag = try r.readFlag("fixed_frame_rate_flag")
        }
        vui.nalHRDParametersPresentFlag = try r.readFlag("nal_hrd_parameters_present_flag")
        if vui.nalHRDParametersPresentFlag { try skipHRDParameters(&r) }
        vui.vclHRDParametersPresentFlag = try r.readFlag("vcl_hrd_parameters_present_flag")
        if vui.vclHRDParametersPresentFlag { try skipHRDParameters(&r) }
        if vui.nalHRDParametersPresentFlag || vui.vclHRDParametersPresentFlag {
            _ = try r.readFlag("low_delay_hrd_flag")
        }
        vui.picStructPresentFlag = try r.readFlag("pic_struct_present_flag")
        if try r.readFlag("bitstream_restriction_flag") {
            _ = try r.readFlag("motion_vectors_over_pic_boundaries_flag")
            _ = try ue(&r, "max_bytes_per_pic_denom", max: 16)
            _ = try ue(&r, "max_bits_per_mb_denom", max: 16)
            _ = try ue(&r, "log2_max_mv_length_horizontal", max: 16)
            _ = try ue(&r, "log2_max_mv_length_vertical", max: 16)
            vui.maxNumReorderFrames = try ue(&r, "max_num_reorder_frames", max: 16)
            vui.maxDecFrameBuffering = try ue(&r, "max_dec_frame_buffering", max: 16)
        }
        return vui
    }

    /// Skips `hrd_parameters()` (ITU-T H.264 annex E.1.2).
    private static func skipHRDParameters(_ r: inout BitReader) throws(MediaError) {
        let cpbCntMinus1 = try ue(&r, "cpb_cnt_minus1", max: 31)
        try r.skip(4, "bit_rate_scale")
        try r.skip(4, "cpb_size_scale")
        for _ in 0...cpbCntMinus1 {
            _ = try r.readUE("bit_rate_value_minus1")
            _ = try r.readUE("cpb_size_value_minus1")
            _ = try r.readFlag("cbr_flag")
        }
        try r.skip(5, "initial_cpb_removal_delay_length_minus1")
        try r.skip(5, "cpb_removal_delay_length_minus1")
        try r.skip(5, "dpb_output_delay_length_minus1")
        try r.skip(5, "time_offset_length")
    }
}

/// An H.264 picture parameter set, `pic_parameter_set_rbsp()` of ITU-T H.264 section 7.3.2.2: the
/// leading fields a muxer needs (which SPS it refers to, and CAVLC or CABAC).
public struct H264PPS: Sendable, Hashable {
    /// `pic_parameter_set_id` (0...255).
    public private(set) var picParameterSetId: Int
    /// `seq_parameter_set_id` (0...31) of the SPS this PPS refers to.
    public private(set) var seqParameterSetId: Int
    /// `entropy_coding_mode_flag`: `true` for CABAC, `false` for CAVLC.
    public private(set) var entropyCodingModeFlag: Bool
    /// `bottom_field_pic_order_in_frame_present_flag`.
    public private(set) var bottomFieldPicOrderInFramePresentFlag: Bool
    /// `num_slice_groups_minus1` (0...7).
    public private(set) var numSliceGroupsMinus1: Int

    /// Parses the PPS NAL unit `nalUnit` (header byte included), which starts at `baseOffset`.
    ///
    /// - Throws: as ``H264SPS/init(parsing:baseOffset:)``.
    public init<C: Collection>(parsing nalUnit: C, baseOffset: Int64 = 0) throws(MediaError) where C.Element == UInt8 {
        self = try H264RBSP.parse(Array(nalUnit), as: .pps, "a PPS", baseOffset: baseOffset) {
            (reader) throws(MediaError) in try H264PPS(reading: &reader)
        }
    }

    /// Reads the fields from the RBSP after the NAL header.
    private init(reading r: inout BitReader) throws(MediaError) {
        picParameterSetId = try H264SPS.ue(&r, "pic_parameter_set_id", max: 255)
        seqParameterSetId = try H264SPS.ue(&r, "seq_parameter_set_id", max: 31)
        entropyCodingModeFlag = try r.readFlag("entropy_coding_mode_flag")
        bottomFieldPicOrderInFramePresentFlag = try r.readFlag("bottom_field_pic_order_in_frame_present_flag")
        numSliceGroupsMinus1 = try H264SPS.ue(&r, "num_slice_groups_minus1", max: 7)
    }
}
