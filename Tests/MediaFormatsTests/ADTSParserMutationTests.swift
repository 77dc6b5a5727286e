import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Randomly damaged streams (a fixed pseudo-random sequence, so every run is the same): the parser must
/// neither trap nor hang, must consume every byte, must not mistake damage for a format change, and must
/// give the same result however it is fed.
@Suite(.timeLimit(.minutes(2))) struct ADTSParserMutationTests {
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
    }

    /// `stream` with a few bytes flipped, inserted, deleted, or with the end cut off, as chosen by `seed`.
    static func damage(_ stream: [UInt8], seed: UInt64) -> [UInt8] {
        var random = Generator(state: seed)
        var bytes = stream
        for _ in 0..<(1 + random.next(6)) {
            guard !bytes.isEmpty else { break }
            let at = random.next(bytes.count)
            switch random.next(5) {
            case 0: bytes[at] ^= UInt8(1 + random.next(255))  // flip bits
            case 1: bytes.insert(contentsOf: [0xFF, 0xF1][..<(1 + random.next(2))], at: at)  // a false sync
            case 2: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.next(40)))  // lose bytes
            case 3: bytes[at] = 0xFF  // sync-like byte
            default: bytes.removeLast(random.next(min(400, bytes.count)))  // cut the end
            }
        }
        return bytes
    }

    @Test(arguments: 0..<40)
    func damagedStreamParsesTheSameHoweverItIsSplit(seed: Int) throws {
        let clean = try fileBytes(TestPaths.fixture("shaka-player_hls-raw-aac_fileSequence0.aac"))
        let damaged = Self.damage(clean, seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        #expect(damaged != clean)

        let whole = try parseADTS(damaged)  // the same whole, byte by byte and in random splits
        #expect(whole.error == nil)
        #expect(whole.bytesConsumed == Int64(damaged.count))
        #expect(whole.packets.count <= 215 + 2)
        #expect(!whole.packets.isEmpty)
        // The segment has one format; damage to a header must not show up as a format change.
        let format = MediaFormat.audio(
            .aac(sampleRate: 22_050, channelLayout: .stereo, audioSpecificConfig: [0x13, 0x90]))
        #expect(whole.packets.allSatisfy { $0.format == format })
    }
}
