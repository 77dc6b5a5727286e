import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// The parser refills the buffers of a batch its consumer has let go of (no allocation per batch), and
/// never changes a batch that is still held: both for constant-size packets (WAVE, AIFF, NeXT) and for
/// variable-size ones (ADTS, MP3, CAF with a packet table: ffmpeg's ALAC). Reuse is judged by the
/// buffer's identity (a weak reference, ``ArrayBuffer``), not its address: malloc may hand back the
/// block just freed, so a fresh buffer per batch could have the old address. The allocation counts
/// themselves are checked by the allocation benchmarks (`make bench-check`).
@Suite(.timeLimit(.minutes(2))) struct AudioFileStreamParserRecyclingTests {
    /// A 3-second stereo file in `format` (an ffmpeg muxer and codec), made by ffmpeg.
    static func file(_ name: String, _ format: [String]) throws -> [UInt8] {
        let dir = try TemporaryDirectory()
        let path = dir.file(name)
        try ExternalTool.check(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=3", "-ac", "2"] + format + [path])
        return try fileBytes(path)
    }

    static let files: [(String, [String])] = [
        ("tone.wav", ["-c:a", "pcm_s16le"]),
        ("tone.aiff", ["-c:a", "pcm_s16be"]),
        ("tone.au", ["-c:a", "pcm_s16be"]),
        ("tone.aac", ["-c:a", "aac", "-f", "adts"]),
        ("tone.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"]),
        ("tone.caf", ["-c:a", "alac", "-f", "caf"])
    ]

    /// Parses `bytes` in 4 KiB pushes with small batches, calling `take` with each batch as it comes.
    static func parse(_ bytes: [UInt8], _ take: (AudioFilePackets) -> Void) throws {
        var parser = AudioFileStreamParser(batching: .init(maxBytes: 2048, maxPackets: 3))
        var start = 0
        repeat {
            let end = min(bytes.count, start + 4096)
            parser.push(bytes[start..<end])
            if end == bytes.count { parser.finish() }
            while let event = try parser.next() {
                if case .packets(let batch) = event { take(batch) }
            }
            start = end
        } while start < bytes.count
    }

    @Test(arguments: files)
    func aBatchLetGoOfIsRefilledInPlace(name: String, format: [String]) throws {
        let bytes = try Self.file(name, format)
        // For each batch, whether its buffer is the previous batch's (alive all along: a weak reference
        // to it is still set), which the consumer let go of when its call returned.
        weak var previous: AnyObject?
        var reused: [Bool] = []
        var identified = true
        try Self.parse(bytes) { batch in
            guard let buffer = ArrayBuffer.object(of: batch.bytes) else {
                identified = false
                return
            }
            reused.append(previous != nil && previous === buffer)
            previous = buffer
        }
        #expect(identified, "\(name): a batch with no buffer")
        #expect(reused.count > 8)
        // The first batches may grow the buffer (to the largest batch and an eighth more); from then on
        // every batch is written into the same one.
        let later = reused[(reused.count / 2)...]
        #expect(
            later.allSatisfy { $0 },
            "\(name): \(later.filter { !$0 }.count) new buffers in the last \(later.count) batches")
    }

    @Test(arguments: files)
    func aBatchStillHeldIsNeverChanged(name: String, format: [String]) throws {
        let bytes = try Self.file(name, format)
        var held: [AudioFilePackets] = []
        var copies: [[UInt8]] = []
        try Self.parse(bytes) { batch in
            held.append(batch)
            copies.append(batch.bytes.map { $0 })  // a copy of its own, made before the parser goes on
        }
        #expect(held.count > 8)
        #expect(held.map(\.bytes) == copies)
        #expect(held.allSatisfy { $0.descriptions.isEmpty || $0.descriptions.count == $0.packetCount })
        // Where the container does not wrap packets (all but ADTS), a batch is the file's bytes there.
        if !name.hasSuffix(".aac") {
            #expect(
                held.allSatisfy { $0.bytes[...] == bytes[Int($0.fileOffset)..<(Int($0.fileOffset) + $0.bytes.count)] })
        }
    }
}
