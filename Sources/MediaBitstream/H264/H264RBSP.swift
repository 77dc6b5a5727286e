import MediaCore

/// Emulation prevention (ITU-T H.264 section 7.4.1): how the raw byte sequence payload (RBSP) of a
/// NAL unit is kept free of start-code prefixes.
///
/// Inside a NAL unit, every `00 00` followed by a byte 0x00 to 0x03 gets an
/// `emulation_prevention_three_byte` 0x03 between them, so that `00 00 01` never appears in the
/// payload. Parsers remove those bytes before reading fields; writers insert them.
///
/// ```swift
/// assert(H264RBSP.insertEmulationPrevention([0x00, 0x00, 0x01]) == [0x00, 0x00, 0x03, 0x01])
/// assert(H264RBSP.removeEmulationPrevention([0x00, 0x00, 0x03, 0x01]) == [0x00, 0x00, 0x01])
/// ```
public enum H264RBSP {
    /// `bytes` with every `emulation_prevention_three_byte` removed: each 0x03 that follows two zero
    /// bytes (counted since the last removed 0x03) is dropped.
    @inlinable
    public static func removeEmulationPrevention<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        unescape(bytes).rbsp
    }

    /// `payload` with an `emulation_prevention_three_byte` 0x03 inserted after every `00 00` that is
    /// followed by 0x00, 0x01, 0x02 or 0x03, and appended when the payload ends with a zero byte
    /// (as the spec requires after a final `cabac_zero_word`).
    ///
    /// ``removeEmulationPrevention(_:)`` gives `payload` back unless the escaped payload ends with a
    /// single zero byte (one after a non-zero byte or an inserted 0x03, or a one-byte payload `00`): the
    /// appended 0x03 then follows only one zero and is not an emulation prevention byte. A valid RBSP
    /// never ends that way (it ends with `rbsp_stop_one_bit` or whole two-byte `cabac_zero_word`s
    /// after it).
    @inlinable
    public static func insertEmulationPrevention<C: Collection>(_ payload: C) -> [UInt8] where C.Element == UInt8 {
        // Specialised in the caller down to the contiguous bytes; the loop is not generic.
        if let output = payload.withContiguousStorageIfAvailable({ insertEmulationPrevention(contiguous: $0) }) {
            return output
        }
        return Array(payload).withUnsafeBufferPointer { insertEmulationPrevention(contiguous: $0) }
    }

    /// ``insertEmulationPrevention(_:)`` of contiguous bytes.
    @usableFromInline
    static func insertEmulationPrevention(contiguous payload: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(payload.count + payload.count / 64 + 1)
        var zeros = 0
        for byte in payload {
            if zeros >= 2 && byte <= 0x03 {
                output.append(0x03)  // emulation_prevention_three_byte
                zeros = 0
            }
            output.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        if output.last == 0x00 { output.append(0x03) }  // emulation_prevention_three_byte after cabac_zero_word
        return output
    }

    /// The RBSP and, for each removed byte, the RBSP index it stood before (to map RBSP positions back
    /// to positions in the NAL unit).
    @inlinable
    package static func unescape<C: Collection>(
        _ bytes: C
    ) -> (rbsp: [UInt8], removed: [Int]) where C.Element == UInt8 {
        // Every parameter set parsed goes through here: the loop runs on contiguous bytes, not generic.
        if let result = bytes.withContiguousStorageIfAvailable({ unescape(contiguous: $0) }) { return result }
        return Array(bytes).withUnsafeBufferPointer { unescape(contiguous: $0) }
    }

    /// ``unescape(_:)`` of contiguous bytes.
    @usableFromInline
    static func unescape(contiguous bytes: UnsafeBufferPointer<UInt8>) -> (rbsp: [UInt8], removed: [Int]) {
        var rbsp: [UInt8] = []
        rbsp.reserveCapacity(bytes.count)
        var removed: [Int] = []
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte == 0x03 {
                removed.append(rbsp.count)  // emulation_prevention_three_byte
                zeros = 0
                continue
            }
            rbsp.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return (rbsp, removed)
    }

    /// The position in the escaped NAL unit of the byte at `rbspIndex` in the RBSP.
    package static func escapedOffset(ofRBSPIndex rbspIndex: Int, removed: [Int]) -> Int {
        var offset = rbspIndex
        for index in removed {
            guard index <= rbspIndex else { break }
            offset += 1
        }
        return offset
    }

    /// Reads the NAL unit `nalUnit` (header byte included, starting at `baseOffset` in the input), which
    /// must be of type `type` (`name` in the error), with `read` over its RBSP after the header byte. An
    /// error's byte offset becomes the field's position in the input, emulation prevention bytes counted.
    static func parse<T>(
        _ nalUnit: [UInt8], as type: H264NALUnitType, _ name: String, baseOffset: Int64,
        _ read: (inout BitReader) throws(MediaError) -> T
    ) throws(MediaError) -> T {
        let header = try H264NALHeader(parsing: nalUnit, baseOffset: baseOffset)
        guard header.nalUnitType == type else {
            throw MediaError.invalidData("NAL unit of type \(header.nalUnitType) is not \(name)", at: baseOffset)
        }
        let (rbsp, removed) = unescape(nalUnit.dropFirst())
        var reader = BitReader(rbsp)
        do throws(MediaError) {
            return try read(&reader)
        } catch {
            var mapped = error
            if let rbspOffset = error.byteOffset {
                mapped.byteOffset =
                    baseOffset + 1 + Int64(escapedOffset(ofRBSPIndex: Int(rbspOffset), removed: removed))
            }
            throw mapped
        }
    }
}
