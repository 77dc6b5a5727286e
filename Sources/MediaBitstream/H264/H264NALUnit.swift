public import MediaCore

/// `nal_unit_type` of an H.264 NAL unit header (ITU-T H.264 table 7-1): five bits, 0 to 31.
///
/// An open set: any value from 0 to 31 can be represented, the named members are the ones a muxer or
/// a reader meets.
///
/// ```swift
/// let header = H264NALHeader(byte: 0x67)
/// assert(header.nalUnitType == .sps && !header.nalUnitType.isVCL)
/// ```
public struct H264NALUnitType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The five-bit `nal_unit_type` value.
    public let rawValue: UInt8

    /// The type with value `rawValue`; only the low five bits are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x1F }

    /// 0: unspecified.
    public static let unspecified = H264NALUnitType(rawValue: 0)
    /// 1: coded slice of a non-IDR picture.
    public static let slice = H264NALUnitType(rawValue: 1)
    /// 2: coded slice data partition A.
    public static let sliceDataPartitionA = H264NALUnitType(rawValue: 2)
    /// 3: coded slice data partition B.
    public static let sliceDataPartitionB = H264NALUnitType(rawValue: 3)
    /// 4: coded slice data partition C.
    public static let sliceDataPartitionC = H264NALUnitType(rawValue: 4)
    /// 5: coded slice of an IDR picture.
    public static let idr = H264NALUnitType(rawValue: 5)
    /// 6: supplemental enhancement information (SEI).
    public static let sei = H264NALUnitType(rawValue: 6)
    /// 7: sequence parameter set (SPS).
    public static let sps = H264NALUnitType(rawValue: 7)
    /// 8: picture parameter set (PPS).
    public static let pps = H264NALUnitType(rawValue: 8)
    /// 9: access unit delimiter (AUD).
    public static let accessUnitDelimiter = H264NALUnitType(rawValue: 9)
    /// 10: end of sequence.
    public static let endOfSequence = H264NALUnitType(rawValue: 10)
    /// 11: end of stream.
    public static let endOfStream = H264NALUnitType(rawValue: 11)
    /// 12: filler data.
    public static let fillerData = H264NALUnitType(rawValue: 12)
    /// 13: sequence parameter set extension.
    public static let spsExtension = H264NALUnitType(rawValue: 13)
    /// 14: prefix NAL unit (SVC, MVC).
    public static let prefix = H264NALUnitType(rawValue: 14)
    /// 15: subset sequence parameter set (SVC, MVC).
    public static let subsetSPS = H264NALUnitType(rawValue: 15)
    /// 19: coded slice of an auxiliary coded picture without partitioning.
    public static let auxiliarySlice = H264NALUnitType(rawValue: 19)
    /// 20: coded slice extension (SVC, MVC).
    public static let sliceExtension = H264NALUnitType(rawValue: 20)

    /// Whether the type carries coded picture data (a VCL NAL unit, types 1 to 5).
    public var isVCL: Bool { (1...5).contains(rawValue) }

    /// The type's spec name and value, e.g. `SPS (7)`.
    public var description: String {
        let names: [UInt8: String] = [
            0: "unspecified", 1: "slice", 2: "slice data partition A", 3: "slice data partition B",
            4: "slice data partition C", 5: "IDR slice", 6: "SEI", 7: "SPS", 8: "PPS", 9: "AUD",
            10: "end of sequence", 11: "end of stream", 12: "filler data", 13: "SPS extension",
            14: "prefix", 15: "subset SPS", 19: "auxiliary slice", 20: "slice extension"
        ]
        return "\(names[rawValue] ?? "reserved") (\(rawValue))"
    }
}

/// The one-byte H.264 NAL unit header, `nal_unit()` of ITU-T H.264 section 7.3.1:
/// `forbidden_zero_bit`, `nal_ref_idc` and `nal_unit_type`.
///
/// ```swift
/// let header = try H264NALHeader(parsing: [0x65, 0x88, 0x84])
/// assert(header.nalRefIdc == 3 && header.nalUnitType == .idr && header.byte == 0x65)
/// ```
public struct H264NALHeader: Sendable, Hashable {
    /// `forbidden_zero_bit`: must be 0 in a conforming stream.
    public var forbiddenZeroBit: Bool
    /// `nal_ref_idc` (two bits): 0 when the NAL unit is not used for reference.
    public var nalRefIdc: UInt8
    /// `nal_unit_type` (five bits).
    public var nalUnitType: H264NALUnitType

    /// A header with `forbidden_zero_bit` 0; `nalRefIdc` keeps its low two bits.
    public init(nalRefIdc: UInt8, nalUnitType: H264NALUnitType) {
        self.forbiddenZeroBit = false
        self.nalRefIdc = nalRefIdc & 0x03
        self.nalUnitType = nalUnitType
    }

    /// The header that `byte` spells, without checking `forbidden_zero_bit`.
    public init(byte: UInt8) {
        forbiddenZeroBit = byte & 0x80 != 0  // forbidden_zero_bit
        nalRefIdc = (byte >> 5) & 0x03  // nal_ref_idc
        nalUnitType = H264NALUnitType(rawValue: byte & 0x1F)  // nal_unit_type
    }

    /// The header at the start of `nalUnit`, which starts at `baseOffset` in the input.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/truncated`` for an empty NAL unit; ``/MediaCore/MediaError/Code/invalidData``
    ///   when `forbidden_zero_bit` is 1.
    @inlinable  // every NAL unit of a stream is read with it: specialised in the caller
    public init<C: Collection>(parsing nalUnit: C, baseOffset: Int64 = 0) throws(MediaError) where C.Element == UInt8 {
        guard let first = nalUnit.first else {
            throw MediaError.truncated("NAL unit header", needed: 1, available: 0, at: baseOffset)
        }
        self.init(byte: first)
        guard !forbiddenZeroBit else {
            throw MediaError.invalidData(
                "NAL unit header 0x\(String(first, radix: 16)) has forbidden_zero_bit set", at: baseOffset)
        }
    }

    /// The header as its one byte.
    public var byte: UInt8 {
        (forbiddenZeroBit ? 0x80 : 0) | (nalRefIdc & 0x03) << 5 | nalUnitType.rawValue
    }
}
