import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// The muxer's output, judged against FFmpeg's ADTS muxer and by ffprobe, ffmpeg and faad.
@Suite(.timeLimit(.minutes(2))) struct ADTSMuxerTests {
    /// Reads every packet of `bytes` with ``ADTSReader``.
    func readPackets(_ bytes: [UInt8]) throws -> [MediaSample] {
        let reader = ADTSReader(bytes: bytes)
        var packets: [MediaSample] = []
        while let packet = try reader.next() { packets.append(packet) }
        #expect(reader.diagnostics.isEmpty)
        return packets
    }

    /// Muxes `packets` into memory.
    func mux(_ packets: [MediaSample]) throws -> [UInt8] {
        let output = MemoryOutput()
        let muxer = ADTSMuxer(output: output)
        for packet in packets { try muxer.write(packet) }
        try muxer.finish()
        #expect(muxer.packetCount == Int64(packets.count))
        return output.bytes
    }

    @Test(arguments: [(48_000, 2), (44_100, 1), (22_050, 2), (48_000, 6), (8_000, 1)])
    func remuxingFFmpegsPacketsGivesFFmpegsBytes(sampleRate: Int, channels: Int) throws {
        let directory = try TemporaryDirectory()
        let original = try ffmpegADTS(in: directory, sampleRate: sampleRate, channels: channels)
        let packets = try readPackets(original)
        #expect(packets.count == frameRanges(original).count)
        #expect(try mux(packets) == original)

        // The same packets with the cookie FFmpeg's encoder itself gives (5 bytes, with the SBR sync
        // extension) as they leave an AAC encoder.
        let extradata = try ffmpegExtradata(in: directory, sampleRate: sampleRate, channels: channels)
        #expect(extradata.count == 5)
        let encoderPackets = packets.map { packet in
            var copy = packet
            copy.format = .audio(
                AudioFormat.aac(
                    sampleRate: sampleRate, channelLayout: .default(channelCount: channels),
                    audioSpecificConfig: extradata))
            return copy
        }
        #expect(try mux(encoderPackets) == original)
    }

    @Test func remuxedHLSSegmentIsTheSegmentWithoutItsID3Tag() throws {
        let segment = try fileBytes(TestPaths.fixture("shaka-player_hls-raw-aac_fileSequence0.aac"))
        let reader = ADTSReader(bytes: segment)
        var packets: [MediaSample] = []
        while let packet = try reader.next() { packets.append(packet) }
        #expect(packets.count == 215)
        #expect(try mux(packets) == Array(segment.dropFirst(73)))
    }

    @Test func toolsAcceptWhatTheMuxerWrites() throws {
        let directory = try TemporaryDirectory()
        let segment = try fileBytes(TestPaths.fixture("shaka-player_hls-raw-aac_fileSequence0.aac"))
        let reader = ADTSReader(bytes: segment)
        let path = directory.file("muxed.aac")
        let muxer = ADTSMuxer(output: try FileOutput(path: path))
        while let packet = try reader.next() { try muxer.write(packet) }
        try muxer.finish()

        let stream = try ExternalTool.probeFirstStream(path)
        #expect(stream["codec_name"] as? String == "aac")
        #expect(stream["profile"] as? String == "LC")
        #expect(stream["sample_rate"] as? String == "22050")
        #expect(stream["channels"] as? Int == 2)
        #expect(stream["nb_read_packets"] as? String == "215")

        let pcm = try ExternalTool.decode(path, format: "s16le")
        #expect(pcm.count == 215 * 1024 * 2 * 2)

        let faad = try ExternalTool.check("faad", ["-w", path])
        #expect(!faad.stderr.contains("Error"))
        #expect(faad.stderr.contains("ADTS, "))
        // faad assumes implicit SBR below 24 kHz and outputs 44100 Hz (2048 frames per packet); it drops
        // the first packet as decoder delay; the WAV header is 44 bytes.
        #expect(faad.stderr.contains("44100 Hz"))
        #expect(faad.stdout.count == 44 + 214 * 2048 * 2 * 2)
    }

    @Test func ffmpegDecodesTheMuxersOwnStreamWithoutError() throws {
        let directory = try TemporaryDirectory()
        let original = try ffmpegADTS(in: directory, sampleRate: 44_100, channels: 2)
        let packets = try readPackets(original)
        let path = directory.file("ours.aac")
        let muxer = ADTSMuxer(output: try FileOutput(path: path))
        for packet in packets { try muxer.write(packet) }
        try muxer.finish()

        let stream = try ExternalTool.probeFirstStream(path)
        #expect(stream["nb_read_packets"] as? String == "\(packets.count)")
        #expect(stream["profile"] as? String == "LC")
        #expect(stream["sample_rate"] as? String == "44100")
        let pcm = try ExternalTool.decode(path, format: "f32le")
        #expect(pcm.count == packets.count * 1024 * 2 * 4)
        let faad = try ExternalTool.check("faad", ["-w", path])
        #expect(!faad.stderr.contains("Error"))
    }

    @Test func rewritesOnlyTheLengthOfTheReusedHeader() throws {
        let config = try AudioSpecificConfig(objectType: 2, sampleRate: 44_100, channelConfiguration: 2)
        let sizes = [0, 1, 7, 255, 256, 2047, 2048, 4000, 8184, 3]
        let output = MemoryOutput()
        let muxer = ADTSMuxer(output: output)
        for (index, size) in sizes.enumerated() {
            try muxer.write(
                aacPacket([UInt8](repeating: UInt8(index), count: size), config: config, index: Int64(index)))
        }
        try #require(output.bytes.count == sizes.reduce(0, +) + 7 * sizes.count)
        var offset = 0
        for (index, size) in sizes.enumerated() {
            let expected = ADTSHeader(
                objectType: 2, samplingFrequencyIndex: 4, channelConfiguration: 2, payloadLength: size
            ).bytes
            #expect(Array(output.bytes[offset..<offset + 7]) == expected, "packet \(index) of \(size) bytes")
            #expect(output.bytes[offset + 7..<offset + 7 + size].allSatisfy { $0 == UInt8(index) })
            offset += 7 + size
        }
    }

    @Test func formatChangeMidStreamRederivesTheHeader() throws {
        let stereo = try AudioSpecificConfig(objectType: 2, sampleRate: 44_100, channelConfiguration: 2)
        let mono = try AudioSpecificConfig(parsing: [0x11, 0x88, 0x56, 0xE5, 0x00])  // 48 kHz mono, FFmpeg style
        let packets = [
            aacPacket([1, 2], config: stereo), aacPacket([3], config: mono), aacPacket([7], config: mono),
            aacPacket([4, 5, 6], config: stereo)
        ]
        let bytes = try mux(packets)
        #expect(
            bytes == [
                0xFF, 0xF1, 0x50, 0x80, 0x01, 0x3F, 0xFC, 1, 2,
                0xFF, 0xF1, 0x4C, 0x40, 0x01, 0x1F, 0xFC, 3,
                0xFF, 0xF1, 0x4C, 0x40, 0x01, 0x1F, 0xFC, 7,
                0xFF, 0xF1, 0x50, 0x80, 0x01, 0x5F, 0xFC, 4, 5, 6
            ])
        let reparsed = try parseADTS(bytes)
        #expect(reparsed.packets.map(\.data) == [[1, 2], [3], [7], [4, 5, 6]])
        #expect(reparsed.diagnostics.map(\.byteOffset) == [9, 25])
    }
}
