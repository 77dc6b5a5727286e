import MediaBitstream
import MediaCore
import Testing

/// ByteReader, ByteWriter, BitReader and BitWriter: both byte orders, reads past the end refused with
/// the absolute offset, writers and readers agreeing.
@Suite(.timeLimit(.minutes(2))) struct ByteIOTests {
    @Test func readsBothEndiannesses() throws {
        var r = ByteReader([0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC])
        #expect(try r.readUInt16BE() == 0x1234)
        #expect(try r.readUInt16LE() == 0x7856)
        #expect(r.remaining == 2)
        #expect(try r.readUInt8() == 0x9A)
        #expect(r.absoluteOffset == 5)
    }

    @Test func shortReadThrowsWithTheAbsoluteOffset() {
        var r = ByteReader([1, 2, 3], baseOffset: 100)
        do {
            _ = try r.readUInt32BE("chunk size")
            Issue.record("read past the end")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.byteOffset == 100)
            #expect(error.description == "chunk size needs 4 bytes but only 3 remain at byte offset 100.")
        }
        #expect(throws: MediaError.self) { try r.skip(-1) }
    }

    @Test func writerAndReaderAgree() throws {
        var w = ByteWriter()
        w.writeUInt32BE(0xDEADBEEF)
        w.writeUInt64LE(0x0102030405060708)
        w.writeUInt16LE(0xABCD)
        var r = ByteReader(w.bytes)
        #expect(try r.readUInt32BE() == 0xDEADBEEF)
        #expect(try r.readUInt64LE() == 0x0102030405060708)
        #expect(try r.readUInt16LE() == 0xABCD)
        #expect(r.isAtEnd)
    }

    @Test func bitsRoundTrip() throws {
        var w = BitWriter()
        w.write(0xFFF, bits: 12)
        w.write(0, bits: 1)
        w.write(0b10, bits: 2)
        w.writeFlag(true)
        w.write(0x1ABC, bits: 13)
        #expect(w.bitsWritten == 29)
        #expect(w.bytes.count == 4)
        var r = BitReader(w.bytes)
        #expect(try r.read(12) == 0xFFF)
        #expect(try r.read(1) == 0)
        #expect(try r.read(2) == 0b10)
        #expect(try r.readFlag())
        #expect(try r.read(13) == 0x1ABC)
        #expect(r.bitsRemaining == 3)
        #expect(throws: MediaError.self) { try r.read(4) }
    }
}
