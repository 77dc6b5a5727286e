import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// The verifier itself: it must catch a parser whose output depends on the split, one that fails
/// differently depending on the split, one that does not stay ended, and one that throws without
/// making progress; and it must pass a parser that is split-invariant.
@Suite(.timeLimit(.minutes(2))) struct PushParserVerifierTests {
    /// Hands out each push as it came: the output depends on the split.
    struct EchoParser: PushParser {
        var pending: [[UInt8]] = []
        mutating func push(_ bytes: some Collection<UInt8>) { if !bytes.isEmpty { pending.append(Array(bytes)) } }
        mutating func finish() {}
        mutating func next() throws(MediaError) -> [UInt8]? { pending.isEmpty ? nil : pending.removeFirst() }
    }

    /// Hands out every 4 bytes as one output; throws at `finish` when bytes are left over, or, when
    /// `reportEarly`, as soon as it sees a zero byte at a position that is not a multiple of 4 (a decision
    /// made on bytes it does have, so split-invariant), or `offByChunk`, with the offset of the push.
    struct FourByteParser: PushParser {
        var buffer: [UInt8] = []
        var consumed = 0
        var isFinished = false
        var lastPushOffset = 0
        var offsetOfPush = false
        var stayEnded = true
        var endedOnce = false

        mutating func push(_ bytes: some Collection<UInt8>) {
            lastPushOffset = consumed + buffer.count
            buffer += bytes
        }
        mutating func finish() { isFinished = true }
        mutating func next() throws(MediaError) -> [UInt8]? {
            if buffer.count >= 4 {
                defer { buffer.removeFirst(4); consumed += 4 }
                return Array(buffer.prefix(4))
            }
            guard isFinished else { return nil }
            if !buffer.isEmpty {
                let offset = offsetOfPush ? lastPushOffset : consumed
                throw MediaError.truncated("a 4-byte group", needed: 4, available: buffer.count, at: Int64(offset))
            }
            if !stayEnded && endedOnce { return [0xEE] }
            endedOnce = true
            return nil
        }
    }

    /// Throws on every call after `finish`.
    struct StuckParser: PushParser {
        var isFinished = false
        mutating func push(_ bytes: some Collection<UInt8>) {}
        mutating func finish() { isFinished = true }
        mutating func next() throws(MediaError) -> Int? {
            guard isFinished else { return nil }
            throw MediaError.invalidData("stuck", at: 0)
        }
    }

    static let input: [UInt8] = Array(0..<41)

    @Test func passesASplitInvariantParserAndReturnsItsOutcome() throws {
        let outcome = try PushParserVerifier.verify(Self.input) { FourByteParser() }
        #expect(outcome.outputs.count == 10)
        #expect(outcome.outputs.first == [0, 1, 2, 3])
        #expect(outcome.error == MediaError.truncated("a 4-byte group", needed: 4, available: 1, at: 40))
    }

    @Test func catchesOutputThatDependsOnTheSplit() {
        #expect {
            try PushParserVerifier.verify(Self.input) { EchoParser() }
        } throws: { error in
            let mismatch = error as? PushParserVerifier.Mismatch
            return mismatch?.split == .byteByByte && mismatch?.message.hasPrefix("event 0 is output [0]") == true
        }
    }

    @Test func catchesAnErrorOffsetThatDependsOnTheSplit() {
        #expect {
            try PushParserVerifier.verify(Self.input, byteByByte: false) { FourByteParser(offsetOfPush: true) }
        } throws: { error in
            (error as? PushParserVerifier.Mismatch)?.message.contains("but whole it is error") == true
        }
    }

    @Test func catchesOutputAfterTheEnd() {
        #expect {
            try PushParserVerifier.verify(Array(Self.input.prefix(40))) { FourByteParser(stayEnded: false) }
        } throws: { error in
            let mismatch = error as? PushParserVerifier.Mismatch
            return mismatch?.split == .whole && mismatch?.message.contains("after it had returned nil") == true
        }
    }

    @Test func catchesAParserThatThrowsWithoutMakingProgress() {
        #expect {
            try PushParserVerifier.verify([1, 2, 3], errorPolicy: .continueAfterErrors) { StuckParser() }
        } throws: { error in
            (error as? PushParserVerifier.Mismatch)?.message.contains("without making progress") == true
        }
        // Stopping at the first error, the same parser is consistent.
        #expect((try? PushParserVerifier.verify([1, 2, 3]) { StuckParser() })?.error?.code == .invalidData)
    }

    @Test func randomSplitsCoverTheInputWithPiecesOfManySizes() {
        let pieces = PushParserVerifier.Split.random(seed: 1).pieces(count: 1_000_000)
        #expect(pieces.first?.lowerBound == 0)
        #expect(pieces.last?.upperBound == 1_000_000)
        #expect(zip(pieces, pieces.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(pieces.contains { $0.isEmpty })
        #expect(pieces.contains { $0.count == 1 })
        #expect(pieces.contains { $0.count > 4096 })
        #expect(
            PushParserVerifier.Split.random(seed: 1).pieces(count: 1000)
                == PushParserVerifier.Split.random(seed: 1).pieces(count: 1000))
        #expect(
            PushParserVerifier.Split.random(seed: 2).pieces(count: 1000)
                != PushParserVerifier.Split.random(seed: 1).pieces(count: 1000))
        #expect(PushParserVerifier.Split.byteByByte.pieces(count: 3) == [0..<1, 1..<2, 2..<3])
        #expect(PushParserVerifier.Split.whole.pieces(count: 3) == [0..<3])
    }
}
