import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// SPS branches no encoder on this machine writes (x264 puts its scaling matrices in the PPS and never
/// uses pic_order_cnt_type 1): built bit by bit, then read by us and by FFmpeg's trace_headers.
@Suite(.timeLimit(.minutes(2))) struct H264SyntheticSPSTests {
    /// An SPS NAL unit: High 4:4:4 with separate colour planes, 10-bit, scaling lists, POC type 1,
    /// field coding with MBAFF, cropping, and a VUI with every optional part including NAL HRD.
    static func makeSPS(cycle: [Int32] = [1, -2, 300]) -> [UInt8] {
        var w = BitWriter()
        w.write(244, bits: 8)  // profile_idc
        w.write(0, bits: 8)  // constraint_set0_flag..constraint_set5_flag, reserved_zero_2bits
        w.write(40, bits: 8)  // level_idc
        w.writeUE(3)  // seq_parameter_set_id
        w.writeUE(3)  // chroma_format_idc
        w.writeFlag(true)  // separate_colour_plane_flag
        w.writeUE(2)  // bit_depth_luma_minus8
        w.writeUE(2)  // bit_depth_chroma_minus8
        w.writeFlag(true)  // qpprime_y_zero_transform_bypass_flag
        w.writeFlag(true)  // seq_scaling_matrix_present_flag
        for i in 0..<12 {
            switch i {
            case 0:  // a full 4x4 list: 16 deltas, none reaching nextScale 0
                w.writeFlag(true)
                for j in 0..<16 { w.writeSE(Int32(j % 3) - 1) }
            case 1:  // useDefaultScalingMatrixFlag: first delta makes nextScale 0
                w.writeFlag(true)
                w.writeSE(-8)
            case 6:  // a full 8x8 list with the extreme deltas
                w.writeFlag(true)
                for j in 0..<64 { w.writeSE(j % 2 == 0 ? 127 : -127) }  // 8, 135, 8, 135, ...: never 0
            default:
                w.writeFlag(false)  // seq_scaling_list_present_flag
            }
        }
        w.writeUE(5)  // log2_max_frame_num_minus4
        w.writeUE(1)  // pic_order_cnt_type
        w.writeFlag(false)  // delta_pic_order_always_zero_flag
        w.writeSE(-5)  // offset_for_non_ref_pic
        w.writeSE(7)  // offset_for_top_to_bottom_field
        w.writeUE(UInt32(cycle.count))  // num_ref_frames_in_pic_order_cnt_cycle
        for offset in cycle { w.writeSE(offset) }  // offset_for_ref_frame
        w.writeUE(4)  // max_num_ref_frames
        w.writeFlag(true)  // gaps_in_frame_num_value_allowed_flag
        w.writeUE(119)  // pic_width_in_mbs_minus1
        w.writeUE(33)  // pic_height_in_map_units_minus1
        w.writeFlag(false)  // frame_mbs_only_flag
        w.writeFlag(true)  // mb_adaptive_frame_field_flag
        w.writeFlag(true)  // direct_8x8_inference_flag
        w.writeFlag(true)  // frame_cropping_flag
        w.writeUE(1)  // frame_crop_left_offset
        w.writeUE(2)  // frame_crop_right_offset
        w.writeUE(0)  // frame_crop_top_offset
        w.writeUE(4)  // frame_crop_bottom_offset
        w.writeFlag(true)  // vui_parameters_present_flag
        w.writeFlag(true)  // aspect_ratio_info_present_flag
        w.write(255, bits: 8)  // aspect_ratio_idc (Extended_SAR)
        w.write(4, bits: 16)  // sar_width
        w.write(3, bits: 16)  // sar_height
        w.writeFlag(true)  // overscan_info_present_flag
        w.writeFlag(false)  // overscan_appropriate_flag
        w.writeFlag(true)  // video_signal_type_present_flag
        w.write(5, bits: 3)  // video_format
        w.writeFlag(false)  // video_full_range_flag
        w.writeFlag(true)  // colour_description_present_flag
        w.write(9, bits: 8)  // colour_primaries
        w.write(16, bits: 8)  // transfer_characteristics
        w.write(9, bits: 8)  // matrix_coefficients
        w.writeFlag(true)  // chroma_loc_info_present_flag
        w.writeUE(1)  // chroma_sample_loc_type_top_field
        w.writeUE(1)  // chroma_sample_loc_type_bottom_field
        w.writeFlag(true)  // timing_info_present_flag
        w.write(1001, bits: 32)  // num_units_in_tick
        w.write(60000, bits: 32)  // time_scale
        w.writeFlag(true)  // fixed_frame_rate_flag
        w.writeFlag(true)  // nal_hrd_parameters_present_flag
        w.writeUE(1)  // cpb_cnt_minus1
        w.write(4, bits: 4)  // bit_rate_scale
        w.write(6, bits: 4)  // cpb_size_scale
        for _ in 0..<2 {
            w.writeUE(20_000)  // bit_rate_value_minus1
            w.writeUE(50_000)  // cpb_size_value_minus1
            w.writeFlag(false)  // cbr_flag
        }
        w.write(23, bits: 5)  // initial_cpb_removal_delay_length_minus1
        w.write(23, bits: 5)  // cpb_removal_delay_length_minus1
        w.write(5, bits: 5)  // dpb_output_delay_length_minus1
        w.write(24, bits: 5)  // time_offset_length
        w.writeFlag(false)  // vcl_hrd_parameters_present_flag
        w.writeFlag(false)  // low_delay_hrd_flag
        w.writeFlag(true)  // pic_struct_present_flag
        w.writeFlag(true)  // bitstream_restriction_flag
        w.writeFlag(true)  // motion_vectors_over_pic_boundaries_flag
        w.writeUE(2)  // max_bytes_per_pic_denom
        w.writeUE(1)  // max_bits_per_mb_denom
        w.writeUE(16)  // log2_max_mv_length_horizontal
        w.writeUE(16)  // log2_max_mv_length_vertical
        w.writeUE(3)  // max_num_reorder_frames
        w.writeUE(5)  // max_dec_frame_buffering
        w.writeFlag(true)  // rbsp_stop_one_bit
        return [0x67] + H264RBSP.insertEmulationPrevention(w.bytes)
    }

    @Test func everyBranchReadsBack() throws {
        let sps = try H264SPS(parsing: Self.makeSPS())
        #expect(sps.profileIdc == 244 && sps.levelIdc == 40 && sps.seqParameterSetId == 3)
        #expect(sps.chromaFormatIdc == 3 && sps.separateColourPlaneFlag && sps.chromaArrayType == 0)
        #expect(sps.bitDepthLuma == 10 && sps.bitDepthChroma == 10 && sps.qpprimeYZeroTransformBypassFlag)
        #expect(sps.seqScalingMatrixPresentFlag)
        #expect(sps.log2MaxFrameNumMinus4 == 5 && sps.picOrderCntType == 1)
        #expect(sps.offsetForNonRefPic == -5 && sps.offsetForTopToBottomField == 7)
        #expect(sps.offsetForRefFrame == [1, -2, 300])
        #expect(sps.maxNumRefFrames == 4 && sps.gapsInFrameNumValueAllowedFlag)
        #expect(!sps.frameMbsOnlyFlag && sps.mbAdaptiveFrameFieldFlag && sps.direct8x8InferenceFlag)
        #expect(sps.frameCropping == H264SPS.Cropping(left: 1, right: 2, top: 0, bottom: 4))
        // ChromaArrayType 0: CropUnitX 1, CropUnitY 2 - frame_mbs_only_flag = 2.
        #expect(sps.codedWidth == 1920 && sps.codedHeight == 1088)
        #expect(sps.width == 1917 && sps.height == 1080)
        let vui = try #require(sps.vui)
        #expect(vui.aspectRatioIdc == 255 && vui.sampleAspectRatio?.width == 4 && vui.sampleAspectRatio?.height == 3)
        #expect(
            vui.videoFullRangeFlag == false && vui.colourPrimaries == 9 && vui.transferCharacteristics == 16
                && vui.matrixCoefficients == 9)
        #expect(vui.numUnitsInTick == 1001 && vui.timeScale == 60000 && vui.fixedFrameRateFlag)
        #expect(vui.nalHRDParametersPresentFlag && !vui.vclHRDParametersPresentFlag && vui.picStructPresentFlag)
        #expect(vui.maxNumReorderFrames == 3 && vui.maxDecFrameBuffering == 5)
    }

    @Test func ffmpegTraceHeadersReadsTheSameFields() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("sps.h264")
        try Data(H264Bitstream.startCode + Self.makeSPS()).write(to: URL(fileURLWithPath: path))
        let log = try ExternalTool.run(
            "ffmpeg",
            [
                "-nostats", "-hide_banner", "-f", "h264", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f",
                "null", "-"
            ]
        ).stderr
        let stream = H264Stream(name: "synthetic", bytes: [], probe: [:], trace: log, avcC: [])
        let trace = stream.traceFirstSPS
        #expect(trace["offset_for_ref_frame[2]"] == 300)
        #expect(trace["num_units_in_tick"] == 1001)
        #expect(trace["time_scale"] == 60000)
        #expect(trace["frame_crop_right_offset"] == 2)
        #expect(trace["frame_crop_bottom_offset"] == 4)
        #expect(trace["max_num_reorder_frames"] == 3)
        #expect(trace["max_dec_frame_buffering"] == 5)
    }

    @Test func pocCycleLongerThan255IsInvalidData() {
        let nal = Self.makeSPS(cycle: [Int32](repeating: 1, count: 256))
        do throws(MediaError) {
            _ = try H264SPS(parsing: nal, baseOffset: 50)
            Issue.record("a 256-entry cycle parsed")
        } catch {
            #expect(error.code == .invalidData)
            #expect(error.message == "num_ref_frames_in_pic_order_cnt_cycle is 256, above its limit 255")
            #expect((error.byteOffset ?? 0) > 50 + 40 && (error.byteOffset ?? 0) < 50 + Int64(nal.count))
        }
    }
}
