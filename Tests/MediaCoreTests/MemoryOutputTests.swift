import MediaCore
import Testing

/// MemoryOutput patches what it holds; a NonSeekableOutput refuses to.
@Suite(.timeLimit(.minutes(2))) struct MemoryOutputTests {
    @Test func memoryOutputPatches() throws {
        let out = MemoryOutput()
        try out.write([1, 2, 3, 4])
        try out.overwrite([9, 9], at: 1)
        #expect(out.bytes == [1, 9, 9, 4])
        #expect(throws: MediaError.self) { try out.overwrite([1, 2], at: 3) }
        let pipe = NonSeekableOutput(MemoryOutput())
        #expect(!pipe.isSeekable)
        #expect(throws: MediaError.self) { try pipe.overwrite([0], at: 0) }
    }
}
