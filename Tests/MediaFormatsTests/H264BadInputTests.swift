import MediaCore
import MediaFormats
import Testing

@Suite(.timeLimit(.minutes(2))) struct H264BadInputTests {
    @Test func lengthPrefixPastTheEndIsTruncatedWithItsOffset() {
        let sample: [UInt8] = [0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 9, 0x41, 0x9A]
        #expect(throws: MediaError.truncated("AVCC NAL unit of 9 bytes", needed: 9, available: 2, at: 6)) {
            try H264Bitstream.avccToAnnexB(sample)
        }
        #expect(throws: MediaError.truncated("AVCC NAL unit length prefix", needed: 4, available: 2, at: 6)) {
            try H264Bitstream.avccToAnnexB([0, 0, 0, 2, 0x09, 0xF0, 0, 0])
        }
        #expect(
            throws: MediaError.truncated(
                "AVCC NAL unit of 4294967295 bytes", needed: 4_294_967_295, available: 0, at: 0)
        ) {
            try H264Bitstream.avccToAnnexB([0xFF, 0xFF, 0xFF, 0xFF])
        }
    }

    /// A zero length is skipped (AVCCParser's rule, as FFmpeg's h264_mp4toannexb); a bad length size is refused.
    @Test func zeroLengthNALIsSkippedAndBadLengthSizeRefused() throws {
        #expect(try H264Bitstream.avccToAnnexB([0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 0]) == [0, 0, 0, 1, 0x09, 0xF0])
        #expect(throws: MediaError.truncated("AVCC NAL unit length prefix", needed: 4, available: 1, at: 10)) {
            try H264Bitstream.avccToAnnexB([0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 0, 0x41])
        }
        #expect(throws: MediaError(.invalidArgument, "AVCC length size must be 1, 2 or 4 bytes, not 3")) {
            try H264Bitstream.avccToAnnexB([0, 0, 1, 0x09], lengthSize: 3)
        }
        // A start code followed only by zeros is trailing_zero_8bits: no NAL unit.
        let avcc = try H264Bitstream.annexBToAVCC([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x09, 0xF0])
        #expect(avcc == [0, 0, 0, 2, 0x09, 0xF0])
    }

    @Test func spsTruncatedAtEveryByteThrowsTruncatedInsideTheNAL() throws {
        for name in H264Fixtures.allNames {
            let nal = try #require(try H264Fixtures.stream(name).firstNAL(.sps)).bytes
            #expect(throws: Never.self) { try H264SPS(parsing: nal) }
            for length in 0..<nal.count - 1 {
                do throws(MediaError) {
                    _ = try H264SPS(parsing: nal[0..<length], baseOffset: 1000)
                    Issue.record("\(name): SPS cut to \(length) bytes parsed")
                } catch {
                    #expect(error.code == .truncated, "\(name) cut at \(length): \(error)")
                    let offset = try #require(error.byteOffset)
                    #expect(offset >= 1000 && offset <= 1000 + Int64(length), "\(name) cut at \(length): \(error)")
                }
            }
        }
    }

    @Test func hugeExpGolombInsideAnSPSIsInvalidData() {
        // profile 66, flags, level 30, then 40 zero bits where seq_parameter_set_id starts.
        let nal: [UInt8] = [0x67, 66, 0xC0, 30, 0, 0, 0, 0, 0, 0x80]
        #expect(throws: MediaError.invalidData("seq_parameter_set_id has more than 31 leading zero bits", at: 4)) {
            try H264SPS(parsing: nal)
        }
    }

    @Test func spsOffsetsCountEmulationPreventionBytes() {
        // seq_parameter_set_id = 32 (ue 00000100001) after a 00 00 03 in the level and id bytes.
        // RBSP: 66, 0x00, 0x00, then 0b0000_0100, 0b001x... ; escaped: 66, 00, 00, 03, 04, 20
        let nal: [UInt8] = [0x67, 66, 0x00, 0x00, 0x03, 0x04, 0x20]
        #expect(throws: MediaError.invalidData("seq_parameter_set_id is 32, above its limit 31", at: 5)) {
            try H264SPS(parsing: nal)
        }
    }

    @Test func wrongNALTypeAndGarbageAreTypedErrors() throws {
        #expect(throws: MediaError.invalidData("NAL unit of type PPS (8) is not an SPS", at: 0)) {
            try H264SPS(parsing: [0x68, 0xCE, 0x38, 0x80])
        }
        // Seeded, so a failure replays. Each random SPS either parses to a picture with a size, or fails
        // with a typed error whose byte offset lies inside the input; both outcomes must occur, so that
        // neither branch goes untested.
        var generator = SplitMix64(seed: 0x5350_5321)
        var parsed = 0
        var refused = 0
        for _ in 0..<2000 {
            var bytes = (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            bytes[0] = 0x67
            do throws(MediaError) {
                let sps = try H264SPS(parsing: bytes)
                #expect(sps.width > 0 && sps.height > 0)
                parsed += 1
            } catch {
                #expect(error.code == .truncated || error.code == .invalidData, "\(bytes): \(error)")
                let offset = try #require(error.byteOffset, "\(bytes): \(error)")
                #expect((0...Int64(bytes.count)).contains(offset), "\(bytes): \(error)")
                refused += 1
            }
            _ = try? H264PPS(parsing: [0x68] + bytes.dropFirst())
            _ = try? AVCDecoderConfigurationRecord(parsing: [1] + bytes)
            _ = try? H264Bitstream.avccToAnnexB(bytes, lengthSize: 2)
            _ = try? AnnexBScanner.split(bytes)
        }
        #expect(parsed > 0)
        #expect(refused > 0)
    }

    @Test func avcCTruncatedAtEveryByteThrowsTruncated() throws {
        let avcC = try H264Fixtures.stream("high").avcC
        for length in 0..<avcC.count - 4 {
            do throws(MediaError) {
                _ = try AVCDecoderConfigurationRecord(parsing: Array(avcC[0..<length]))
                Issue.record("avcC cut to \(length) bytes parsed")
            } catch {
                #expect(error.code == .truncated, "cut at \(length): \(error)")
                #expect(error.byteOffset != nil)
            }
        }
        #expect(throws: MediaError.invalidData("avcC configurationVersion is 0, not 1", at: 0)) {
            try AVCDecoderConfigurationRecord(parsing: [0] + avcC.dropFirst())
        }
    }
}
