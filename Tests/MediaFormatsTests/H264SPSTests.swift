import MediaCore
import MediaFormats
import Testing

@Suite(.timeLimit(.minutes(2))) struct H264SPSTests {
    /// FFmpeg's profile name for an SPS (libavcodec/profiles.c), as ffprobe prints it.
    static func ffmpegProfileName(_ sps: H264SPS) -> String {
        let constraintSet1 = sps.constraintFlags & 0x40 != 0
        let constraintSet3 = sps.constraintFlags & 0x10 != 0
        switch sps.profileIdc {
        case 66: return constraintSet1 ? "Constrained Baseline" : "Baseline"
        case 77: return "Main"
        case 88: return "Extended"
        case 100: return "High"
        case 110: return constraintSet3 ? "High 10 Intra" : "High 10"
        case 122: return constraintSet3 ? "High 4:2:2 Intra" : "High 4:2:2"
        case 244: return constraintSet3 ? "High 4:4:4 Intra" : "High 4:4:4 Predictive"
        default: return "profile \(sps.profileIdc)"
        }
    }

    static func pixelFormat(_ sps: H264SPS) -> String {
        let fullRange = sps.vui?.videoFullRangeFlag == true && sps.chromaFormatIdc > 0
        let base =
            (fullRange ? ["gray", "yuvj420p", "yuvj422p", "yuvj444p"] : ["gray", "yuv420p", "yuv422p", "yuv444p"])[
                sps.chromaFormatIdc]
        return sps.bitDepthLuma == 8 ? base : "\(base)\(sps.bitDepthLuma)le"
    }

    @Test(arguments: H264Fixtures.allNames)
    func fieldsMatchFFprobe(_ name: String) throws {
        let stream = try H264Fixtures.stream(name)
        let nal = try #require(try stream.firstNAL(.sps))
        let sps = try H264SPS(parsing: nal.bytes, baseOffset: nal.offset)
        #expect(Self.ffmpegProfileName(sps) == stream.probe["profile"])
        #expect(String(sps.levelIdc) == stream.probe["level"])
        #expect(String(sps.width) == stream.probe["width"])
        #expect(String(sps.height) == stream.probe["height"])
        #expect(Self.pixelFormat(sps) == stream.probe["pix_fmt"])
        if let reorder = sps.vui?.maxNumReorderFrames {
            #expect(String(reorder) == stream.probe["has_b_frames"])
        }
    }

    @Test(arguments: H264Fixtures.allNames)
    func fieldsMatchTraceHeaders(_ name: String) throws {
        let stream = try H264Fixtures.stream(name)
        let trace = stream.traceFirstSPS
        #expect(trace.count > 15)
        let nal = try #require(try stream.firstNAL(.sps))
        let sps = try H264SPS(parsing: nal.bytes)
        var ours: [String: Int64] = [
            "profile_idc": Int64(sps.profileIdc),
            "level_idc": Int64(sps.levelIdc),
            "seq_parameter_set_id": Int64(sps.seqParameterSetId),
            "log2_max_frame_num_minus4": Int64(sps.log2MaxFrameNumMinus4),
            "pic_order_cnt_type": Int64(sps.picOrderCntType),
            "max_num_ref_frames": Int64(sps.maxNumRefFrames),
            "gaps_in_frame_num_allowed_flag": sps.gapsInFrameNumValueAllowedFlag ? 1 : 0,
            "pic_width_in_mbs_minus1": Int64(sps.picWidthInMbsMinus1),
            "pic_height_in_map_units_minus1": Int64(sps.picHeightInMapUnitsMinus1),
            "frame_mbs_only_flag": sps.frameMbsOnlyFlag ? 1 : 0,
            "direct_8x8_inference_flag": sps.direct8x8InferenceFlag ? 1 : 0,
            "frame_cropping_flag": sps.frameCropping == nil ? 0 : 1,
            "vui_parameters_present_flag": sps.vui == nil ? 0 : 1,
            "constraint_set0_flag": Int64(sps.constraintFlags >> 7 & 1),
            "constraint_set1_flag": Int64(sps.constraintFlags >> 6 & 1)
        ]
        if trace["chroma_format_idc"] != nil {
            ours["chroma_format_idc"] = Int64(sps.chromaFormatIdc)
            ours["bit_depth_luma_minus8"] = Int64(sps.bitDepthLumaMinus8)
            ours["bit_depth_chroma_minus8"] = Int64(sps.bitDepthChromaMinus8)
            ours["qpprime_y_zero_transform_bypass_flag"] = sps.qpprimeYZeroTransformBypassFlag ? 1 : 0
            ours["seq_scaling_matrix_present_flag"] = sps.seqScalingMatrixPresentFlag ? 1 : 0
        }
        if sps.picOrderCntType == 0 {
            ours["log2_max_pic_order_cnt_lsb_minus4"] = Int64(sps.log2MaxPicOrderCntLsbMinus4)
        }
        if !sps.frameMbsOnlyFlag { ours["mb_adaptive_frame_field_flag"] = sps.mbAdaptiveFrameFieldFlag ? 1 : 0 }
        if let crop = sps.frameCropping {
            ours["frame_crop_left_offset"] = Int64(crop.left)
            ours["frame_crop_right_offset"] = Int64(crop.right)
            ours["frame_crop_top_offset"] = Int64(crop.top)
            ours["frame_crop_bottom_offset"] = Int64(crop.bottom)
        }
        if let vui = sps.vui {
            if let tick = vui.numUnitsInTick, let scale = vui.timeScale {
                ours["num_units_in_tick"] = Int64(tick)
                ours["time_scale"] = Int64(scale)
                ours["fixed_frame_rate_flag"] = vui.fixedFrameRateFlag ? 1 : 0
            }
            ours["nal_hrd_parameters_present_flag"] = vui.nalHRDParametersPresentFlag ? 1 : 0
            ours["vcl_hrd_parameters_present_flag"] = vui.vclHRDParametersPresentFlag ? 1 : 0
            ours["pic_struct_present_flag"] = vui.picStructPresentFlag ? 1 : 0
            if let idc = vui.aspectRatioIdc { ours["aspect_ratio_idc"] = Int64(idc) }
            if let full = vui.videoFullRangeFlag { ours["video_full_range_flag"] = full ? 1 : 0 }
            if let primaries = vui.colourPrimaries { ours["colour_primaries"] = Int64(primaries) }
            if let reorder = vui.maxNumReorderFrames { ours["max_num_reorder_frames"] = Int64(reorder) }
            if let buffering = vui.maxDecFrameBuffering { ours["max_dec_frame_buffering"] = Int64(buffering) }
        }
        var mismatches: [String] = []
        for (field, value) in ours where trace[field] != value {
            mismatches.append("\(field): ours \(value), trace \(trace[field].map(String.init) ?? "absent")")
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches.sorted())")
    }

    @Test func variantsExerciseTheBranchesTheyWereMadeFor() throws {
        func sps(_ name: String) throws -> H264SPS {
            let nal = try #require(try H264Fixtures.stream(name).firstNAL(.sps))
            return try H264SPS(parsing: nal.bytes)
        }
        let cropped = try sps("cropped")
        #expect(cropped.frameCropping == H264SPS.Cropping(left: 0, right: 1, top: 0, bottom: 1))
        #expect(cropped.codedWidth == 1280 && cropped.width == 1278 && cropped.height == 718)
        let interlaced = try sps("interlaced")
        #expect(!interlaced.frameMbsOnlyFlag && interlaced.mbAdaptiveFrameFieldFlag)
        #expect(interlaced.codedHeight == 736 && interlaced.height == 720 && interlaced.cropUnitY == 4)
        let high444 = try sps("high444")
        #expect(high444.profileIdc == 244 && high444.chromaFormatIdc == 3 && high444.cropUnitX == 1)
        let high422 = try sps("high422")
        #expect(high422.profileIdc == 122 && high422.chromaFormatIdc == 2 && high422.cropUnitY == 1)
        let hrd = try sps("bframes-hrd")
        #expect(hrd.vui?.nalHRDParametersPresentFlag == true)
        #expect(hrd.vui?.maxNumReorderFrames == 1)
        let metadata = try sps("metadata")
        #expect(metadata.vui?.sampleAspectRatio?.width == 40 && metadata.vui?.sampleAspectRatio?.height == 33)
        #expect(metadata.vui?.videoFullRangeFlag == true)
        #expect(metadata.width == 1272 && metadata.height == 704)
        let baseline = try sps("baseline")
        #expect(baseline.profileIdc == 66 && baseline.vui?.maxNumReorderFrames == 0)
    }

    @Test(arguments: H264Fixtures.allNames)
    func ppsMatchesTraceHeaders(_ name: String) throws {
        let stream = try H264Fixtures.stream(name)
        let nal = try #require(try stream.firstNAL(.pps))
        let pps = try H264PPS(parsing: nal.bytes)
        let all = stream.traceFields.extradata + stream.traceFields.packets
        let start = try #require(all.firstIndex { $0.name == "nal_unit_type" && $0.value == 8 })
        var trace: [String: Int64] = [:]
        for field in all[(start + 1)...] {
            if field.name == "nal_unit_type" { break }
            if trace[field.name] == nil { trace[field.name] = field.value }
        }
        #expect(trace["pic_parameter_set_id"] == Int64(pps.picParameterSetId))
        #expect(trace["seq_parameter_set_id"] == Int64(pps.seqParameterSetId))
        #expect(trace["entropy_coding_mode_flag"] == (pps.entropyCodingModeFlag ? 1 : 0))
        #expect(
            trace["bottom_field_pic_order_in_frame_present_flag"] == (pps.bottomFieldPicOrderInFramePresentFlag ? 1 : 0)
        )
        #expect(trace["num_slice_groups_minus1"] == Int64(pps.numSliceGroupsMinus1))
    }
}
