import MediaCore
import MediaBitstream
import Testing

@Suite(.timeLimit(.minutes(2))) struct H264NALHeaderTests {
    @Test func parsesAndWritesEveryHeaderByteWithoutForbiddenBit() throws {
        for byte in UInt8(0)...0x7F {
            let header = try H264NALHeader(parsing: [byte, 0xAA])
            #expect(header.byte == byte)
            #expect(header.nalRefIdc == byte >> 5)
            #expect(header.nalUnitType.rawValue == byte & 0x1F)
            #expect(!header.forbiddenZeroBit)
        }
    }

    @Test func knownHeaders() {
        #expect(H264NALHeader(byte: 0x67).nalUnitType == .sps)
        #expect(H264NALHeader(byte: 0x68).nalUnitType == .pps)
        #expect(H264NALHeader(byte: 0x65).nalUnitType == .idr)
        #expect(H264NALHeader(byte: 0x41).nalUnitType == .slice)
        #expect(H264NALHeader(byte: 0x06).nalUnitType == .sei)
        #expect(H264NALHeader(byte: 0x09).nalUnitType == .accessUnitDelimiter)
        #expect(H264NALHeader(nalRefIdc: 3, nalUnitType: .sps).byte == 0x67)
        #expect(H264NALHeader(nalRefIdc: 0, nalUnitType: .fillerData).byte == 0x0C)
        #expect(H264NALUnitType.endOfSequence.rawValue == 10)
        #expect(H264NALUnitType.idr.isVCL && H264NALUnitType.slice.isVCL)
        #expect(!H264NALUnitType.sps.isVCL && !H264NALUnitType.sei.isVCL && !H264NALUnitType.accessUnitDelimiter.isVCL)
        #expect(H264NALUnitType.sps.description == "SPS (7)")
    }

    @Test func forbiddenBitAndEmptyInputThrow() {
        #expect(throws: MediaError.invalidData("NAL unit header 0xe7 has forbidden_zero_bit set", at: 12)) {
            try H264NALHeader(parsing: [0xE7], baseOffset: 12)
        }
        #expect(throws: MediaError.truncated("NAL unit header", needed: 1, available: 0, at: 5)) {
            try H264NALHeader(parsing: [UInt8](), baseOffset: 5)
        }
        #expect(H264NALHeader(byte: 0xE7).forbiddenZeroBit)
        #expect(H264NALHeader(byte: 0xE7).byte == 0xE7)
    }
}

@Suite(.timeLimit(.minutes(2))) struct H264RBSPTests {
    @Test func knownEscapes() {
        #expect(H264RBSP.insertEmulationPrevention([0x00, 0x00, 0x00]) == [0x00, 0x00, 0x03, 0x00, 0x03])
        #expect(H264RBSP.insertEmulationPrevention([0x00, 0x00, 0x01]) == [0x00, 0x00, 0x03, 0x01])
        #expect(H264RBSP.insertEmulationPrevention([0x00, 0x00, 0x02]) == [0x00, 0x00, 0x03, 0x02])
        #expect(H264RBSP.insertEmulationPrevention([0x00, 0x00, 0x03]) == [0x00, 0x00, 0x03, 0x03])
        #expect(H264RBSP.insertEmulationPrevention([0x00, 0x00, 0x04]) == [0x00, 0x00, 0x04])
        #expect(H264RBSP.insertEmulationPrevention([0x00, 0x00, 0x00, 0x00]) == [0x00, 0x00, 0x03, 0x00, 0x00, 0x03])
        #expect(H264RBSP.insertEmulationPrevention([0x65, 0x00, 0x00]) == [0x65, 0x00, 0x00, 0x03])
        #expect(H264RBSP.insertEmulationPrevention([0x65, 0x80]) == [0x65, 0x80])
        #expect(H264RBSP.insertEmulationPrevention([UInt8]()) == [])
        #expect(H264RBSP.removeEmulationPrevention([0x00, 0x00, 0x03, 0x01]) == [0x00, 0x00, 0x01])
        #expect(H264RBSP.removeEmulationPrevention([0x00, 0x00, 0x03, 0x00, 0x00, 0x03]) == [0x00, 0x00, 0x00, 0x00])
        #expect(H264RBSP.removeEmulationPrevention([0x00, 0x03, 0x01]) == [0x00, 0x03, 0x01])
        #expect(H264RBSP.removeEmulationPrevention([0x00, 0x00, 0x03, 0x03]) == [0x00, 0x00, 0x03])
    }

    @Test func escapedOutputNeverHoldsAStartCodePrefix() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let payload = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                UInt8.random(in: 0...3, using: &generator)
            }
            let escaped = H264RBSP.insertEmulationPrevention(payload)
            for i in 0..<max(0, escaped.count - 2) {
                #expect(!(escaped[i] == 0 && escaped[i + 1] == 0 && escaped[i + 2] <= 2))
            }
            #expect(escaped.last != 0)
        }
    }

    @Test func roundTripsEveryShortPayloadOverZeroToThree() {
        // Every payload of up to 7 bytes drawn from 0...3 and 0xFF (5^7 = 78125 payloads).
        let alphabet: [UInt8] = [0, 1, 2, 3, 0xFF]
        var failures = 0
        var checked = 0
        for length in 0...7 {
            var count = 1
            for _ in 0..<length { count *= alphabet.count }
            for index in 0..<count {
                var n = index
                var payload: [UInt8] = []
                for _ in 0..<length {
                    payload.append(alphabet[n % alphabet.count])
                    n /= alphabet.count
                }
                let escaped = H264RBSP.insertEmulationPrevention(payload)
                // The documented exception: the escaped payload ends with a lone zero, so the appended
                // 0x03 follows one zero only.
                let size = escaped.count
                if payload.last == 0 && escaped.last == 3 && size >= 2 && escaped[size - 2] == 0
                    && (size == 2 || escaped[size - 3] != 0)
                {
                    continue
                }
                checked += 1
                if H264RBSP.removeEmulationPrevention(escaped) != payload { failures += 1 }
            }
        }
        #expect(failures == 0)
        #expect(checked > 60_000)
    }

    @Test func loneTrailingZeroKeepsTheAppendedThree() {
        let escaped = H264RBSP.insertEmulationPrevention([0x65, 0x00])
        #expect(escaped == [0x65, 0x00, 0x03])
        #expect(H264RBSP.removeEmulationPrevention(escaped) == [0x65, 0x00, 0x03])
    }
}

