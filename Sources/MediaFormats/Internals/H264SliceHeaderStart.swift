import MediaCore

/// The first three fields of an H.264 `slice_header()` (ITU-T H.264 section 7.3.3): what grouping NAL
/// units into access units needs. Slice data partitions B and C (types 3 and 4) start with `slice_id`
/// instead and are not read with this.
struct H264SliceHeaderStart {
    /// `first_mb_in_slice`: 0 for the first slice of a picture.
    var firstMbInSlice: UInt32
    /// `slice_type` (0...9).
    var sliceType: UInt32
    /// `pic_parameter_set_id` (0...255).
    var picParameterSetId: Int

    /// The escaped bytes read at most: three `ue(v)` codes of at most 63 bits each, with room for
    /// emulation prevention bytes.
    private static let prefixLength = 48

    /// Reads the fields from the NAL unit `nal` (header byte included), which starts at `offset`.
    ///
    /// - Throws: ``MediaError/Code/truncated`` when the NAL unit ends inside the fields;
    ///   ``MediaError/Code/invalidData`` for an out-of-range value; both with the byte offset.
    init(nal: [UInt8], offset: Int64) throws(MediaError) {
        let end = min(nal.count, Self.prefixLength + 1)
        let (rbsp, removed) = H264RBSP.unescape(nal[min(1, nal.count)..<end])
        var r = BitReader(rbsp)
        do throws(MediaError) {
            firstMbInSlice = try r.readUE("first_mb_in_slice")
            sliceType = try r.readUE("slice_type")
            guard sliceType <= 9 else {
                throw MediaError.invalidData("slice_type \(sliceType) is above 9", at: 0)
            }
            let ppsId = try r.readUE("pic_parameter_set_id")
            guard ppsId <= 255 else {
                throw MediaError.invalidData("pic_parameter_set_id \(ppsId) is above 255", at: 0)
            }
            picParameterSetId = Int(ppsId)
        } catch {
            var mapped = error
            let rbspOffset = Int(error.byteOffset ?? 0)
            mapped.byteOffset = offset + 1 + Int64(H264RBSP.escapedOffset(ofRBSPIndex: rbspOffset, removed: removed))
            if mapped.code == .truncated {
                mapped.message = "slice header of a NAL unit of \(nal.count) bytes is cut short: " + mapped.message
            }
            throw mapped
        }
    }
}
