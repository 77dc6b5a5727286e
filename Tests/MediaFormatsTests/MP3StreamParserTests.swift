import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// ``AudioFileStreamParser`` on MP3 and MP2 files made by `lame` and ffmpeg, judged against ffprobe
/// (sample rate, channels, packet count), ffmpeg's gapless decode (valid frames) and an independent walk
/// of the frame headers (every packet's offset and bytes). Every file also goes through the drip-feed
/// verifier (whole, byte by byte, random splits).
@Suite(.timeLimit(.minutes(2))) struct MP3StreamParserTests {
    /// One encoding: the tool's arguments, the input's rate and channels, what the stream must be.
    struct Encoding: CustomTestStringConvertible, Sendable {
        let name: String
        let tool: String
        let arguments: [String]
        let rate: Int
        let channels: Int
        let framesPerPacket: UInt32
        let formatID: UInt32
        /// Whether the file has a Xing/Info frame with a LAME tag.
        let hasLAMETag: Bool
        var testDescription: String { name }
    }

    static let encodings: [Encoding] = [
        Encoding(
            name: "lame CBR 128k", tool: "lame", arguments: ["-b", "128"], rate: 44_100, channels: 2,
            framesPerPacket: 1152, formatID: AudioStreamBasicDescription.mpegLayer3, hasLAMETag: true),
        Encoding(
            name: "lame VBR -V2", tool: "lame", arguments: ["-V2"], rate: 44_100, channels: 2, framesPerPacket: 1152,
            formatID: AudioStreamBasicDescription.mpegLayer3, hasLAMETag: true),
        Encoding(
            name: "lame VBR -V5 --nohist mono", tool: "lame", arguments: ["-V5", "--nohist", "-m", "m"], rate: 44_100,
            channels: 1, framesPerPacket: 1152, formatID: AudioStreamBasicDescription.mpegLayer3, hasLAMETag: true),
        Encoding(
            name: "lame 32 kHz MPEG-1", tool: "lame", arguments: ["-b", "96"], rate: 32_000, channels: 2,
            framesPerPacket: 1152, formatID: AudioStreamBasicDescription.mpegLayer3, hasLAMETag: true),
        Encoding(
            name: "lame 22.05 kHz MPEG-2", tool: "lame", arguments: ["-V4"], rate: 22_050, channels: 2,
            framesPerPacket: 576, formatID: AudioStreamBasicDescription.mpegLayer3, hasLAMETag: true),
        // 144-byte frames: too small for LAME's tag, which it then leaves out.
        Encoding(
            name: "lame 8 kHz MPEG-2.5 mono", tool: "lame", arguments: ["-b", "16", "-m", "m"], rate: 8_000,
            channels: 1, framesPerPacket: 576, formatID: AudioStreamBasicDescription.mpegLayer3, hasLAMETag: false),
        Encoding(
            name: "lame 8 kHz MPEG-2.5 stereo VBR", tool: "lame", arguments: ["-V6"], rate: 8_000, channels: 2,
            framesPerPacket: 576, formatID: AudioStreamBasicDescription.mpegLayer3, hasLAMETag: true),
        Encoding(
            name: "ffmpeg libmp3lame VBR", tool: "ffmpeg", arguments: ["-c:a", "libmp3lame", "-q:a", "2"], rate: 44_100,
            channels: 2, framesPerPacket: 1152, formatID: AudioStreamBasicDescription.mpegLayer3, hasLAMETag: true),
        Encoding(
            name: "ffmpeg libmp3lame -write_xing 0", tool: "ffmpeg",
            arguments: ["-c:a", "libmp3lame", "-q:a", "4", "-write_xing", "0"], rate: 48_000, channels: 2,
            framesPerPacket: 1152, formatID: AudioStreamBasicDescription.mpegLayer3, hasLAMETag: false),
        Encoding(
            name: "ffmpeg mp2 Layer II", tool: "ffmpeg", arguments: ["-c:a", "mp2", "-b:a", "192k", "-f", "mp2"],
            rate: 44_100, channels: 2, framesPerPacket: 1152, formatID: AudioStreamBasicDescription.mpegLayer2,
            hasLAMETag: false),
        Encoding(
            name: "ffmpeg mp2 Layer II MPEG-2 mono", tool: "ffmpeg",
            arguments: ["-c:a", "mp2", "-b:a", "64k", "-f", "mp2"], rate: 24_000, channels: 1, framesPerPacket: 1152,
            formatID: AudioStreamBasicDescription.mpegLayer2, hasLAMETag: false)
    ]

    /// Makes the file of `encoding` (about 1.5 s: under 40 KB, so the byte-by-byte split stays fast).
    static func make(_ encoding: Encoding, in dir: TemporaryDirectory) throws -> (path: String, bytes: [UInt8]) {
        if encoding.tool == "lame" {
            return try MP3Test.lame(
                dir, encoding.arguments, rate: encoding.rate, channels: encoding.channels, seconds: 1.5)
        }
        return try MP3Test.ffmpeg(
            dir, encoding.arguments, rate: encoding.rate, channels: encoding.channels, seconds: 1.5, name: "out.mp3")
    }

    @Test(arguments: encodings)
    func propertiesAndPacketsMatchFFprobeAndTheFrameHeaders(encoding: Encoding) throws {
        let dir = try TemporaryDirectory()
        let (path, bytes) = try Self.make(encoding, in: dir)
        let parse = try MP3Test.parse(bytes)
        #expect(parse.error == nil)
        let probe = try MP3Test.probe(path)

        // The format, as ffprobe sees it.
        let format = try #require(parse.format)
        #expect(format.sampleRate == Double(probe.sampleRate))
        #expect(Int(format.channelsPerFrame) == probe.channels)
        #expect(format.formatID == encoding.formatID)
        #expect(format.framesPerPacket == encoding.framesPerPacket)
        #expect(format.bytesPerPacket == 0 && format.bytesPerFrame == 0)
        #expect(parse.layout == (encoding.channels == 1 ? .mono : .stereo))
        #expect(probe.codec == (encoding.formatID == AudioStreamBasicDescription.mpegLayer2 ? "mp2" : "mp3"))

        // The packets: as many as ffprobe reads, and exactly the frames the headers chain to, minus the
        // Xing/Info frame.
        let id3 = MP3Test.id3v2Length(bytes)
        var frames = MP3Test.frames(bytes, from: id3)
        #expect(frames.last.map { $0.offset + $0.length } == bytes.count, "the independent walk covers the file")
        if encoding.hasLAMETag { frames.removeFirst() }
        let packets = parse.packets
        #expect(packets.count == probe.packets)
        #expect(packets.map(\.offset) == frames.map { Int64($0.offset) })
        #expect(packets.map(\.bytes) == frames.map { Array(bytes[$0.offset..<($0.offset + $0.length)]) })
        #expect(parse.dataOffset == frames.first.map { Int64($0.offset) })
        #expect(parse.tags.map(\.kind) == (id3 > 0 ? ["ID3v2"] : []))
        #expect(parse.diagnostics.count == parse.tags.count, "a clean file: \(parse.diagnostics)")

        // Batches: contiguous packet indices, no discontinuity, within the default limits.
        var next: Int64 = 0
        for batch in parse.batches {
            #expect(batch.firstPacket == next && !batch.isDiscontinuity)
            #expect(batch.frameCount == Int64(batch.packetCount) * Int64(encoding.framesPerPacket))
            #expect(batch.bytes.count <= 65_536 && batch.descriptions.count == batch.packetCount)
            next += Int64(batch.packetCount)
        }
        let largest = frames.map(\.length).max() ?? 0
        #expect((parse.maximumPacketSize ?? 0) >= largest)

        // The tag's counts and the gapless trim, against ffmpeg's decode.
        if encoding.hasLAMETag {
            #expect(parse.packetCount == Int64(packets.count))
            #expect(parse.byteCount == Int64(packets.reduce(0) { $0 + $1.bytes.count }))
            let table = try #require(parse.packetTable)
            let decoded = try MP3Test.decodedFrames(path, channels: encoding.channels)
            #expect(table.validFrames == Int64(decoded), "valid frames = ffmpeg's gapless decode length")
            #expect(table.primingFrames == 576 + 529)
            #expect(
                table.primingFrames + table.validFrames + table.remainderFrames == Int64(packets.count)
                    * Int64(encoding.framesPerPacket))
        } else {
            #expect(parse.packetCount == nil && parse.byteCount == nil && parse.packetTable == nil)
        }
    }

    @Test func eventsComeInAudioFileStreamOrder() throws {
        let dir = try TemporaryDirectory()
        let (_, bytes) = try MP3Test.lame(dir, ["-V2", "--add-id3v2", "--tt", "Order"], seconds: 1)
        let parse = try MP3Test.parse(bytes, byteByByte: false)
        let names = parse.events.prefix(12).map { event -> String in
            switch event {
            case .fileType: return "fileType"
            case .dataFormat: return "dataFormat"
            case .channelLayout: return "channelLayout"
            case .dataOffset: return "dataOffset"
            case .audioDataByteCount: return "byteCount"
            case .audioDataPacketCount: return "packetCount"
            case .packetTableInfo: return "packetTable"
            case .maximumPacketSize: return "maxPacket"
            case .bitRate: return "bitRate"
            case .readyToProducePackets: return "ready"
            case .packets: return "packets"
            case .diagnostic: return "diagnostic"
            case .magicCookie: return "cookie"
            }
        }
        #expect(
            names == [
                "fileType", "diagnostic", "dataFormat", "channelLayout", "dataOffset", "byteCount", "packetCount",
                "packetTable",
                "maxPacket", "bitRate", "ready", "packets"
            ])
        #expect(parse.events.first == .fileType(.mp3))
    }

    @Test func bitRateIsTheFramesForCBRAndBytesOverDurationForVBR() throws {
        let dir = try TemporaryDirectory()
        let cbr = try MP3Test.parseOnce(MP3Test.lame(dir, ["-b", "160"], seconds: 1, name: "cbr.mp3").bytes)
        #expect(cbr.bitRate == 160_000)
        #expect(cbr.maximumPacketSize == 1045, "the longest MPEG-1 Layer III frame at 44.1 kHz: 320 kbit/s, padded")
        let vbr = try MP3Test.parseOnce(MP3Test.lame(dir, ["-V0"], seconds: 1, name: "vbr.mp3").bytes)
        let bytes = try #require(vbr.byteCount), packets = try #require(vbr.packetCount)
        #expect(vbr.bitRate == Int(bytes * 8 * 44_100 / (packets * 1152)))
        let noTag = try MP3Test.parseOnce(MP3Test.lame(dir, ["-V0", "-t"], seconds: 1, name: "notag.mp3").bytes)
        let first = try #require(noTag.packets.first?.bytes)
        #expect(
            noTag.bitRate == [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][Int(first[2] >> 4)]
                * 1000)
        #expect(noTag.packetCount == nil, "a stream without a tag cannot know its packet count")
    }

    @Test func smallBatchesSplitTheSamePackets() throws {
        let dir = try TemporaryDirectory()
        let (_, bytes) = try MP3Test.lame(dir, ["-V2"], seconds: 1)
        let whole = MP3Test.parseOnce(bytes)
        let outcome = try PushParserVerifier.verify(bytes, byteByByte: false) {
            AudioFileStreamParser(batching: .init(maxBytes: 2000, maxPackets: 3))
        }
        let small = MP3Parse(events: outcome.outputs, error: outcome.error)
        #expect(small.batches.count > whole.batches.count)
        #expect(small.batches.allSatisfy { $0.packetCount <= 3 && ($0.bytes.count <= 2000 || $0.packetCount == 1) })
        #expect(small.packets.map(\.bytes) == whole.packets.map(\.bytes))
    }
}