@Suite(.timeLimit(.minutes(2))) struct H264ExpGolombTests {
    @Test func readsKnownCodes() throws {
        // 1 | 010 | 011 | 00100 | 00101 | 0001000 -> ue 0, 1, 2, 3, 4, 7
        var w = BitWriter()
        for bits in ["1", "010", "011", "00100", "00101", "0001000"] {
            for c in bits { w.write(c == "1" ? 1 : 0, bits: 1) }
        }
        var r = BitReader(w.bytes)
        #expect(try [r.readUE(), r.readUE(), r.readUE(), r.readUE(), r.readUE(), r.readUE()] == [0, 1, 2, 3, 4, 7])
        var s = BitReader(w.bytes)
        #expect(try [s.readSE(), s.readSE(), s.readSE(), s.readSE(), s.readSE(), s.readSE()] == [0, 1, -1, 2, -2, 4])
    }

    @Test func writerAndReaderAgreeIncludingExtremes() throws {
        let unsigned: [UInt32] = [0, 1, 2, 254, 255, 256, 65_535, 1 << 31, UInt32.max - 1]
        let signed: [Int32] = [0, 1, -1, 127, -128, Int32.max, Int32.min + 1]
        var w = BitWriter()
        for value in unsigned { w.writeUE(value) }
        for value in signed { w.writeSE(value) }
        var r = BitReader(w.bytes)
        for value in unsigned { #expect(try r.readUE() == value) }
        for value in signed { #expect(try r.readSE() == value) }
        var tooLong = BitWriter()
        tooLong.writeUE(UInt32.max)
        #expect(tooLong.bitsWritten == 65)
        var t = BitReader(tooLong.bytes)
        #expect(throws: MediaError.invalidData("ue(v) has more than 31 leading zero bits", at: 0)) { try t.readUE() }
    }

    @Test func fortyLeadingZerosAreInvalidNotALoop() {
        var w = BitWriter()
        w.write(0, bits: 8)
        w.write(0, bits: 32)
        w.write(1, bits: 1)
        w.write(0, bits: 31)
        var r = BitReader(w.bytes, baseOffset: 100)
        #expect(throws: MediaError.invalidData("ue(v) has more than 31 leading zero bits", at: 100)) { try r.readUE() }
    }

    @Test func runningOutOfBitsIsTruncated() {
        var r = BitReader([0x00, 0x01], baseOffset: 7)  // 15 zeros then a one: needs 15 more bits
        #expect(throws: MediaError.self) { try r.readUE() }
        var s = BitReader([0x00, 0x01], baseOffset: 7)
        do throws(MediaError) {
            _ = try s.readUE("max_dec_frame_buffering")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.byteOffset == 9)
        }
    }
}
