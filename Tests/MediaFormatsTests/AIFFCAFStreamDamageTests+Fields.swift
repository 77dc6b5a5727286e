import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Impossible or contradictory fields: each refused with the offset of the field or chunk at fault.
extension AIFFCAFStreamDamageTests {
    static let audio = WAVTest.pattern(40)

    /// An AIFF of a COMM body and 10 stereo s16 frames (COMM at 12, SSND at 38).
    static func aiff(_ comm: [UInt8], form: String = "AIFF") -> [UInt8] {
        T.form(form, [T.aiffChunk("COMM", comm), T.aiffChunk("SSND", T.ssndBody(audio))])
    }

    @Test(arguments: [
        ("00000000000000000000", "zero"), ("7FFF8000000000000000", "infinite"), ("00004000000000000000", "a denormal"),
        ("7FFFC000000000000000", "not a number"), ("43FF8000000000000000", "outside a Double's range")
    ])
    func unusableRate(_ hex: String, _ reason: String) throws {
        for late in [false, true] {
            let comm = T.aiffChunk("COMM", T.commBody(frames: 10, rate: AIFFStreamParserTests.bytes(hex)))
            let ssnd = T.aiffChunk("SSND", T.ssndBody(Self.audio))
            let file = T.form("AIFF", late ? [ssnd, comm] : [comm, ssnd])
            let error = try #require(try Self.located(file))
            #expect(error.code == .invalidData)
            let rateOffset: Int64 = late ? 12 + 56 + 16 : 12 + 16  // the rate: COMM body + 8
            #expect(error.byteOffset == rateOffset)
            #expect(error.message.contains(reason))
        }
        let tiny = try #require(
            try Self.located(
                Self.aiff(T.commBody(frames: 10, rate: AIFFStreamParserTests.bytes("3FFE8000000000000000")))))
        #expect(tiny == .invalidData("AIFF 'COMM' sampleRate of 0.5 is not a usable rate", at: 28))
    }

    @Test func numSampleFramesContradictingSSND() throws {
        for late in [false, true] {
            let comm = T.aiffChunk("COMM", T.commBody(frames: 11))
            let ssnd = T.aiffChunk("SSND", T.ssndBody(Self.audio))
            let error = try #require(try Self.located(T.form("AIFF", late ? [ssnd, comm] : [comm, ssnd])))
            let commOffset = late ? 12 + 56 : 12
            #expect(
                error
                    == .invalidData(
                        "AIFF 'COMM' numSampleFrames of 11 needs 44 bytes but the 'SSND' chunk at byte offset \(late ? 12 : 38) holds 40",
                        at: Int64(commOffset + 10)))
        }
    }

    @Test func impossibleAIFFChunks() throws {
        func error(_ file: [UInt8]) throws -> MediaError { try #require(try Self.located(file)) }
        #expect(
            try error(Self.aiff(T.commBody(channels: 0, frames: 10)))
                == .invalidData("AIFF 'COMM' numChannels of 0 is not a usable channel count", at: 20))
        #expect(
            try error(Self.aiff(T.commBody(frames: 10, bits: 0)))
                == .invalidData("AIFF 'COMM' sampleSize of 0 bits is not 1 to 32", at: 26))
        #expect(
            try error(Self.aiff(T.commBody(frames: 10, compression: "GSM "), form: "AIFC"))
                == MediaError(.unsupportedFormat, "AIFF-C compression type 'GSM ' is not supported", byteOffset: 38))
        #expect(
            try error(T.form("AIFF", [T.aiffChunk("COMM", [0, 2, 0, 0])]))
                == .invalidData("AIFF 'COMM' chunk of 4 bytes cannot hold its 18 bytes of fields", at: 12))
        let comm = T.aiffChunk("COMM", T.commBody(frames: 10))
        #expect(try error(T.form("AIFF", [comm, comm])).message.contains("second 'COMM'"))
        let ssnd = T.aiffChunk("SSND", T.ssndBody(Self.audio))
        #expect(
            try error(T.form("AIFF", [comm, ssnd, ssnd]))
                == .invalidData(
                    "AIFF file has a second 'SSND' chunk (the first is at byte offset 38)", at: 94))
        #expect(
            try error(T.form("AIFF", [comm, T.aiffChunk("SSND", [0, 0, 0, 0])]))
                == .invalidData("AIFF 'SSND' chunk of 4 bytes cannot hold its 8-byte offset and blockSize", at: 38))
        #expect(
            try error(T.form("AIFF", [comm, T.aiffChunk("SSND", T.be32(41) + T.be32(0) + Self.audio)]))
                == .invalidData("AIFF 'SSND' offset of 41 bytes runs past the chunk's 48 bytes", at: 46))
        #expect(
            try error(T.form("AIFF", [T.aiffChunk("SSND", T.be32(0) + T.be32(0) + Self.audio, size: 0), comm])).code
                == .invalidData)
    }

    /// A CAF of `desc`, an optional `pakt` and a data chunk of `data` bytes (its size field `dataSize`).
    static func caf(_ desc: CAFAudioDescription, pakt: [UInt8]? = nil, data: [UInt8], dataSize: Int64? = nil) -> [UInt8]
    {
        CAFTest.fileHeader + CAFTest.chunk("desc", desc.bytes) + (pakt.map { CAFTest.chunk("pakt", $0) } ?? [])
            + CAFTest.chunk("data", [0, 0, 0, 0] + data, size: dataSize)
    }

    static let aac = CAFAudioDescription(
        sampleRate: 44_100, formatID: CAFAudioDescription.mpeg4AAC, formatFlags: 2, bytesPerPacket: 0,
        framesPerPacket: 1024,
        channelsPerFrame: 2, bitsPerChannel: 0)

    @Test func impossibleCAFChunks() throws {
        func error(_ file: [UInt8]) throws -> MediaError { try #require(try Self.located(file)) }
        var version2 = CAFTest.fileHeader
        version2[5] = 2
        #expect(
            try error(version2 + CAFTest.chunk("desc", Self.aac.bytes))
                == MediaError(.unsupportedFormat, "CAF mFileVersion 2 is not 1", byteOffset: 4))
        #expect(try error(CAFTest.fileHeader + CAFTest.chunk("desc", [0, 0])).code == .invalidData)
        #expect(
            try error(CAFTest.fileHeader + CAFTest.chunk("data", [0, 0, 0, 0]))
                == .invalidData("CAF file has no 'desc' chunk before its 'data' chunk", at: 8))
        var zeroChannels = Self.aac
        zeroChannels.channelsPerFrame = 0
        #expect(try error(Self.caf(zeroChannels, data: [])).message.contains("mChannelsPerFrame of 0"))
        var pcm = CAFAudioDescription(
            sampleRate: 8000, formatID: CAFAudioDescription.linearPCM, formatFlags: 0, bytesPerPacket: 4,
            framesPerPacket: 2,
            channelsPerFrame: 2, bitsPerChannel: 16)
        #expect(try error(Self.caf(pcm, data: [])).code == .unsupportedFormat)
        pcm.framesPerPacket = 1
        pcm.bytesPerPacket = 3
        #expect(try error(Self.caf(pcm, data: [])).code == .invalidData)
        pcm.bytesPerPacket = 4
        let twoData = Self.caf(pcm, data: []) + CAFTest.chunk("data", [0, 0, 0, 0])
        let second = try error(twoData)
        #expect(second == .invalidData("CAF file has a second 'data' chunk", at: 68), "\(second)")
    }

    @Test func variablePacketsWithoutAPacketTable() throws {
        func error(_ file: [UInt8]) throws -> MediaError { try #require(try Self.located(file)) }
        // No pakt at all: refused as CAFReader refuses it.
        let closed = Self.caf(Self.aac, data: [1, 2, 3])
        // (The reader names itself as the stage; the push parser has none.)
        #expect(
            try error(closed).inStage("CAFReader")
                == (try #require(throws: MediaError.self) { try CAFReader(bytes: closed) }))
        #expect(try error(closed).byteOffset == 8)
        // Data to the end with no pakt before it: its packets cannot be found.
        let open = Self.caf(Self.aac, data: [1, 2, 3], dataSize: -1)
        #expect(
            try error(open)
                == MediaError(
                    .unsupportedFormat,
                    "CAF 'aac ' has packets of varying size and no 'pakt' chunk before its 'data' chunk, which runs to the end of the file: its packets cannot be found",
                    byteOffset: 52))
        // More audio than is held until a later pakt.
        let big = Self.caf(Self.aac, data: [1, 2, 3], dataSize: Int64(AIFFStreamParserTestsLimit.hold) + 5)
        let refused = try error(big)
        #expect(refused.code == .unsupportedFormat)
        #expect(refused.byteOffset == 52)
        #expect(refused.message.contains("byte offsets 68 to \(68 + AIFFStreamParserTestsLimit.hold + 1)"))
    }

    @Test func packetTablesCAFReaderRefusesAreRefusedAlike() throws {
        let table: [UInt8] = [100, 100]
        func pakt(packets: Int64, valid: Int64, remainder: UInt32 = 0) -> [UInt8] {
            CAFStreamParserTests.paktBody(packets: packets, valid: valid, remainder: remainder, table: table)
        }
        for file in [
            Self.caf(Self.aac, pakt: pakt(packets: 2, valid: 2048), data: WAVTest.pattern(199)),  // sizes add up to 200
            Self.caf(Self.aac, pakt: pakt(packets: 2, valid: 2047), data: WAVTest.pattern(200)),  // frames disagree
            Self.caf(Self.aac, pakt: pakt(packets: 3, valid: 3072), data: WAVTest.pattern(200)),  // table too short
            Self.caf(Self.aac, pakt: [0, 0, 1], data: WAVTest.pattern(200))  // counts cut off
        ] {
            let streamError = try #require(try Self.located(file))
            let readerError = try #require(throws: MediaError.self) { try CAFReader(bytes: file) }
            #expect(streamError.inStage("CAFReader") == readerError)
        }
        let fine = Self.caf(Self.aac, pakt: pakt(packets: 2, valid: 2000, remainder: 48), data: WAVTest.pattern(200))
        #expect(try Self.located(fine) == nil)
        #expect(try CAFReader(bytes: fine).packetCount == 2)
    }

    @Test func oversizedChunksAreRefusedBeforeTheyAreRead() throws {
        let kuki =
            CAFTest.fileHeader + CAFTest.chunk("desc", Self.aac.bytes) + CAFTest.chunk("kuki", [1], size: (1 << 20) + 1)
        #expect(try #require(try Self.located(kuki)).code == .unsupportedFormat)
        let pakt =
            CAFTest.fileHeader + CAFTest.chunk("desc", Self.aac.bytes)
            + CAFTest.chunk("pakt", [1], size: (16 << 20) + 1)
        let error = try #require(try Self.located(pakt))
        #expect(
            error
                == MediaError(
                    .unsupportedFormat,
                    "CAF 'pakt' chunk of 16777217 bytes is larger than the 16777216 bytes a stream parser reads",
                    byteOffset: 52))
    }
}
