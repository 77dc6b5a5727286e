public import MediaCore

extension H264Bitstream {
    /// The NAL units of a whole Annex-B buffer (an encoder's packet, a demuxed MPEG-TS access unit), as
    /// ``AnnexBScanner`` splits it, each as a slice of one copy of the buffer. A NAL unit of only zero
    /// bytes (two start codes with nothing else between them) is skipped, as ``AVCCParser`` skips a
    /// zero-length AVCC NAL unit; bytes before the first start code are ignored.
    @inlinable  // an encoder's every packet: the push is specialised in the caller, the split is not generic
    public static func annexBNALUnits<C: Collection>(_ stream: C) -> [ArraySlice<UInt8>] where C.Element == UInt8 {
        var scanner = AnnexBScanner()
        scanner.push(stream)
        return nalUnits(finishing: &scanner)
    }

    /// Finishes `scanner`, which holds a whole buffer pushed at once, and returns its NAL units as
    /// ``annexBNALUnits(_:)`` does.
    @usableFromInline
    static func nalUnits(finishing scanner: inout AnnexBScanner) -> [ArraySlice<UInt8>] {
        scanner.finish()
        var ranges: [Range<Int>] = []
        while true {
            do {
                guard let unit = try scanner.nextNALUnitRange() else { break }
                ranges.append(unit.range)
            } catch {
                continue  // an all-zero unit; the scanner goes on after it
            }
        }
        // Nothing was pushed after finish(), so the buffer was never compacted: the ranges index it.
        let buffer = scanner.buffer
        return ranges.map { buffer[$0] }
    }

    /// `nal_unit_type` of a NAL unit (the low five bits of its header byte); ``H264NALUnitType/unspecified``
    /// for an empty one.
    @inlinable
    public static func nalUnitType<C: Collection>(of unit: C) -> H264NALUnitType where C.Element == UInt8 {
        H264NALUnitType(rawValue: unit.first ?? 0)
    }

    /// The SPS and PPS among `units`, in order, or `nil` when there is not at least one of each.
    @inlinable
    public static func parameterSets<C: Collection>(in units: [C]) -> H264Parameters? where C.Element == UInt8 {
        let sps = units.filter { nalUnitType(of: $0) == .sps }.map { Array($0) }
        let pps = units.filter { nalUnitType(of: $0) == .pps }.map { Array($0) }
        guard !sps.isEmpty, !pps.isEmpty else { return nil }
        return H264Parameters(sequenceParameterSets: sps, pictureParameterSets: pps)
    }
}
