import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct ADTSHeaderTests {
    @Test func writesKnownBytesForEmptyAACLCFrame() {
        let header = ADTSHeader(objectType: 2, samplingFrequencyIndex: 4, channelConfiguration: 2, payloadLength: 0)
        #expect(header.bytes == [0xFF, 0xF1, 0x50, 0x80, 0x00, 0xFF, 0xFC])
        #expect(header.frameLength == 7)
        #expect(header.headerLength == 7)
        #expect(header.payloadLength == 0)
    }

    @Test func parsesKnownBytes() throws {
        let header = try ADTSHeader(parsing: [0xFF, 0xF1, 0x50, 0x80, 0x00, 0xFF, 0xFC])
        #expect(header.id == 0)
        #expect(header.layer == 0)
        #expect(header.protectionAbsent)
        #expect(header.profile == 1)
        #expect(header.objectType == 2)
        #expect(header.samplingFrequencyIndex == 4)
        #expect(header.sampleRate == 44_100)
        #expect(header.channelConfiguration == 2)
        #expect(!header.privateBit && !header.originalCopy && !header.home)
        #expect(!header.copyrightIdBit && !header.copyrightIdStart)
        #expect(header.frameLength == 7)
        #expect(header.bufferFullness == 0x7FF)
        #expect(header.rawDataBlocks == 0)
        #expect(header.frameCount == 1024)
        #expect(header.audioSpecificConfig?.bytes == [0x12, 0x10])
    }

    @Test func everyFieldRoundTripsIncludingCRC() throws {
        var header = ADTSHeader(objectType: 4, samplingFrequencyIndex: 12, channelConfiguration: 7, payloadLength: 8000)
        header.id = 1
        header.protectionAbsent = false
        header.privateBit = true
        header.originalCopy = true
        header.home = true
        header.copyrightIdBit = true
        header.copyrightIdStart = true
        header.frameLength = 8191
        header.bufferFullness = 0x123
        header.rawDataBlocks = 3
        header.crcCheck = 0xBEEF
        let bytes = header.bytes
        #expect(bytes.count == 9)
        #expect(Array(bytes.suffix(2)) == [0xBE, 0xEF])
        let parsed = try ADTSHeader(parsing: bytes)
        #expect(parsed == header)
        #expect(parsed.headerLength == 9)
        #expect(parsed.payloadLength == 8182)
        #expect(parsed.frameCount == 4096)
    }

    @Test func matchesEveryHeaderFFmpegWrites() throws {
        let directory = try TemporaryDirectory()
        let stream = try ffmpegADTS(in: directory, sampleRate: 48_000, channels: 2)
        let frames = frameRanges(stream)
        #expect(frames.count == 48)
        #expect(frames.last?.upperBound == stream.count)
        for frame in frames {
            let ours = ADTSHeader(
                objectType: 2, samplingFrequencyIndex: 3, channelConfiguration: 2, payloadLength: frame.count - 7)
            #expect(ours.bytes == Array(stream[frame.lowerBound..<frame.lowerBound + 7]))
            let parsed = try ADTSHeader(parsing: stream[frame], at: Int64(frame.lowerBound))
            #expect(parsed == ours)
        }
    }

    @Test func headerFromConfigChecksWhatADTSCanCarry() throws {
        let lc = try AudioSpecificConfig(parsing: [0x11, 0x90, 0x56, 0xE5, 0x00])
        let header = try ADTSHeader(audioSpecificConfig: lc, payloadLength: 8184)
        #expect(header.frameLength == 8191)
        #expect(header.samplingFrequencyIndex == 3)
        #expect(header.profile == 1)
        #expect(
            throws: MediaError(
                .invalidArgument, "ADTS frame of 8192 bytes exceeds the 8191-byte aac_frame_length limit")
        ) {
            try ADTSHeader(audioSpecificConfig: lc, payloadLength: 8185)
        }
    }

    @Test func shortInputThrowsTruncatedWithOffset() {
        #expect(throws: MediaError.truncated("ADTS header", needed: 7, available: 3, at: 100)) {
            try ADTSHeader(parsing: [0xFF, 0xF1, 0x50], at: 100)
        }
        // protection_absent = 0: the CRC makes the header 9 bytes.
        #expect(throws: MediaError.truncated("ADTS header with CRC", needed: 9, available: 7, at: 5)) {
            try ADTSHeader(parsing: [0xFF, 0xF0, 0x50, 0x80, 0x01, 0x3F, 0xFC], at: 5)
        }
    }

    @Test(arguments: [
        ([0xFF, 0xE1, 0x50, 0x80, 0x00, 0xFF, 0xFC] as [UInt8], "ADTS syncword 0xFFE is not 0xFFF"),
        ([0xFF, 0xF3, 0x50, 0x80, 0x00, 0xFF, 0xFC], "ADTS layer 1 is not 0"),
        ([0xFF, 0xF1, 0x74, 0x80, 0x00, 0xFF, 0xFC], "ADTS sampling_frequency_index 13 is reserved"),
        ([0xFF, 0xF1, 0x7C, 0x80, 0x00, 0xFF, 0xFC], "ADTS sampling_frequency_index 15 is not allowed"),
        ([0xFF, 0xF1, 0x50, 0x80, 0x00, 0x1F, 0xFC], "ADTS aac_frame_length 0 is shorter than the 7-byte header"),
        ([0xFF, 0xF1, 0x50, 0x80, 0x00, 0xDF, 0xFC], "ADTS aac_frame_length 6 is shorter than the 7-byte header"),
        (
            [0xFF, 0xF0, 0x50, 0x80, 0x01, 0x1F, 0xFC, 0, 0],
            "ADTS aac_frame_length 8 is shorter than the 9-byte header"
        )
    ])
    func invalidHeaderThrowsInvalidDataWithOffset(bytes: [UInt8], message: String) {
        #expect(throws: MediaError(.invalidData, message, byteOffset: 4242)) {
            try ADTSHeader(parsing: bytes, at: 4242)
        }
    }
}
