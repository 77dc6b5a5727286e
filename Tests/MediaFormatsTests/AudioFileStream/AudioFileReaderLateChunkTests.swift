import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// A file whose audio comes before the chunk that describes it (ffmpeg's ALAC CAF: `pakt` after `data`;
/// an AIFF with `COMM` after `SSND`): the readers of whole files hop over the audio to the late chunk and
/// come back, and give exactly what a front-to-back parse that holds the audio gives.
@Suite(.timeLimit(.minutes(2))) struct AudioFileReaderLateChunkTests {
    typealias T = ContainerStreamTest

    /// Every event of a front-to-back parse of `bytes` (the audio held until the late chunk).
    static func heldParse(_ bytes: [UInt8]) throws -> [AudioFileStreamEvent] {
        var parser = AudioFileStreamParser(batching: .init(maxHeldBytes: Int64(bytes.count)))
        parser.push(bytes)
        parser.finish()
        var events: [AudioFileStreamEvent] = []
        while let event = try parser.next() { events.append(event) }
        return events
    }

    static func ffmpegALAC(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("late-pakt.caf")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=3", "-ac", "2", "-c:a", "alac",
                "-f", "caf", path
            ])
        return path
    }

    @Test func theParserDefersHeldAudioAndWaitsForTheReader() throws {
        let dir = try TemporaryDirectory()
        let bytes = try fileBytes(try Self.ffmpegALAC(dir))
        let held = try Self.heldParse(bytes)
        let heldBatches = held.compactMap { if case .packets(let b) = $0 { b } else { nil } }

        var parser = AudioFileStreamParser(batching: .init(maxHeldBytes: Int64(bytes.count)))
        #expect(throws: MediaError.self) { try parser.deferHeldAudio() }  // nothing held yet
        var pushed = 0
        var events: [AudioFileStreamEvent] = []
        while parser.heldAudioRange == nil, pushed < bytes.count {
            parser.push(bytes[pushed..<min(bytes.count, pushed + 4096)])
            pushed = min(bytes.count, pushed + 4096)
            while let event = try parser.next() { events.append(event) }
        }
        let range = try #require(parser.heldAudioRange)
        #expect(range.lowerBound == heldBatches.first?.fileOffset)
        #expect(pushed < bytes.count)  // found before the whole file came
        let next = try parser.deferHeldAudio()
        #expect(next == range.upperBound)
        #expect(parser.heldAudioRange == nil)
        parser.push(bytes[Int(next)...])
        while let event = try parser.next() { events.append(event) }
        #expect(events.last == .readyToProducePackets)
        #expect(!events.contains { if case .packets = $0 { true } else { false } })  // waits for the audio
        let dataOffset = try #require(events.compactMap { if case .dataOffset(let o) = $0 { o } else { nil } }.first)
        #expect(dataOffset == range.lowerBound)
        try parser.resume(atPacket: 0, byteOffset: dataOffset)
        parser.push(bytes[Int(dataOffset)...])
        parser.finish()
        while let event = try parser.next() { events.append(event) }
        #expect(events == held)  // the same events, the first batch no discontinuity, nothing reported twice
    }

    @Test func anALACCAFWithALatePaktReadsAsWhenHeld() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.ffmpegALAC(dir)
        let bytes = try fileBytes(path)
        let heldBatches = try Self.heldParse(bytes).compactMap { if case .packets(let b) = $0 { b } else { nil } }
        let reader = try AudioFileReader(path: path)
        let samples = try AudioFileReaderTests.readAll(reader)
        let packets = heldBatches.flatMap { b in
            b.descriptions.map { Array(b.bytes[$0.startOffset..<($0.startOffset + $0.dataByteSize)]) }
        }
        #expect(samples.map(\.data) == packets)
        #expect(samples.count == (try ffprobePacketCount(path)))
        #expect(!samples.contains { $0.flags.contains(.discontinuity) })
        #expect(reader.diagnostics.map(\.byteOffset) == [136])  // ffmpeg's 'info' chunk, reported once
        // Seeking after the hop still lands on the right packets.
        for target in [Int64(3), 0, Int64(samples.count - 1), 7] {
            try reader.seek(toPacket: target)
            #expect(try reader.next()?.data == samples[Int(target)].data)
        }
        let summary = try AudioFileSummary(path: path)
        let whole = try AudioFileSummary(bytes: bytes)
        #expect(summary.packets == whole.packets && summary.packets == Int64(samples.count))
        let probedFrames = T.int(try T.ffprobe(path)["duration_ts"]).map(Int64.init)
        #expect(summary.validFrames == whole.validFrames && probedFrames == summary.validFrames)
        #expect(summary.diagnostics == whole.diagnostics)
        #expect(summary.properties.packetTableInfo == whole.properties.packetTableInfo)
    }

    @Test func anAIFFWithCOMMAfterSSNDReportsTheChunkBetweenOnce() throws {
        let dir = try TemporaryDirectory()
        let source = try AIFFStreamParserTests.ffmpegAIFF(dir)
        let file = T.form(
            "AIFF",
            [
                T.aiffChunk("SSND", T.ssndBody(source.audio)), T.aiffChunk("ANNO", Array("odd".utf8)),
                T.aiffChunk("COMM", source.comm),
                T.aiffChunk("NAME", Array("after".utf8))
            ])
        let path = dir.file("late-comm.aiff")
        try WAVTest.write(file, to: path)
        let reader = try AudioFileReader(path: path)
        let samples = try AudioFileReaderTests.readAll(reader)
        #expect(samples.flatMap(\.data).count == source.audio.count)
        #expect(try T.ffmpegPackets(path).count == source.audio.count)
        #expect(!samples.contains { $0.flags.contains(.discontinuity) })
        let skipped = reader.diagnostics.compactMap { if case .chunkSkipped(let type, _, _) = $0 { type } else { nil } }
        #expect(skipped == ["ANNO", "NAME"])
        let summary = try AudioFileSummary(path: path)
        #expect(summary.diagnostics == (try AudioFileSummary(bytes: file)).diagnostics)
        #expect(summary.packets == Int64(source.audio.count / 4))
    }

    /// Cut anywhere, a late-`pakt` CAF read by hopping fails as the front-to-back parse does: a typed
    /// error whenever the held parse throws, never a crash or a hang, and the same packets otherwise.
    @Test func aCutLatePaktFileFailsCleanly() throws {
        let dir = try TemporaryDirectory()
        let bytes = try fileBytes(try Self.ffmpegALAC(dir))
        let path = dir.file("cut.caf")
        for cut in stride(from: 0, to: bytes.count, by: bytes.count / 37) + [bytes.count - 1, bytes.count - 13] {
            try WAVTest.write(Array(bytes[..<cut]), to: path)
            let heldFails = (try? Self.heldParse(Array(bytes[..<cut]))) == nil
            do {
                let reader = try AudioFileReader(path: path)
                _ = try AudioFileReaderTests.readAll(reader)
                #expect(!heldFails, "cut at \(cut): the hop read a file the held parse refuses")
            } catch let error as MediaError {
                #expect(heldFails, "cut at \(cut): \(error)")
                #expect(error.byteOffset != nil, "cut at \(cut): \(error)")
            }
        }
    }
}
