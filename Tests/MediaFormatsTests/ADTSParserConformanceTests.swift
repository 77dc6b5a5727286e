import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// The parser on well-formed streams: the HLS conformance segment and FFmpeg's output.
@Suite(.timeLimit(.minutes(2))) struct ADTSParserConformanceTests {
    static let fixtureName = "shaka-player_hls-raw-aac_fileSequence0.aac"

    @Test func findsAll215FramesOfTheHLSSegmentAfterItsID3Tag() throws {
        let stream = try fileBytes(TestPaths.fixture(Self.fixtureName))
        #expect(stream.count == 7131)
        let outcome = try parseADTS(stream)
        #expect(outcome.error == nil)
        #expect(outcome.diagnostics == [.id3TagSkipped(byteOffset: 0, length: 73)])
        #expect(outcome.bytesConsumed == 7131)
        try #require(outcome.packets.count == 215)

        let expectedFormat = AudioFormat.aac(
            sampleRate: 22_050, channelLayout: .stereo, audioSpecificConfig: [0x13, 0x90])
        let frames = frameRanges(stream, from: 73)
        #expect(frames.count == 215)
        for (index, (packet, frame)) in zip(outcome.packets, frames).enumerated() {
            #expect(packet.format == .audio(expectedFormat))
            #expect(packet.data == Array(stream[frame.lowerBound + 7..<frame.upperBound]))
            #expect(packet.frameCount == 1024)
            #expect(packet.flags == [.keyframe])
            #expect(packet.timing.presentationTime == MediaTime(value: Int64(index) * 1024, timescale: 22_050))
            #expect(packet.timing.decodeTime == packet.timing.presentationTime)
            #expect(packet.timing.duration == MediaTime(value: 1024, timescale: 22_050))
        }
        #expect(outcome.packets.first?.data.count == 6)
        #expect(outcome.packets.reduce(0) { $0 + $1.data.count } == 5553)
    }

    /// Whole, byte by byte and in 32 random splits: the same 215 packets, diagnostics and byte count.
    @Test func hlsSegmentGivesTheSamePacketsHoweverItIsSplit() throws {
        let stream = try fileBytes(TestPaths.fixture(Self.fixtureName))
        let outcome = try PushParserVerifier.verify(stream, seeds: Array(1...32)) {
            ADTSParser()
        } state: {
            ADTSParserState($0)
        }
        #expect(outcome.outputs.count == 215)
        #expect(outcome.error == nil)
        #expect(outcome.state.bytesConsumed == 7131)
    }

    @Test func readerGivesTheParsersPacketsFromFileAndBytes() throws {
        let path = TestPaths.fixture(Self.fixtureName)
        let stream = try fileBytes(path)
        let expected = try parseADTS(stream)

        let fileReader = try ADTSReader(path: path, readSize: 100)
        var fromFile: [MediaSample] = []
        while let packet = try fileReader.next() { fromFile.append(packet) }
        #expect(fromFile == expected.packets)
        #expect(fileReader.diagnostics == expected.diagnostics)
        #expect(fileReader.bytesConsumed == 7131)
        #expect(try fileReader.next() == nil)

        let byteReader = ADTSReader(bytes: stream)
        var fromBytes: [MediaSample] = []
        while let packet = try byteReader.next() { fromBytes.append(packet) }
        #expect(fromBytes == expected.packets)
    }

    /// The reader is a class: two references read one file position and one parse buffer, so reading
    /// through them in turn gives the packets one reference gives, none lost or repeated.
    @Test func referencesToOneReaderShareItsPositionAndBuffer() throws {
        let path = TestPaths.fixture(Self.fixtureName)
        let expected = try parseADTS(try fileBytes(path)).packets
        let reader = try ADTSReader(path: path, readSize: 100)
        let other = reader
        var packets: [MediaSample] = []
        while let packet = try (packets.count.isMultiple(of: 2) ? reader : other).next() { packets.append(packet) }
        #expect(packets == expected)
    }

    @Test func skipsID3TagsBetweenConcatenatedSegments() throws {
        let segment = try fileBytes(TestPaths.fixture(Self.fixtureName))
        let outcome = try parseADTS(segment + segment)
        #expect(outcome.error == nil)
        #expect(
            outcome.diagnostics == [
                .id3TagSkipped(byteOffset: 0, length: 73), .id3TagSkipped(byteOffset: 7131, length: 73)
            ])
        try #require(outcome.packets.count == 430)
        #expect(outcome.packets.allSatisfy { $0.flags == [.keyframe] })
        #expect(outcome.packets[215].timing.presentationTime == MediaTime(value: 215 * 1024, timescale: 22_050))
        #expect(outcome.packets[215].data == outcome.packets[0].data)
    }

    @Test func skipsTheID3TagFFmpegWrites() throws {
        let directory = try TemporaryDirectory()
        let stream = try ffmpegADTS(in: directory, extra: ["-write_id3v2", "1"])
        #expect(Array(stream.prefix(3)) == Array("ID3".utf8))
        let tagLength = stream.firstIndex(of: 0xFF) ?? 0
        #expect(tagLength > 10)
        let frames = frameRanges(stream, from: tagLength)
        #expect(frames.count == 48)
        #expect(frames.last?.upperBound == stream.count)

        let outcome = try parseADTS(stream)
        #expect(outcome.diagnostics == [.id3TagSkipped(byteOffset: 0, length: tagLength)])
        try #require(outcome.packets.count == 48)
        #expect(outcome.packets.map(\.data) == frames.map { Array(stream[$0.lowerBound + 7..<$0.upperBound]) })
    }

    @Test func framesWithCRCGivePayloadsWithoutTheCRC() throws {
        let directory = try TemporaryDirectory()
        let plain = try ffmpegADTS(in: directory)
        let frames = frameRanges(plain)
        // Rewrite every frame with protection_absent = 0 and a 2-byte crc_check before the payload.
        var protected: [UInt8] = []
        for frame in frames {
            var header = try ADTSHeader(parsing: plain[frame])
            header.protectionAbsent = false
            header.crcCheck = 0xC0DE
            header.frameLength = frame.count + 2
            protected += header.bytes + plain[frame.lowerBound + 7..<frame.upperBound]
        }
        #expect(protected.count == plain.count + 2 * frames.count)

        let expected = try parseADTS(plain)
        let outcome = try parseADTS(protected)
        #expect(outcome.error == nil)
        #expect(outcome.diagnostics.isEmpty)
        try #require(outcome.packets.count == 48)
        #expect(outcome.packets == expected.packets)
        #expect(!outcome.packets.contains { $0.data.starts(with: [0xC0, 0xDE]) })
    }

    @Test func frameWithTwoRawDataBlocksIsOnePacketOf2048Frames() throws {
        var header = ADTSHeader(objectType: 2, samplingFrequencyIndex: 3, channelConfiguration: 2, payloadLength: 4)
        let single = header.bytes + [1, 2, 3, 4]
        header.rawDataBlocks = 1
        let double = header.bytes + [5, 6, 7, 8]
        let outcome = try parseADTS(single + double + single)
        #expect(outcome.diagnostics.isEmpty)
        try #require(outcome.packets.count == 3)
        #expect(outcome.packets.map(\.frameCount) == [1024, 2048, 1024])
        #expect(outcome.packets.map(\.timing.presentationTime.value) == [0, 1024, 3072])
        #expect(outcome.packets[1].data == [5, 6, 7, 8])
    }

    @Test func formatChangeIsReportedAndTimeCarriesOverToTheNewRate() throws {
        let directory = try TemporaryDirectory()
        let first = try ffmpegADTS(in: directory, name: "a.aac", sampleRate: 48_000, channels: 2)
        let second = try ffmpegADTS(in: directory, name: "b.aac", sampleRate: 44_100, channels: 1)
        let secondFrames = frameRanges(second)
        #expect(secondFrames.count == 45)

        let outcome = try parseADTS(first + second)
        try #require(outcome.packets.count == 48 + 45)
        let stereo48 = AudioFormat.aac(sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90])
        let mono44 = AudioFormat.aac(sampleRate: 44_100, channelLayout: .mono, audioSpecificConfig: [0x12, 0x08])
        #expect(
            outcome.diagnostics == [
                .formatChanged(frameIndex: 48, byteOffset: Int64(first.count), from: stereo48, to: mono44)
            ])
        #expect(outcome.packets[47].format == .audio(stereo48))
        #expect(outcome.packets[48].format == .audio(mono44))
        // 48 × 1024 frames at 48 kHz are 45158.4 frames at 44.1 kHz.
        #expect(outcome.packets[48].timing.presentationTime.value == 45_158)
        #expect(outcome.packets[48].timing.presentationTime.timescale == 44_100)
        #expect(outcome.packets[49].timing.presentationTime.value == 45_158 + 1024)
        #expect(
            outcome.diagnostics.first?.description
                == "Frame 48 at byte offset \(first.count) changes the format from aac 48000 Hz stereo to aac 44100 Hz mono."
        )
    }
}
