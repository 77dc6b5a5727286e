import MediaBitstream
import MediaCore
import Testing

/// The HEVC and VP9 configuration records the video encoders write (their bytes against libavformat's
/// are checked in VideoEncoderFamilyTests and TranscodeCodecTableTests).
@Suite(.timeLimit(.minutes(1))) struct VideoConfigurationRecordTests {
    /// x265's VPS, SPS and PPS for a 320×240 Main stream (one thread, `-preset fast`), as its global header
    /// gives them.
    static let vps: [UInt8] = [
        0x40, 0x01, 0x0C, 0x01, 0xFF, 0xFF, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00,
        0x03, 0x00, 0x3C, 0x95, 0x98, 0x09
    ]
    static let sps: [UInt8] = [
        0x42, 0x01, 0x01, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x3C,
        0xA0, 0x0A, 0x08, 0x0F, 0x16, 0x59, 0x59, 0xA4, 0x93, 0x2B, 0x9A, 0x02, 0x00, 0x00, 0x03, 0x00, 0x02, 0x00,
        0x00, 0x03, 0x00, 0x30, 0x10
    ]
    static let pps: [UInt8] = [0x44, 0x01, 0xC1, 0x72, 0xB4, 0x62, 0x40]

    @Test func hevcRecordReadsTheSPSAndWritesTheArraysInOrder() throws {
        let record = try HEVCDecoderConfigurationRecord(nalUnits: [Self.pps, Self.sps, Self.vps])
        #expect(record.profile == 1)  // Main
        #expect(record.level == 60)  // 2.0
        #expect(record.chromaFormat == 1 && record.bitDepthLuma == 8 && record.bitDepthChroma == 8)
        #expect(record.temporalLayers == 1 && record.temporalIDNested)
        let bytes = record.bytes
        #expect(Array(bytes.prefix(13)) == [1, 0x01, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 0x3C])
        #expect(bytes[13...21] == [0xF0, 0x00, 0xFC, 0xFD, 0xF8, 0xF8, 0, 0, 0x0F])
        #expect(bytes[22] == 3)  // arrays: VPS, SPS, PPS, in that order whatever order they came in
        #expect(bytes[23] == 32 && bytes[23 + 5 + Self.vps.count] == 33)
        #expect(bytes.count == 23 + 3 * 5 + Self.vps.count + Self.sps.count + Self.pps.count)
    }

    @Test func hevcRecordNeedsAnSPSThatFits() {
        #expect { try HEVCDecoderConfigurationRecord(nalUnits: [Self.vps, Self.pps]) } throws: {
            ($0 as? MediaError)?.code == .invalidData
        }
        #expect { try HEVCDecoderConfigurationRecord(nalUnits: [Array(Self.sps.prefix(9))]) } throws: {
            ($0 as? MediaError)?.code == .truncated
        }
    }

    @Test func vpcCRoundTripsAndRefusesWhatItIsNot() throws {
        let record = VPCodecConfigurationRecord(
            profile: 2, level: 31, bitDepth: 10, chromaSubsampling: .colocated420, fullRange: true,
            colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9)
        // What libavformat writes for 8-bit 4:2:0 with nothing else known: 01000000 00 0a 82 020202 0000
        // is the same layout (see TranscodeCodecTableTests' VP9 copy into MP4).
        #expect(record.bytes == [1, 0, 0, 0, 2, 31, 0xA3, 9, 16, 9, 0, 0])
        #expect(try VPCodecConfigurationRecord(parsing: record.bytes) == record)
        #expect { try VPCodecConfigurationRecord(parsing: [1, 0, 0]) } throws: {
            ($0 as? MediaError)?.code == .truncated
        }
        #expect { try VPCodecConfigurationRecord(parsing: [0] + Array(record.bytes.dropFirst())) } throws: {
            ($0 as? MediaError)?.code == .invalidData
        }
    }
}
