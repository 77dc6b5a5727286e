import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// CAFReader on damaged input: every error is a typed MediaError naming the chunk and its byte offset,
/// and no input crashes or hangs the reader.
@Suite(.timeLimit(.minutes(2))) struct CAFReaderErrorTests {
    /// Apple's AAC file; chunk headers at 8 (desc), 52 (kuki), 103 (pakt), 315 and 409 (uuid),
    /// 457 (info), 491 (free), 4080 (data, body from 4092 to 69550).
    static func ring() throws -> [UInt8] { try WAVTest.bytes(CAFTest.ringPath) }
    static let ringChunks: [(String, Int)] = [
        ("desc", 8), ("kuki", 52), ("pakt", 103), ("uuid", 315), ("uuid", 409), ("info", 457), ("free", 491),
        ("data", 4080)
    ]

    static func readError(_ file: [UInt8]) throws -> MediaError {
        try #require(throws: MediaError.self) { _ = try CAFTest.readAll(try CAFReader(bytes: file)) }
    }

    @Test func ringChunkOffsetsAreAsDocumented() throws {
        let reader = try CAFReader(bytes: try Self.ring())
        #expect(reader.chunks.map(\.offset) == Self.ringChunks.map { Int64($0.1) })
        #expect(reader.dataOffset == 4096)
    }

    @Test func truncatedAtEveryChunkBoundary() throws {
        let file = try Self.ring()
        // Cut exactly between chunks: every chunk before is whole, and the file ends where 'data' was due.
        for (_, offset) in Self.ringChunks {
            let error = try Self.readError(Array(file.prefix(offset)))
            #expect(error.code == .truncated)
            #expect(error.byteOffset == Int64(offset))
            #expect(error.message.contains("'data'"))
        }
        // Cut inside a chunk header.
        for (_, offset) in Self.ringChunks {
            let error = try Self.readError(Array(file.prefix(offset + 5)))
            #expect(error.code == .truncated)
            #expect(error.byteOffset == Int64(offset))
            #expect(error.message.contains("chunk header"))
        }
        // Cut inside a chunk body: the error names the chunk.
        for (type, offset) in Self.ringChunks {
            let error = try Self.readError(Array(file.prefix(offset + 12 + (type == "data" ? 6 : 1))))
            #expect(error.code == .truncated)
            #expect(error.byteOffset == Int64(offset))
            #expect(error.message.contains("'\(type)'"))
        }
        // Cut inside the file header, and right after data's header (no mEditCount).
        #expect(try Self.readError(Array(file.prefix(5))).byteOffset == 0)
        let editCount = try Self.readError(Array(file.prefix(4092)))
        #expect(editCount.code == .truncated)
        #expect(editCount.byteOffset == 4092)
        #expect(editCount.message.contains("mEditCount"))
    }

    @Test func everyPrefixThrowsOrReadsWithoutHanging() throws {
        let file = try Self.ring()
        var errors = 0
        for length in stride(from: 0, to: file.count, by: 61) {
            do {
                _ = try CAFTest.readAll(try CAFReader(bytes: Array(file.prefix(length))))
            } catch let error as MediaError {
                #expect(error.byteOffset != nil)
                errors += 1
            }
        }
        #expect(errors == (file.count + 60) / 61)  // every prefix is short of the data chunk's declared size
    }

    @Test(arguments: [("uuid", 315), ("desc", 8), ("data", 4080)])
    func hugeChunkSize(type: String, offset: Int) throws {
        let file = CAFTest.patched(try Self.ring(), at: offset + 4, CAFTest.be64(Int64.max))
        let error = try Self.readError(file)
        #expect(error.code == .truncated)
        #expect(error.byteOffset == Int64(offset))
        #expect(error.message.contains("'\(type)'"))
    }

    @Test func negativeChunkSize() throws {
        let file = CAFTest.patched(try Self.ring(), at: 491 + 4, CAFTest.be64(-1))
        let error = try Self.readError(file)
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 491)
        #expect(error.message == "CAF 'free' chunk declares a size of -1 bytes")
    }

    @Test func noDesc() throws {
        let file = CAFTest.patched(try Self.ring(), at: 8, Array("xesc".utf8))
        let error = try Self.readError(file)
        #expect(error.code == .invalidData)
        #expect(error.message == "CAF file has no 'desc' chunk")
        #expect(error.byteOffset == 8)
    }

    @Test func aacWithoutPakt() throws {
        let file = CAFTest.patched(try Self.ring(), at: 103, Array("xakt".utf8))
        let error = try Self.readError(file)
        #expect(error.code == .invalidData)
        #expect(error.message.contains("no 'pakt' chunk"))
        #expect(error.byteOffset == 8)
    }

    @Test func paktPacketCountDisagreesWithData() throws {
        let file = CAFTest.patched(try Self.ring(), at: 103 + 12, CAFTest.be64(88))
        let error = try Self.readError(file)
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 103)
        #expect(error.message.contains("'pakt' packet sizes add up to"))
    }

    @Test func paktFrameCountsDisagree() throws {
        let file = CAFTest.patched(try Self.ring(), at: 103 + 20, CAFTest.be64(88_065))
        let error = try Self.readError(file)
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 103)
        #expect(
            error.message
                == "CAF 'pakt' says 88065 valid + 2112 priming + 960 remainder frames but its 89 packets hold 91136")
    }

    @Test func paktCountTooLargeForTheChunk() throws {
        let file = CAFTest.patched(try Self.ring(), at: 103 + 12, CAFTest.be64(1 << 62))
        let error = try Self.readError(file)
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 115)  // mNumberPackets: pakt at 103 + its 12-byte header
        #expect(error.message.contains("'pakt' declares 4611686018427387904 packets"))
    }

    @Test func endlessVarintInApplesTable() throws {
        let file = CAFTest.patched(try Self.ring(), at: 103 + 12 + 24, [UInt8](repeating: 0xFF, count: 20))
        let error = try Self.readError(file)
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 139)
        #expect(
            error.message == "CAF 'pakt' size of packet 0 is a variable-length integer that does not end within 9 bytes"
        )
    }

    /// A hand-built AAC CAF: desc, pakt with `table` after the 24-byte counts, data of `dataBytes` bytes.
    static func handBuilt(packets: Int64, table: [UInt8], dataBytes: Int, channels: UInt32 = 2) -> [UInt8] {
        let desc = CAFAudioDescription(
            sampleRate: 44_100, formatID: CAFAudioDescription.mpeg4AAC, formatFlags: 0, bytesPerPacket: 0,
            framesPerPacket: 1024, channelsPerFrame: channels, bitsPerChannel: 0)
        let counts = CAFTest.be64(packets) + CAFTest.be64(packets * 1024) + CAFTest.be32(0) + CAFTest.be32(0)
        return CAFTest.fileHeader + CAFTest.chunk("desc", desc.bytes) + CAFTest.chunk("pakt", counts + table)
            + CAFTest.chunk("data", [0, 0, 0, 0] + [UInt8](repeating: 0x21, count: dataBytes))
    }

    @Test func endlessVarintRunningToTheEndOfTheChunk() throws {
        let error = try Self.readError(Self.handBuilt(packets: 1, table: [0xFF, 0xFF, 0xFF], dataBytes: 10))
        #expect(error.code == .truncated)
        #expect(error.byteOffset == 91)  // pakt at 52, 12-byte header, 24 bytes of counts, 3 bytes of 0xFF
        #expect(error.message.contains("'pakt' size of packet 0"))
    }

    @Test func handBuiltFileReads() throws {
        let samples = try CAFTest.readAll(
            try CAFReader(bytes: Self.handBuilt(packets: 2, table: [0x04, 0x81, 0x00], dataBytes: 132)))
        #expect(samples.map(\.data.count) == [4, 128])
        #expect(samples.map(\.frameCount) == [1024, 1024])
    }

    @Test func packetSizesWhoseSumOverflows() throws {
        // Two sizes of 2^62 + 2^62 - 1 … as 9-byte varints: the sum passes Int64.max.
        let big: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        let error = try Self.readError(Self.handBuilt(packets: 2, table: big + big, dataBytes: 10))
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 52)
        #expect(error.message == "CAF 'pakt' packet sizes add up to more than 2^63-1 bytes but 'data' holds 10")
    }

    @Test func validFramesNearInt64MaxDoNotOverflow() throws {
        var file = Self.handBuilt(packets: 1, table: [0x0A], dataBytes: 10)
        file.replaceSubrange(52 + 12 + 8..<52 + 12 + 16, with: CAFTest.be64(Int64.max))  // mNumberValidFrames
        file.replaceSubrange(52 + 12 + 16..<52 + 12 + 20, with: CAFTest.be32(1))  // mPrimingFrames
        let error = try Self.readError(file)
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 52)
        #expect(error.message.hasPrefix("CAF 'pakt' says 9223372036854775807 valid + 1 priming"))
    }

    @Test func zeroChannels() throws {
        let error = try Self.readError(Self.handBuilt(packets: 1, table: [0x0A], dataBytes: 10, channels: 0))
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 8)
        #expect(error.message.contains("mChannelsPerFrame of 0"))
        let ring = CAFTest.patched(try Self.ring(), at: 8 + 12 + 24, CAFTest.be32(0))
        #expect(try Self.readError(ring).message.contains("mChannelsPerFrame of 0"))
    }

    @Test func zeroRate() throws {
        let file = CAFTest.patched(try Self.ring(), at: 8 + 12, CAFTest.be64(0))
        let error = try Self.readError(file)
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 8)
        #expect(error.message.contains("mSampleRate of 0.0"))
    }

    @Test func notCAF() throws {
        let error = try Self.readError(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8))
        #expect(error.code == .invalidData)
        #expect(error.byteOffset == 0)
    }

    @Test func corruptedHeaderBytesNeverCrash() throws {
        let file = try Self.ring()
        var failures = 0
        for offset in 0..<4096 {
            let damaged = CAFTest.patched(file, at: offset, [file[offset] ^ 0xA5])
            do {
                let reader = try CAFReader(bytes: damaged)
                let packets = try CAFTest.readAll(reader)
                // What is read is consistent with the packet table the reader accepted.
                #expect(Int64(packets.reduce(0) { $0 + $1.data.count }) == reader.dataSize)
            } catch let error as MediaError {
                #expect(error.byteOffset != nil || error.code == .truncated)
                failures += 1
            }
        }
        #expect(failures > 0)
    }
}
