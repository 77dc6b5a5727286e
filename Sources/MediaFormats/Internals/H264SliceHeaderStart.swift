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

    private init(firstMbInSlice: UInt32, sliceType: UInt32, picParameterSetId: Int) {
        self.firstMbInSlice = firstMbInSlice
        self.sliceType = sliceType
        self.picParameterSetId = picParameterSetId
    }

    /// Reads the fields from the NAL unit `nal` (header byte included), which starts at `offset`.
    ///
    /// Valid fields are read in place, allocating nothing (this runs for every slice); anything else is
    /// read again by the unescaping parser below, which names what is wrong and where.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` when the NAL unit ends inside the fields;
    ///   ``/MediaCore/MediaError/Code/invalidData`` for an out-of-range value; both with the byte offset.
    init(nal: ArraySlice<UInt8>, offset: Int64) throws(MediaError) {
        let fast: H264SliceHeaderStart? = nal.withUnsafeBufferPointer { bytes in
            var reader = UnescapingBitReader(bytes, from: 1, to: min(bytes.count, Self.prefixLength + 1))
            guard let first = reader.readUE(), let type = reader.readUE(), type <= 9,
                let ppsId = reader.readUE(), ppsId <= 255
            else { return nil }
            return H264SliceHeaderStart(firstMbInSlice: first, sliceType: type, picParameterSetId: Int(ppsId))
        }
        if let fast {
            self = fast
        } else {
            try self.init(reportingErrorsIn: Array(nal), offset: offset)
        }
    }

    /// The `slice_type` (0...9) of the slice NAL unit `nal` (header byte included), or `nil` when its
    /// slice header does not start with two valid `ue(v)` codes. Reads in place, allocating nothing.
    static func sliceType(of nal: UnsafeRawBufferPointer) -> UInt32? {
        let bytes = nal.assumingMemoryBound(to: UInt8.self)
        var reader = UnescapingBitReader(bytes, from: 1, to: min(bytes.count, prefixLength + 1))
        guard reader.readUE() != nil, let type = reader.readUE(), type <= 9 else { return nil }
        return type
    }

    /// The unescaping parser, which throws the errors of ``init(nal:offset:)``.
    private init(reportingErrorsIn nal: [UInt8], offset: Int64) throws(MediaError) {
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

/// Reads `ue(v)` codes from escaped NAL unit bytes, skipping emulation prevention bytes (a `03` after
/// two zero bytes) as `H264RBSP.unescape(_:)` removes them, without copying. Returns `nil` instead of
/// describing what went wrong: the caller then reads the bytes again with the reporting parser.
private struct UnescapingBitReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int
    private let end: Int
    private var current: UInt8 = 0
    private var bitsLeft = 0
    private var zeros = 0

    /// A reader of `bytes[start..<end]`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) {
        self.bytes = bytes
        self.index = start
        self.end = min(end, bytes.count)
    }

    private mutating func nextByte() -> UInt8? {
        guard index < end else { return nil }
        let byte = bytes[index]
        index += 1
        return byte
    }

    private mutating func readBit() -> UInt32? {
        if bitsLeft == 0 {
            guard var byte = nextByte() else { return nil }
            if zeros >= 2 && byte == 0x03 {  // emulation_prevention_three_byte
                guard let next = nextByte() else { return nil }
                byte = next
                zeros = 0
            }
            zeros = byte == 0 ? zeros + 1 : 0
            current = byte
            bitsLeft = 8
        }
        bitsLeft -= 1
        return UInt32((current >> UInt8(bitsLeft)) & 1)
    }

    /// An unsigned Exp-Golomb code of at most 31 leading zero bits, as ``/MediaBitstream/BitReader/readUE(_:)``.
    mutating func readUE() -> UInt32? {
        var leadingZeros = 0
        while true {
            guard let bit = readBit() else { return nil }
            if bit == 1 { break }
            leadingZeros += 1
            guard leadingZeros <= BitReader.maximumExpGolombLeadingZeros else { return nil }
        }
        var suffix: UInt64 = 0
        for _ in 0..<leadingZeros {
            guard let bit = readBit() else { return nil }
            suffix = suffix << 1 | UInt64(bit)
        }
        return UInt32((UInt64(1) << UInt64(leadingZeros)) - 1 + suffix)
    }
}
