public import MediaCore

/// Conversions between the two ways H.264 NAL units are framed: AVCC (ISO/IEC 14496-15: each NAL unit
/// preceded by its length in 1, 2 or 4 big-endian bytes, as in MP4 and in ``/MediaCore/MediaSample``) and Annex B
/// (ITU-T H.264 annex B: each NAL unit preceded by a start code, as in `.h264` files and MPEG-TS).
///
/// ```swift
/// let annexB = try H264Bitstream.avccToAnnexB([0, 0, 0, 2, 0x09, 0xF0])   // [0, 0, 0, 1, 0x09, 0xF0]
/// assert(try H264Bitstream.annexBToAVCC(annexB) == [0, 0, 0, 2, 0x09, 0xF0])
/// ```
public enum H264Bitstream {
    /// The 4-byte start code `00 00 00 01` that ``avccToAnnexB(_:lengthSize:)`` puts before every NAL unit.
    public static let startCode: [UInt8] = [0x00, 0x00, 0x00, 0x01]

    /// The NAL units of an AVCC sample, in order, each as a slice of `sample`: ``AVCCParser``'s walk,
    /// with its rule that a zero-length NAL unit is skipped.
    ///
    /// - Parameters:
    ///   - sample: the AVCC sample: NAL units, each after a big-endian length.
    ///   - lengthSize: the size of each length prefix: 1, 2 or 4 (`lengthSizeMinusOne + 1` of the avcC).
    ///   - baseOffset: the position of `sample` in the input, for errors.
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for another `lengthSize`;
    ///   ``/MediaCore/MediaError/Code/truncated`` when a length prefix or the NAL unit it announces runs
    ///   past the end, with the prefix's offset.
    public static func avccNALUnits(
        _ sample: [UInt8], lengthSize: Int = 4, baseOffset: Int64 = 0
    ) throws(MediaError) -> [ArraySlice<UInt8>] {
        var parser = try AVCCParser(lengthSize: lengthSize, baseOffset: baseOffset)
        var units: [ArraySlice<UInt8>] = []
        while let unit = try parser.next(in: sample) { units.append(sample[unit.range]) }
        return units
    }

    /// NAL units as one AVCC sample: each behind its length in 4 big-endian bytes.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` for an empty NAL unit or one longer than
    ///   a 32-bit length can say.
    @inlinable  // called for every packet an encoder or demuxer gives: specialised in the caller
    public static func avcc<C: Collection>(_ units: [C]) throws(MediaError) -> [UInt8] where C.Element == UInt8 {
        var output: [UInt8] = []
        output.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for unit in units { try appendAVCC(unit, to: &output) }
        return output
    }

    /// Appends one NAL unit to an AVCC sample being built: its length in 4 big-endian bytes, then its
    /// bytes. What ``avcc(_:)`` does for each unit, for a caller that writes into a buffer it keeps (a
    /// recycled sample's) instead of making an array of units first.
    ///
    /// - Throws: as ``avcc(_:)``.
    @inlinable
    public static func appendAVCC<C: Collection>(_ unit: C, to output: inout [UInt8]) throws(MediaError)
    where C.Element == UInt8 {
        guard !unit.isEmpty, let length = UInt32(exactly: unit.count) else {
            throw MediaError(
                .invalidArgument, "a NAL unit of \(unit.count) bytes cannot be written with a 4-byte length")
        }
        // NALUnitLength, big-endian
        output.append(UInt8(truncatingIfNeeded: length >> 24))
        output.append(UInt8(truncatingIfNeeded: length >> 16))
        output.append(UInt8(truncatingIfNeeded: length >> 8))
        output.append(UInt8(truncatingIfNeeded: length))
        output.append(contentsOf: unit)  // NALUnit
    }

    /// NAL units as Annex B: each behind the 4-byte start code `00 00 00 01`.
    @inlinable  // called for every access unit a decoder is given: specialised in the caller
    public static func annexB<C: Collection>(_ units: [C]) -> [UInt8] where C.Element == UInt8 {
        var output: [UInt8] = []
        output.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for unit in units {
            output.append(contentsOf: startCode)
            output.append(contentsOf: unit)
        }
        return output
    }

    /// An AVCC sample (length-prefixed NAL units) as Annex B: each length prefix replaced by the 4-byte
    /// start code `00 00 00 01`.
    ///
    /// - Throws: as ``avccNALUnits(_:lengthSize:baseOffset:)``.
    public static func avccToAnnexB(_ sample: [UInt8], lengthSize: Int = 4) throws(MediaError) -> [UInt8] {
        annexB(try avccNALUnits(sample, lengthSize: lengthSize))
    }

    /// An Annex-B byte stream (or one access unit of it) as AVCC: every NAL unit that
    /// ``AnnexBScanner`` finds, preceded by its length in 4 big-endian bytes.
    ///
    /// A start code followed only by zero bytes (trailing_zero_8bits) gives no NAL unit.
    ///
    /// - Throws: Nothing for a whole stream; the scanner's errors are only for misuse.
    public static func annexBToAVCC(_ stream: [UInt8]) throws(MediaError) -> [UInt8] {
        var scanner = AnnexBScanner()
        scanner.push(stream)
        scanner.finish()
        var writer = ByteWriter(capacity: stream.count + 16)
        while let unit = try scanner.next() {
            writer.writeUInt32BE(UInt32(truncatingIfNeeded: unit.bytes.count))  // NALUnitLength
            writer.write(unit.bytes)  // NALUnit
        }
        return writer.bytes
    }
}
