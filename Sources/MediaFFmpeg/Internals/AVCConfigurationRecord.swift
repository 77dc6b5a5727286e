import MediaCore

/// The `avcC` box payload (AVCDecoderConfigurationRecord, ISO/IEC 14496-15 5.3.3.1) built from H.264
/// parameter sets: what MP4, MOV, FLV and Matroska store as the H.264 track's codec configuration and
/// libavformat takes as `extradata`. (MediaFFmpeg cannot use MediaFormats' parser of the record.)
enum AVCConfigurationRecord {
    /// The record for `parameters`, with 4-byte NAL unit lengths; throws ``/MediaCore/MediaError/Code/invalidData``
    /// when there is no SPS or PPS, a parameter set is shorter than its header or longer than 65535 bytes,
    /// or there are more than 31 SPS or 255 PPS.
    static func bytes(for parameters: H264Parameters) throws(MediaError) -> [UInt8] {
        let sps = parameters.sequenceParameterSets
        let pps = parameters.pictureParameterSets
        guard let first = sps.first, first.count >= 4, !pps.isEmpty else {
            throw MediaError(.invalidData, "H.264 format has no usable SPS and PPS (\(sps.count) SPS, \(pps.count) PPS) for an avcC record")
        }
        guard sps.count <= 31, pps.count <= 255 else {
            throw MediaError(.invalidData, "H.264 format has \(sps.count) SPS and \(pps.count) PPS; avcC holds at most 31 and 255")
        }
        guard let longest = (sps + pps).map(\.count).max(), longest <= 0xFFFF, (sps + pps).allSatisfy({ !$0.isEmpty }) else {
            throw MediaError(.invalidData, "an H.264 parameter set is empty or longer than 65535 bytes")
        }
        var out: [UInt8] = []
        out.append(1)                           // configurationVersion
        out.append(first[1])                    // AVCProfileIndication (profile_idc)
        out.append(first[2])                    // profile_compatibility (constraint flags)
        out.append(first[3])                    // AVCLevelIndication (level_idc)
        out.append(0xFC | 3)                    // reserved '111111', lengthSizeMinusOne = 3
        out.append(0xE0 | UInt8(sps.count))     // reserved '111', numOfSequenceParameterSets
        for unit in sps {
            out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)]   // sequenceParameterSetLength
            out += unit                                                 // sequenceParameterSetNALUnit
        }
        out.append(UInt8(pps.count))            // numOfPictureParameterSets
        for unit in pps {
            out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)]   // pictureParameterSetLength
            out += unit                                                 // pictureParameterSetNALUnit
        }
        return out
    }
}
