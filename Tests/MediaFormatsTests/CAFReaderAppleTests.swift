import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Helpers for the CAF tests.
enum CAFTest {
    static var ringPath: String { TestPaths.fixture("mattetti-audio_ring.caf") }
    static var beepPath: String { TestPaths.fixture("phonegap-barcodescanner_beep.caf") }

    /// Every sample of a reader.
    static func readAll(_ reader: CAFReader) throws -> [MediaSample] {
        var samples: [MediaSample] = []
        while let sample = try reader.next() { samples.append(sample) }
        return samples
    }

    /// The big-endian 64-bit size field of the chunk header at `offset`.
    static func chunkSize(_ file: [UInt8], at offset: Int) -> Int64 {
        Int64(bitPattern: file[offset + 4..<offset + 12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    static func be64(_ value: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (56 - 8 * $0)) }
    }
    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// A CAF chunk: type, size (the body's unless given), body.
    static func chunk(_ type: String, _ body: [UInt8], size: Int64? = nil) -> [UInt8] {
        Array(type.utf8) + be64(size ?? Int64(body.count)) + body
    }

    static let fileHeader: [UInt8] = Array("caff".utf8) + [0, 1, 0, 0]

    static func patched(_ file: [UInt8], at offset: Int, _ bytes: [UInt8]) -> [UInt8] {
        var copy = file
        copy.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        return copy
    }
}

/// CAFReader on the files Apple's own writers made (Tests/MediaFormatsTests/Fixtures/SOURCES.tsv).
@Suite(.timeLimit(.minutes(2))) struct CAFReaderAppleTests {
    @Test func ringReportsSOURCESFacts() throws {
        let reader = try CAFReader(path: CAFTest.ringPath)
        #expect(reader.format.codec == .aac)
        #expect(reader.format.sampleRate == 44_100)
        #expect(reader.format.channelCount == 2)
        #expect(reader.format.framesPerPacket == 1024)
        #expect(reader.description.formatID == CAFAudioDescription.mpeg4AAC)
        #expect(reader.description.formatFlags == 2)
        #expect(reader.description.bytesPerPacket == 0)
        #expect(reader.description.bitsPerChannel == 0)
        let table = try #require(reader.packetTable)
        #expect(table.numberPackets == 89)
        #expect(table.numberValidFrames == 88_064)
        #expect(table.primingFrames == 2112)
        #expect(table.remainderFrames == 960)
        #expect(reader.chunks.map(\.type) == ["desc", "kuki", "pakt", "uuid", "uuid", "info", "free", "data"])
        #expect(reader.chunks.map(\.size) == [32, 39, 200, 82, 36, 22, 3577, 65458])
        #expect(reader.chunks.first?.offset == 8)
        #expect(reader.info.count == 1)
        #expect(reader.info.first?.0 == "artist")
        #expect(reader.info.first?.1 == "Apple Inc.")
        #expect(reader.magicCookie.count == 39)
        #expect(reader.format.magicCookie == [0x12, 0x10])
        #expect(try CAFMagicCookie.audioSpecificConfig(unwrapping: reader.magicCookie) == [0x12, 0x10])
        #expect(table.packetSizes.count == 89)
        #expect(Int64(table.packetSizes.reduce(0, +)) == 65458 - 4)
    }

    @Test func ringPacketsAndTrims() throws {
        let reader = try CAFReader(path: CAFTest.ringPath)
        let packets = try CAFTest.readAll(reader)
        #expect(packets.count == 89)
        #expect(packets.map(\.data.count) == reader.packetTable?.packetSizes)
        #expect(packets.prefix(4).map(\.trimAtStart) == [1024, 1024, 64, 0])
        #expect(packets.last?.trimAtEnd == 960)
        #expect(packets.dropLast().allSatisfy { $0.trimAtEnd == 0 })
        #expect(packets.reduce(0) { $0 + $1.validFrameCount } == 88_064)
        #expect(packets[3].timing.presentationTime.value == 3 * 1024)
        // The packets are the data chunk's bytes in order.
        let file = try WAVTest.bytes(CAFTest.ringPath)
        let dataStart = Int(reader.dataOffset)
        #expect(packets.flatMap(\.data) == Array(file[dataStart..<dataStart + 65454]))
        #expect(try reader.next() == nil)
    }

    @Test func ffprobeCountsTheSamePackets() throws {
        // ffprobe reads the same file; its packet count agrees with pakt.
        let stream = try ExternalTool.probeFirstStream(CAFTest.ringPath)
        #expect(stream["nb_read_packets"] as? String == "89")
    }

    @Test func beepIsLittleEndianS16Mono() throws {
        let reader = try CAFReader(path: CAFTest.beepPath, framesPerSample: 1000)
        #expect(reader.format == .pcm(.s16, sampleRate: 44_100, channels: 1))
        #expect(reader.chunks.map(\.type) == ["desc", "info", "free", "data"])
        #expect(reader.chunks.map(\.size) == [32, 63, 3941, 11928])
        #expect(reader.packetTable == nil)
        let samples = try CAFTest.readAll(reader)
        #expect(samples.map(\.frameCount) == [1000, 1000, 1000, 1000, 1000, 962])
        #expect(samples.flatMap(\.data) == (try WAVTest.ffmpegRaw(CAFTest.beepPath, "s16le")))
        #expect(samples.flatMap(\.data).count == 5962 * 2)
        #expect(!reader.info.isEmpty)
    }

    @Test func beepFromMemoryEqualsFromFile() throws {
        let file = try WAVTest.bytes(CAFTest.beepPath)
        let fromMemory = try CAFTest.readAll(try CAFReader(bytes: file))
        let fromFile = try CAFTest.readAll(try CAFReader(path: CAFTest.beepPath))
        #expect(fromMemory == fromFile)
        #expect(fromMemory.count == 2)
    }
}

/// The chunk bodies on their own: desc, the ES_Descriptor cookie in both length forms, the exact
/// header our muxer writes.
@Suite(.timeLimit(.minutes(2))) struct CAFChunkTests {
    @Test func descRoundTripsThroughApplesBytes() throws {
        let file = try WAVTest.bytes(CAFTest.ringPath)
        let body = Array(file[20..<52])
        let desc = try CAFAudioDescription(parsing: body)
        #expect(desc.sampleRate == 44_100)
        #expect(desc.formatID == CAFFile.fourCC("aac "))
        #expect(desc.framesPerPacket == 1024)
        #expect(desc.channelsPerFrame == 2)
        #expect(desc.bytes == body)
        #expect(CAFFile.fourCCString(desc.formatID) == "aac ")
    }

    @Test func esDescriptorWithOneByteLengthsUnwraps() throws {
        // The form MP4 'esds' boxes use (FFmpeg's movenc): each length in one byte.
        let cookie: [UInt8] = [
            0x03, 0x19, 0x00, 0x01, 0x00,
            0x04, 0x11, 0x40, 0x15, 0x00, 0x00, 0x00, 0x00, 0x01, 0xF4, 0x00, 0x00, 0x01, 0xF4, 0x00,
            0x05, 0x02, 0x11, 0x90,
            0x06, 0x01, 0x02
        ]
        #expect(try CAFMagicCookie.audioSpecificConfig(unwrapping: cookie) == [0x11, 0x90])
    }

    @Test func esDescriptorRoundTripsAndMatchesApplesBytes() throws {
        let apple = try CAFReader(path: CAFTest.ringPath).magicCookie
        let ours = CAFMagicCookie.esDescriptor(
            audioSpecificConfig: [0x12, 0x10], bufferSize: 6144, maxBitrate: 256_000, averageBitrate: 256_000)
        #expect(ours == apple)
        #expect(try CAFMagicCookie.audioSpecificConfig(unwrapping: ours) == [0x12, 0x10])
    }

    @Test func esDescriptorLengthPastItsParentIsRefused() throws {
        var cookie = CAFMagicCookie.esDescriptor(audioSpecificConfig: [0x12, 0x10])
        cookie[30] = 0x7F  // DecSpecificInfo length 2 → 127
        let error = try #require(throws: MediaError.self) {
            try CAFMagicCookie.audioSpecificConfig(unwrapping: cookie, at: 64)
        }
        #expect(error.code == .truncated)
        #expect(error.byteOffset == 90)  // the DecSpecificInfo tag, 26 bytes into a cookie at 64
        let bare = try CAFMagicCookie.audioSpecificConfig(unwrapping: [0x12, 0x10])
        #expect(bare == [0x12, 0x10])
    }

