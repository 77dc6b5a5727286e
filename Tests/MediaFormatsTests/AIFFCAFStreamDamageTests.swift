import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Damaged AIFF and CAF files through AudioFileStreamParser: cut at every header offset, garbage,
/// sizes past the end, endless zero-size chunks. Each gives a typed error with a byte offset (the same
/// for every split of the input), or, after the audio, a diagnostic; never a crash or a hang.
@Suite(.timeLimit(.minutes(2))) struct AIFFCAFStreamDamageTests {
    typealias T = ContainerStreamTest

    /// Parses `bytes` drip-fed and returns the error, which must be typed and located.
    static func located(_ bytes: [UInt8], byteByByte: Bool = true) throws -> MediaError? {
        let outcome = try PushParserVerifier.verify(bytes, seeds: [1, 2], byteByByte: byteByByte) {
            AudioFileStreamParser()
        }
        guard let error = outcome.error else { return nil }
        #expect([MediaError.Code.truncated, .invalidData, .unsupportedFormat].contains(error.code), "\(error)")
        #expect(error.byteOffset != nil, "\(error)")
        return error
    }

    /// A small ffmpeg file: an AIFF-C (FVER, COMM, SSND) or a CAF (desc, chan, info, data).
    static func small(_ dir: TemporaryDirectory, caf: Bool, codec: String = "pcm_s16le") throws -> [UInt8] {
        let path = dir.file(caf ? "s.caf" : "s.aiff")
        try T.ffmpegTone(
            path, seconds: 0.01, codec == "alac" ? ["-c:a", codec] : ["-c:a", codec, "-f", caf ? "caf" : "aiff"])
        return try WAVTest.bytes(path)
    }

    @Test(arguments: [(false, "pcm_s16le"), (true, "pcm_s16le"), (true, "alac")])
    func cutAtEveryHeaderOffset(_ caf: Bool, _ codec: String) throws {
        let dir = try TemporaryDirectory()
        let file = try Self.small(dir, caf: caf, codec: codec)
        let whole = try T.parse(file)
        let dataOffset = try #require(whole.dataOffset)
        let chunks = T.chunks(file, caf: true)
        // With the packet table after the data, every cut before its end loses the packets' sizes.
        let lastHeader = codec == "alac" ? file.count : Int(dataOffset)
        for cut in 0..<min(file.count, max(lastHeader, Int(dataOffset) + 9)) {
            let error = try Self.located(Array(file.prefix(cut)))
            if cut < lastHeader {
                let error = try #require(error, "cut at \(cut)")
                #expect(error.byteOffset.map { $0 <= cut } == true, "cut at \(cut): \(error)")
                let noPacketTable = codec == "alac" && cut == chunks.last?.offset
                // Under 12 bytes the file type cannot be told (AudioFileSniffer's verdict).
                let expected: MediaError.Code =
                    cut < 12 && !(caf && cut >= 4) ? .unsupportedFormat : noPacketTable ? .invalidData : .truncated
                #expect(error.code == expected, "cut at \(cut): \(error)")
            } else {
                #expect(error == nil, "cut at \(cut): \(String(describing: error))")
                let s = try T.parse(Array(file.prefix(cut)))
                #expect(s.diagnostics.contains { if case .dataTruncated = $0 { true } else { false } })
                #expect(s.bytes == Array(whole.bytes.prefix(s.bytes.count)))
            }
        }
    }

    @Test func cutInsideAppleRingHeaders() throws {
        let file = try WAVTest.bytes(CAFTest.ringPath)
        for chunk in T.chunks(file, caf: true) {
            for cut in chunk.offset..<chunk.offset + 14 {
                let error = try #require(try Self.located(Array(file.prefix(cut)), byteByByte: false), "cut at \(cut)")
                #expect(error.code == .truncated)
                #expect(
                    error.byteOffset.map { $0 <= cut && $0 >= chunk.offset - 12 } == true, "cut at \(cut): \(error)")
            }
        }
    }

    @Test(arguments: [false, true]) func garbageInTheHeaders(_ caf: Bool) throws {
        let dir = try TemporaryDirectory()
        let file = try Self.small(dir, caf: caf)
        let headerEnd = Int(try #require(try T.parse(file).dataOffset))
        var state: UInt64 = caf ? 7 : 11
        for _ in 0..<150 {
            var damaged = file
            for _ in 0..<3 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let index = 8 + Int(state >> 33) % (headerEnd - 8)
                damaged[index] = UInt8(truncatingIfNeeded: state >> 20)
            }
            _ = try Self.located(damaged, byteByByte: false)
        }
        // Pure garbage after a valid file header.
        for seed: UInt32 in 1...20 {
            let header = caf ? CAFTest.fileHeader : Array("FORMxxxxAIFC".utf8)
            _ = try Self.located(header + WAVTest.pattern(400, seed: seed), byteByByte: false)
        }
    }

    @Test func sizesPastTheEndBeforeTheAudio() throws {
        let aiff = T.form("AIFF", [Array("NAME".utf8) + T.be32(0x7FFF_FFFF) + [1, 2, 3]])
        let error = try #require(try Self.located(aiff))
        #expect(error == .truncated("AIFF 'NAME' chunk", needed: 0x7FFF_FFFF, available: 3, at: 12))
        for size in [Int64(1) << 62, Int64.max] {
            let file = CAFTest.fileHeader + CAFTest.chunk("free", [9, 9], size: size)
            let error = try #require(try Self.located(file))
            #expect(error == .truncated("CAF 'free' chunk", needed: Int(clamping: size), available: 2, at: 8))
        }
        let negative = try #require(try Self.located(CAFTest.fileHeader + CAFTest.chunk("free", [], size: -2)))
        #expect(negative == .invalidData("CAF 'free' chunk declares a size of -2 bytes", at: 8))
    }

    @Test func sizesPastTheEndAfterTheAudioAreNotes() throws {
        let audio = WAVTest.pattern(40)
        let aiff = T.form(
            "AIFF",
            [
                T.aiffChunk("COMM", T.commBody(frames: 10)), T.aiffChunk("SSND", T.ssndBody(audio)),
                Array("ID3 ".utf8) + T.be32(1000) + [1]
            ])
        let s = try T.verified(aiff).summary
        #expect(s.bytes == audio)
        let note: AudioFileStreamDiagnostic = .note(
            "The AIFF 'ID3 ' chunk after the audio data declares 1000 bytes but the file ends after 1",
            byteOffset: 12 + 26 + 56)
        #expect(s.diagnostics.last == note)
        let caf = try WAVTest.bytes(CAFTest.beepPath) + CAFTest.chunk("free", [1, 2], size: Int64.max)
        #expect(try T.verified(caf).error == nil)
    }

    @Test func endlessZeroSizeChunks() throws {
        let junk = [[UInt8]](repeating: T.aiffChunk("JUNK", []), count: 20_000)
        let audio = WAVTest.pattern(40)
        let aiff = T.form(
            "AIFF", [T.aiffChunk("COMM", T.commBody(frames: 10))] + junk + [T.aiffChunk("SSND", T.ssndBody(audio))])
        let s = try T.verified(aiff).summary
        #expect(s.skippedChunks.count == 20_000)
        #expect(s.bytes == audio)
        let onlyJunk = try #require(try Self.located(T.form("AIFF", junk), byteByByte: false))
        let junkEnd: Int64 = 12 + 8 * 20_000
        #expect(onlyJunk == .truncated("AIFF 'COMM' chunk header", needed: 8, available: 0, at: junkEnd))
        let free = [UInt8]((0..<20_000).flatMap { _ in CAFTest.chunk("free", []) })
        let caf = try WAVTest.bytes(CAFTest.beepPath)
        let withFree = Array(caf.prefix(8)) + free + caf.dropFirst(8)
        let c = try T.verified(withFree).summary
        #expect(c.skippedChunks.count == 20_002)
        #expect(c.packets == 5962)
    }
}
