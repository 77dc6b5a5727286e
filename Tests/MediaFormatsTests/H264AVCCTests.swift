import MediaCore
import MediaFormats
import Testing

@Suite(.timeLimit(.minutes(2))) struct H264AVCCTests {
    @Test func knownConversions() throws {
        let avcc: [UInt8] = [0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 3, 0x41, 0x9A, 0x00]
        let annexB: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x41, 0x9A, 0x00]
        #expect(try H264Bitstream.avccToAnnexB(avcc) == annexB)
        #expect(
            try H264Bitstream.avccToAnnexB([2, 0x09, 0xF0, 1, 0x0A], lengthSize: 1) == [
                0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x0A
            ])
        #expect(try H264Bitstream.avccToAnnexB([0, 1, 0x0A], lengthSize: 2) == [0, 0, 0, 1, 0x0A])
        #expect(try H264Bitstream.avccToAnnexB([]) == [])
        // The trailing zero of the slice is trailing_zero_8bits in Annex B, so it does not come back.
        #expect(try H264Bitstream.annexBToAVCC(annexB) == [0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 2, 0x41, 0x9A])
    }

    @Test(arguments: H264Fixtures.allNames)
    func everyAccessUnitRoundTrips(_ name: String) throws {
        let stream = try H264Fixtures.stream(name)
        let units = try stream.accessUnits()
        #expect(String(units.count) == stream.probe["nb_read_packets"])
        var failures = 0
        for unit in units {
            let annexB = unit.flatMap { H264Bitstream.startCode + $0.bytes }
            let avcc = try H264Bitstream.annexBToAVCC(annexB)
            #expect(avcc.count == annexB.count)
            if try H264Bitstream.avccToAnnexB(avcc) != annexB { failures += 1 }
            if try H264Bitstream.avccNALUnits(avcc).map(Array.init) != unit.map(\.bytes) { failures += 1 }
        }
        #expect(failures == 0)
    }

    @Test(arguments: H264Fixtures.allNames)
    func avcCEqualsWhatFFmpegWritesIntoMP4(_ name: String) throws {
        let stream = try H264Fixtures.stream(name)
        let nals = try AnnexBScanner.split(stream.bytes)
        // The distinct parameter sets, in the order they first appear.
        var sps: [[UInt8]] = []
        var pps: [[UInt8]] = []
        for nal in nals {
            if nal.header.nalUnitType == .sps && !sps.contains(nal.bytes) { sps.append(nal.bytes) }
            if nal.header.nalUnitType == .pps && !pps.contains(nal.bytes) { pps.append(nal.bytes) }
        }
        let record = try AVCDecoderConfigurationRecord(sequenceParameterSets: sps, pictureParameterSets: pps)
        var parsed = try AVCDecoderConfigurationRecord(parsing: stream.avcC)
        #expect(parsed.bytes == stream.avcC)
        #expect(parsed.lengthSizeMinusOne == 3)
        if name == "openh264" {
            // The file holds `68 CE 3C 80 | 00 00 00 01 65 ...`: FFmpeg's extradata split cuts the PPS at
            // the `00 00 01` and keeps the 4-byte start code's zero_byte, giving `68 CE 3C 80 00` in its
            // avcC. A NAL unit never ends in 0x00 (ITU-T H.264 B.2), so we keep `68 CE 3C 80`.
            // Everything else must match byte for byte.
            #expect(parsed.pictureParameterSets == pps.map { $0 + [0] })
            parsed.pictureParameterSets = pps
            #expect(parsed.bytes == record.bytes)
        } else {
            #expect(record.bytes == stream.avcC)
        }
        #expect(parsed == record)
        #expect(parsed.sequenceParameterSets == sps)
    }

    @Test func highProfileExtensionFollowsTheProfile() throws {
        let high = try AnnexBScanner.split(try H264Fixtures.stream("high").bytes)
        let sps = try #require(high.first { $0.header.nalUnitType == .sps }).bytes
        let pps = try #require(high.first { $0.header.nalUnitType == .pps }).bytes
        let record = try AVCDecoderConfigurationRecord(sequenceParameterSets: [sps], pictureParameterSets: [pps])
        #expect(record.highProfileExtension == .init(chromaFormat: 1, bitDepthLumaMinus8: 0, bitDepthChromaMinus8: 0))
        #expect(record.bytes.suffix(4) == [0xFD, 0xF8, 0xF8, 0x00])
        #expect(record.bytes.count == 6 + 2 + sps.count + 1 + 2 + pps.count + 4)
        #expect(record.bytes.prefix(6) == [1, 100, sps[2], sps[3], 0xFF, 0xE1])
    }
}
