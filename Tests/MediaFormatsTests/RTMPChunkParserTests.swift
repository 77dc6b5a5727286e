import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// `RTMPChunkParser`, `RTMPChunkWriter` and `AMF0Value` on the fuzz seeds (an FLV written by ffmpeg, cut
/// into chunks three ways by `Fuzz/make-seeds.sh`, which follows the specification, not this code) and on
/// hand-made damage: the same messages however the bytes are split, and each broken rule a typed error
/// with its byte offset.
@Suite(.timeLimit(.minutes(1))) struct RTMPChunkParserTests {
    static func seed(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.packageRoot() + "/Fuzz/Corpus/" + name)))
    }

    /// The three cuttings of one publisher's stream give the same messages (the stamps, types, stream IDs
    /// and payloads of the FLV's tags, once extended timestamps are taken off), split any way.
    @Test func theThreeCuttingsGiveTheSameMessagesSplitAnyWay() throws {
        var results: [[RTMPMessage]] = []
        for name in ["chunk128", "chunk4096", "extended"] {
            let outcome = try PushParserVerifier.verify(try Self.seed("RTMPChunks/" + name)) { RTMPChunkParser() }
            #expect(outcome.error == nil, "\(name): \(String(describing: outcome.error))")
            results.append(outcome.outputs)
        }
        let (plain, resized, extended) = (results[0], results[1], results[2])
        #expect(plain.count > 15)
        #expect(resized.first?.type == .setChunkSize)
        let strip = { (message: RTMPMessage) in [message.type.rawValue, UInt8(message.streamID)] + message.payload }
        #expect(plain.map(strip) == resized.dropFirst().map(strip))
        #expect(plain.map(\.timestamp) == resized.dropFirst().map(\.timestamp))
        // The extended cutting holds the first 12 media messages, each 2^24 ms later.
        #expect(extended.count == 5 + 12)
        #expect(extended.map(strip) == plain.prefix(17).map(strip))
        #expect(zip(extended, plain).allSatisfy { $0.timestamp == $1.timestamp &+ 0x100_0000 })
        let audio = plain.filter { $0.type == .audio }
        let video = plain.filter { $0.type == .video }
        #expect(!audio.isEmpty && !video.isEmpty)
        #expect(video.first?.payload.prefix(2) == [0x17, 0x00], "the first video message is the avcC")
    }

    /// The writer's chunks, at several chunk sizes, parse back to the same messages.
    @Test(arguments: [1, 128, 4_096]) func theWritersChunksParseBack(_ size: Int) throws {
        var writer = RTMPChunkWriter()
        let sizeMessage = RTMPMessage(
            type: .setChunkSize, chunkStreamID: 2, payload: [0, 0, UInt8(size >> 8), UInt8(size & 0xFF)])
        var bytes = writer.chunks(of: sizeMessage)
        writer.chunkSize = size
        var messages: [RTMPMessage] = []
        for index in 0..<6 {
            let even = index.isMultiple(of: 2)
            let stamp: UInt32 = UInt32(index * 40) + (index == 5 ? 0xFF_FFFF : 0)
            let payload: [UInt8] = (0..<(index * 700)).map { UInt8($0 % 251) }
            messages.append(
                RTMPMessage(
                    type: even ? .video : .audio, streamID: 1, timestamp: stamp, chunkStreamID: even ? 6 : 400,
                    payload: payload))
        }
        for message in messages { bytes += writer.chunks(of: message) }
        let outcome = try PushParserVerifier.verify(bytes, byteByByte: size > 1) { RTMPChunkParser() }
        let parsed = outcome.outputs.dropFirst()
        #expect(parsed.map(\.payload) == messages.map(\.payload))
        #expect(parsed.map(\.timestamp) == messages.map(\.timestamp))
        #expect(parsed.map(\.chunkStreamID) == messages.map(\.chunkStreamID))
    }

    /// Each broken rule: its code and the offset of the chunk that broke it.
    @Test func brokenRulesAreTypedErrorsWithTheirOffsets() throws {
        let writer = RTMPChunkWriter()
        let first = writer.chunks(of: RTMPMessage(type: .audio, streamID: 1, chunkStreamID: 4, payload: [1, 2, 3]))
        func error(_ bytes: [UInt8], limits: RTMPChunkParser.Limits = .init()) -> MediaError? {
            var parser = RTMPChunkParser(limits: limits)
            do {
                _ = try parser.parseAll(bytes)
                return nil
            } catch { return error }
        }
        // A chunk size of 2^31 (top bit set), then one over the limit.
        let huge = writer.chunks(of: RTMPMessage(type: .setChunkSize, chunkStreamID: 2, payload: [0x80, 0, 0, 0]))
        #expect(error(first + huge)?.code == .invalidData)
        #expect(error(first + huge)?.byteOffset == Int64(first.count))
        let big = writer.chunks(of: RTMPMessage(type: .setChunkSize, chunkStreamID: 2, payload: [0x10, 0, 0, 0]))
        #expect(error(big)?.code == .limitExceeded)
        // A format-1 header on a chunk stream that never had a format-0 one.
        #expect(error(first + [0x45, 0, 0, 0, 0, 0, 1, 8, 0xAA])?.byteOffset == Int64(first.count))
        // A message longer than the limit.
        var small = RTMPChunkParser.Limits()
        small.messageLength = 100
        let long = writer.chunks(
            of: RTMPMessage(type: .video, streamID: 1, chunkStreamID: 6, payload: [UInt8](repeating: 0, count: 101)))
        #expect(error(long, limits: small)?.code == .limitExceeded)
        // Too many chunk streams.
        small = RTMPChunkParser.Limits()
        small.chunkStreams = 3
        let many = (3...6).flatMap {
            writer.chunks(of: RTMPMessage(type: .audio, chunkStreamID: UInt32($0), payload: [0]))
        }
        #expect(error(many, limits: small)?.code == .limitExceeded)
        // Cut off mid-message.
        let cut = Array(long.prefix(60))
        #expect(error(cut)?.code == .truncated)
        // A new message header on a chunk stream whose message is not whole (chunk size 128, 300 bytes).
        let partial = writer.chunks(
            of: RTMPMessage(type: .video, chunkStreamID: 6, payload: [UInt8](repeating: 0, count: 300)))
        #expect(error(Array(partial.prefix(140)) + partial)?.code == .invalidData)
    }

    /// AMF0: the seeds decode to what make-seeds.sh encoded, encode back to the same bytes, and broken
    /// input is a typed error with its offset.
    @Test func amf0DecodesAndEncodesTheSeedsAndRefusesDamage() throws {
        let connect = try Self.seed("AMF0/connect")
        let values = try AMF0Value.decodeAll(connect)
        #expect(values.first == "connect")
        #expect(values[1] == .number(1))
        #expect(values[2]["app"] == "live")
        #expect(values[2]["tcUrl"]?.string == "rtmp://127.0.0.1/live")
        #expect(AMF0Value.encode(values) == connect)
        let metadata = try AMF0Value.decodeAll(try Self.seed("AMF0/metadata"))
        #expect(metadata[2]["videocodecid"]?.number == 7)
        #expect(AMF0Value.encode(metadata) == (try Self.seed("AMF0/metadata")))

        #expect(throws: MediaError.self) { try AMF0Value.decodeAll(Array(connect.dropLast(4))) }
        do {
            _ = try AMF0Value.decodeAll(connect.prefix(20) + [0x11])
        } catch {
            #expect(error.code == .unsupportedFormat || error.code == .truncated, "\(error)")
        }
        var deep: [UInt8] = []
        for _ in 0..<40 { deep += [0x0A, 0, 0, 0, 1] }
        deep += [0x05]
        do {
            _ = try AMF0Value.decodeAll(deep)
            Issue.record("40 nested arrays decoded")
        } catch {
            #expect(error.code == .limitExceeded && error.byteOffset == 80, "\(error)")
        }
        do {
            _ = try AMF0Value.decodeAll([0x02, 0, 2, 0xFF, 0xFE])
            Issue.record("a string that is not UTF-8 decoded")
        } catch {
            #expect(error.code == .invalidData && error.byteOffset == 3, "\(error)")
        }
    }
}
