public import MediaCore

/// The one parser of AVCC samples (ISO/IEC 14496-15 5.3.4.2: each NAL unit preceded by its length in
/// `lengthSize` big-endian bytes, as in MP4 and in ``/MediaCore/MediaSample``) that every stage of this
/// library uses: ``H264Bitstream``, `AnnexBMuxer`, `H264Decoder`, `ContainerMuxer` and the demuxer.
///
/// It walks the sample without copying: ``next(in:)`` gives each NAL unit as a range of indices into the
/// bytes it is given (an array, a slice or an `UnsafeRawBufferPointer`, the same bytes at every call),
/// header byte first. The parser is a plain value with no generic parameter and holds no reference to
/// the bytes, so walking a sample allocates nothing and costs no generic metadata at run time.
///
/// One rule for every caller:
/// - A length prefix cut short by the end of the sample, or a length that runs past it, is refused with
///   ``/MediaCore/MediaError/Code/truncated`` carrying the byte offset of that prefix (plus `baseOffset`).
/// - A length of 0 announces no NAL unit: it is skipped, counted in ``skippedEmptyNALUnits`` and its
///   offset kept in ``firstEmptyNALUnitOffset``, so that a stage with a `Logger` reports it as a warning.
///   This is what FFmpeg does: its `h264_mp4toannexb` bitstream filter (what `ffmpeg -c copy -f h264`
///   runs) skips a zero `nal_size` (`if (!nal_size) continue;`) and refuses only a size past the end,
///   and its H.264 decoder drops the empty unit it splits out. A zero length carries no data to lose,
///   so refusing the whole access unit for it would discard a decodable picture.
/// - A `lengthSize` other than 1, 2 or 4 is refused by ``init(lengthSize:baseOffset:)`` with
///   ``/MediaCore/MediaError/Code/invalidArgument`` (`lengthSizeMinusOne` 2 is not allowed).
///
/// ```swift
/// let sample: [UInt8] = [0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 0, 0, 0, 0, 1, 0x0C]
/// var parser = try AVCCParser()
/// while let unit = try parser.next(in: sample) { print(sample[unit.range]) }   // [9, 240], then [12]
/// assert(parser.skippedEmptyNALUnits == 1 && parser.firstEmptyNALUnitOffset == 6)
/// ```
public struct AVCCParser: Sendable {
    /// One NAL unit of an AVCC sample.
    public struct NALUnit: Sendable, Hashable {
        /// The NAL unit's indices in the parsed bytes, from its header byte; never empty.
        public var range: Range<Int>
        /// The position of its length prefix in the input (`baseOffset` plus the offset in the bytes).
        public var prefixOffset: Int64

        /// A NAL unit at `range` whose length prefix is at `prefixOffset`.
        @inlinable
        public init(range: Range<Int>, prefixOffset: Int64) {
            self.range = range
            self.prefixOffset = prefixOffset
        }
    }

    /// The size of each length prefix: 1, 2 or 4.
    public let lengthSize: Int
    /// The position of the first byte in the input, added to every offset reported.
    public let baseOffset: Int64
    /// How far into the bytes the walk has come.
    @usableFromInline var position = 0
    @usableFromInline var emptyCount = 0
    @usableFromInline var firstEmptyOffset: Int64?

    /// Zero-length prefixes skipped so far.
    public var skippedEmptyNALUnits: Int { emptyCount }
    /// The input offset of the first zero-length prefix skipped, or `nil` when there was none.
    public var firstEmptyNALUnitOffset: Int64? { firstEmptyOffset }

    /// A parser at the start of an AVCC sample whose first byte is at `baseOffset` in the input.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` when `lengthSize` is not 1, 2 or 4.
    @inlinable
    public init(lengthSize: Int = 4, baseOffset: Int64 = 0) throws(MediaError) {
        guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
            throw MediaError(.invalidArgument, "AVCC length size must be 1, 2 or 4 bytes, not \(lengthSize)")
        }
        self.lengthSize = lengthSize
        self.baseOffset = baseOffset
    }

    /// The next non-empty NAL unit of `bytes`, or `nil` at their end. Give the same bytes at every call.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` when a length prefix, or the NAL unit it
    ///   announces, runs past the end, with the prefix's offset; the parser then stays where it failed.
    @inlinable
    public mutating func next<Bytes: RandomAccessCollection>(
        in bytes: Bytes
    ) throws(MediaError) -> NALUnit? where Bytes.Element == UInt8, Bytes.Index == Int {
        let base = bytes.startIndex
        let count = bytes.count
        while position < count {
            let prefixOffset = baseOffset + Int64(position)
            let available = count - position
            guard available >= lengthSize else {
                throw MediaError.truncated(
                    "AVCC NAL unit length prefix", needed: lengthSize, available: available, at: prefixOffset)
            }
            var length = 0
            for index in base + position..<base + position + lengthSize {
                length = length << 8 | Int(bytes[index])  // NALUnitLength
            }
            let start = position + lengthSize
            guard length <= count - start else {
                throw MediaError.truncated(
                    "AVCC NAL unit of \(length) bytes", needed: length, available: count - start, at: prefixOffset)
            }
            position = start + length
            if length == 0 {
                emptyCount += 1
                if firstEmptyOffset == nil { firstEmptyOffset = prefixOffset }
                continue
            }
            return NALUnit(range: base + start..<base + start + length, prefixOffset: prefixOffset)
        }
        return nil
    }

    /// Every remaining non-empty NAL unit of `bytes`, in order; empty ones are counted as by ``next(in:)``.
    ///
    /// - Throws: as ``next(in:)``.
    @inlinable
    public mutating func all<Bytes: RandomAccessCollection>(
        in bytes: Bytes
    ) throws(MediaError) -> [NALUnit] where Bytes.Element == UInt8, Bytes.Index == Int {
        var units: [NALUnit] = []
        while let unit = try next(in: bytes) { units.append(unit) }
        return units
    }

    /// The warning a stage logs when the sample had zero-length NAL units, or `nil` when it had none:
    /// `"skipped 2 zero-length AVCC NAL units (the first at byte 6)"`.
    public var emptyNALUnitWarning: String? {
        guard let offset = firstEmptyNALUnitOffset else { return nil }
        let units = skippedEmptyNALUnits == 1 ? "unit" : "units"
        return "skipped \(skippedEmptyNALUnits) zero-length AVCC NAL \(units) (the first at byte \(offset))"
    }
}
