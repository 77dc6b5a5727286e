public import MediaCore

extension H264Bitstream {
    /// The NAL units of a whole Annex-B buffer (an encoder's packet, a demuxed MPEG-TS access unit), as
    /// ``AnnexBScanner`` splits it, each as a slice of the array (of a copy of another collection), indexed
    /// from 0 either way. A NAL unit of only zero bytes (two start codes with nothing else between them)
    /// is skipped, as ``AVCCParser`` skips a zero-length AVCC NAL unit; bytes before the first start code
    /// are ignored.
    @inlinable  // an encoder's every packet: no copy of an array, the split is not generic
    public static func annexBNALUnits<C: Collection>(_ stream: C) -> [ArraySlice<UInt8>] where C.Element == UInt8 {
        nalUnits(of: Array(stream))
    }

    /// ``annexBNALUnits(_:)`` of an array, as slices of it: the start codes found in place, as
    /// ``AnnexBScanner`` finds them, and the trailing zero bytes before each dropped.
    @usableFromInline
    static func nalUnits(of stream: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        stream.withUnsafeBytes { bytes in
            forEachAnnexBNALUnit(in: bytes) { unit in
                let start = unit.baseAddress! - bytes.baseAddress!
                units.append(stream[start..<start + unit.count])
            }
        }
        return units
    }

    /// Calls `body` with each NAL unit of a whole Annex-B buffer, in place (no copy, no allocation), as
    /// ``annexBNALUnits(_:)`` splits it: a NAL unit of only zero bytes is skipped, the trailing zero
    /// bytes before a start code are dropped, bytes before the first start code are ignored.
    @inlinable
    public static func forEachAnnexBNALUnit<E: Error>(
        in bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        let count = bytes.count
        var unitStart: Int?
        var from = 0
        while true {
            let code = AnnexBScanner.startCode(in: bytes, from: from, count: count)
            if let start = unitStart {
                // The unit up to the start code (or the end) without its trailing_zero_8bits.
                var last = code ?? count
                while last > start && bytes[last - 1] == 0 { last -= 1 }
                if last > start { try body(UnsafeRawBufferPointer(rebasing: bytes[start..<last])) }
            }
            guard let code else { break }
            unitStart = code + 3
            from = code + 3
        }
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