    @Test func ffmpegsFiveByteExtradataBecomesApplesTwoBytes() throws {
        let output = MemoryOutput()
        let muxer = CAFMuxer(output: output)
        let format = AudioFormat.aac(
            sampleRate: 48_000, channelLayout: .stereo, audioSpecificConfig: [0x11, 0x90, 0x56, 0xE5, 0x00])
        try muxer.write(MediaSample(format: .audio(format), data: [0x21, 0x10], timing: .invalid, frameCount: 1024))
        try muxer.finish()
        let reader = try CAFReader(bytes: output.bytes)
        #expect(reader.magicCookie.count == 39)
        #expect(reader.format.magicCookie == [0x11, 0x90])
        #expect(reader.packetTable?.packetSizes == [2])
    }

    @Test func pcmHeaderIsExactly() throws {
        let output = MemoryOutput()
        let muxer = CAFMuxer(output: output)
        let format = AudioFormat.pcm(.s16, sampleRate: 48_000, channels: 2)
        try muxer.write(
            MediaSample(format: .audio(format), data: [1, 2, 3, 4, 5, 6, 7, 8], timing: .invalid, frameCount: 2))
        try muxer.finish()
        let expected: [UInt8] =
            Array("caff".utf8) + [0, 1, 0, 0]
            + Array("desc".utf8) + CAFTest.be64(32)
            + [0x40, 0xE7, 0x70, 0, 0, 0, 0, 0]  // mSampleRate 48000.0
            + Array("lpcm".utf8)  // mFormatID
            + CAFTest.be32(2)  // mFormatFlags: little-endian integer
            + CAFTest.be32(4) + CAFTest.be32(1) + CAFTest.be32(2) + CAFTest.be32(16)
            + Array("data".utf8) + CAFTest.be64(4 + 8) + CAFTest.be32(0)
            + [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(output.bytes == expected)
    }
}

/// Seeking by packet and by frame gives the samples a front-to-back read gives.
@Suite(.timeLimit(.minutes(2))) struct CAFSeekTests {
    @Test func seekingTheAppleAACFile() throws {
        let all = try CAFTest.readAll(try CAFReader(path: CAFTest.ringPath))
        let reader = try CAFReader(path: CAFTest.ringPath)
        #expect(reader.packetCount == 89)
        #expect(reader.totalFrames == 89 * 1024)
        try reader.seek(toPacket: 88)
        #expect(try reader.next() == all[88])
        #expect(try reader.next() == nil)
        try reader.seek(toPacket: 2)  // backwards: the file is reopened
        #expect(try reader.next() == all[2])
        #expect(try reader.next() == all[3])
        #expect(try reader.seek(toFrame: 5000) == 4096)
        #expect(try reader.next() == all[4])
        let error = try #require(throws: MediaError.self) { try reader.seek(toPacket: 90) }
        #expect(error.code == .invalidArgument)
    }

    @Test func seekingPCMFromMemory() throws {
        let file = try WAVTest.bytes(CAFTest.beepPath)
        let all = try CAFTest.readAll(try CAFReader(bytes: file, framesPerSample: 1)).map(\.data)
        let reader = try CAFReader(bytes: file, framesPerSample: 3)
        #expect(try reader.seek(toFrame: 5960) == 5960)
        let tail = try CAFTest.readAll(reader)
        #expect(tail.map(\.frameCount) == [2])
        #expect(tail.first?.data == all[5960] + all[5961])
        #expect(tail.first?.timing.presentationTime.value == 5960)
        try reader.seek(toPacket: 0)
        #expect(try reader.next()?.data == all[0] + all[1] + all[2])
    }
}
