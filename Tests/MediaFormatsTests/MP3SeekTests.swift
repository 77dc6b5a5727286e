import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// `AudioFileStreamSeek` on MP3: ``AudioFileStreamParser/seekOffset(forPacket:)`` then
/// ``AudioFileStreamParser/seek(toPacket:)`` and the bytes from the offset. After the seek the parser
/// confirms a chain again; the packets it delivers must be those of a full parse from where it really
/// landed (its first batch's `fileOffset`): exactly the packet asked for with constant-size frames, a
/// few packets away with a Xing TOC (the estimate), whose index the batch's `firstPacket` carries.
@Suite(.timeLimit(.minutes(2))) struct MP3SeekTests {
    /// Parses all of `bytes` (not finishing), seeks to `packet`, pushes the bytes from the offset (in
    /// pieces of `piece` bytes) and finishes: the offset and what came after the seek.
    static func seek(_ bytes: [UInt8], to packet: Int64, piece: Int = 1 << 20) throws -> (
        target: AudioFileStreamSeekOffset, after: MP3Parse
    ) {
        var parser = AudioFileStreamParser()
        parser.push(bytes)
        while try parser.next() != nil {}
        let target = try parser.seek(toPacket: packet)
        var after = MP3Parse()
        var start = Int(target.byteOffset)
        while start < bytes.count {
            parser.push(bytes[start..<min(bytes.count, start + piece)])
            start += piece
            while let event = try parser.next() { after.events.append(event) }
        }
        parser.finish()
        while let event = try parser.next() { after.events.append(event) }
        return (target, after)
    }

    /// Seeks to every `step`-th packet of `bytes` and checks the landing against the full parse; returns
    /// the landing errors (landed index − asked index).
    static func checkSeeks(_ bytes: [UInt8], step: Int, exact: Bool) throws -> [Int] {
        let full = MP3Test.parseOnce(bytes)
        #expect(full.error == nil)
        let packets = full.packets
        var errors: [Int] = []
        for k in stride(from: 0, to: packets.count, by: step) {
            let (target, after) = try seek(bytes, to: Int64(k))
            #expect(target.isEstimated == (!exact && k > 0), "packet \(k)")
            let first = try #require(after.batches.first, "packet \(k)")
            #expect(first.firstPacket == Int64(k) && first.isDiscontinuity)
            let landed = try #require(
                packets.firstIndex { $0.offset == first.fileOffset }, "packet \(k) landed on a frame")
            errors.append(landed - k)
            #expect(after.packets.map(\.bytes) == packets[landed...].map(\.bytes), "packet \(k)")
            let skipped = first.fileOffset - target.byteOffset
            #expect(
                after.resyncs
                    == (skipped > 0 ? [.resynchronized(byteOffset: target.byteOffset, skippedBytes: skipped)] : []))
            if exact { #expect(landed == k && skipped == 0, "packet \(k)") }
        }
        return errors
    }

    @Test func cbrWithoutPaddingSeeksExactly() throws {
        let dir = try TemporaryDirectory()
        // 128 kbit/s at 48 kHz: every frame 384 bytes, none padded. With LAME's Info frame.
        let (_, bytes) = try MP3Test.lame(dir, ["-b", "128"], rate: 48_000, seconds: 2)
        let errors = try Self.checkSeeks(bytes, step: 7, exact: true)
        #expect(errors.allSatisfy { $0 == 0 })
    }

    @Test(arguments: ["lame", "ffmpeg-mp2"])
    func paddedCBRSeeksToTheSamePacket(encoder: String) throws {
        let dir = try TemporaryDirectory()
        let bytes =
            encoder == "lame"
            ? try MP3Test.lame(dir, ["-b", "128"], seconds: 2).bytes
            : try MP3Test.ffmpeg(dir, ["-c:a", "mp2", "-b:a", "192k", "-f", "mp2"], seconds: 2, name: "x.mp2").bytes
        let errors = try Self.checkSeeks(bytes, step: 5, exact: false)
        #expect(errors.allSatisfy { $0 == 0 }, "padding only moves a frame by a byte: the estimate lands on it")
    }

    /// The Xing TOC of a 20 s LAME VBR file: the estimate lands within 3 packets of the target. The TOC's
    /// resolution is 1/256 of the file, so the error grows with the file: on a 3-minute -V2 file (6892
    /// packets, 4.3 MB, 17 KB per TOC step) it was within 29 packets (0.76 s), mean 8.3, measured at
    /// every 25th packet.
    @Test func xingTOCLandsNearTheTarget() throws {
        let dir = try TemporaryDirectory()
        let (_, bytes) = try MP3Test.lame(dir, ["-V2"], seconds: 20)
        let errors = try Self.checkSeeks(bytes, step: 37, exact: false)
        #expect(errors.count > 15)
        #expect(errors.allSatisfy { abs($0) <= 3 }, "\(errors)")
        // After a seek, the stream goes on in pieces just the same.
        let whole = try Self.seek(bytes, to: 300)
        let pieces = try Self.seek(bytes, to: 300, piece: 7)
        #expect(pieces.after.events == whole.after.events)
    }

    @Test func vbrWithoutATagSeeksByTheMeanFrameLength() throws {
        let dir = try TemporaryDirectory()
        let (_, bytes) = try MP3Test.lame(dir, ["-V2", "-t"], seconds: 6)
        let errors = try Self.checkSeeks(bytes, step: 23, exact: false)
        #expect(errors.allSatisfy { abs($0) <= 20 }, "\(errors)")
    }

    /// A VBRI header (Fraunhofer's table: each entry the bytes of a run of frames, from the VBRI frame's
    /// start), built over a LAME file's frames.
    @Test func vbriTableSeeks() throws {
        let dir = try TemporaryDirectory()
        let (_, audio) = try MP3Test.lame(dir, ["-V2", "-t"], seconds: 4)
        let frames = MP3Test.frames(audio, from: 0)
        // A 320 kbit/s (1044-byte) frame of the same stream for the header.
        let length = 1044
        var vbri = [UInt8](repeating: 0, count: length)
        vbri[0..<4] = [0xFF, 0xFB, 0xE0, audio[3]]
        let perEntry = 10
        let runs = stride(from: 0, to: frames.count, by: perEntry).map { start in
            frames[start..<min(frames.count, start + perEntry)].reduce(0) { $0 + $1.length } + (start == 0 ? length : 0)
        }
        func be(_ value: Int, _ bytes: Int) -> [UInt8] {
            (0..<bytes).reversed().map { UInt8((value >> (8 * $0)) & 0xFF) }
        }
        let header =
            Array("VBRI".utf8) + be(1, 2) + be(1105, 2) + be(75, 2) + be(audio.count + length, 4) + be(frames.count, 4)
            + be(runs.count, 2) + be(1, 2) + be(2, 2) + be(perEntry, 2) + runs.flatMap { be($0, 2) }
        vbri.replaceSubrange(36..<(36 + header.count), with: header)
        let bytes = vbri + audio

        let parse = try MP3Test.parse(bytes, byteByByte: false)
        #expect(parse.packetCount == Int64(frames.count))
        #expect(parse.byteCount == Int64(audio.count))
        #expect(parse.dataOffset == Int64(length))
        #expect(parse.packets.count == frames.count, "the VBRI frame is not a packet")
        let errors = try Self.checkSeeks(bytes, step: 13, exact: false)
        #expect(errors.allSatisfy { $0 == 0 || $0 == 1 }, "\(errors)")
    }

    @Test func noOffsetBeforeTheFormatIsKnownOrPastTheEnd() throws {
        let dir = try TemporaryDirectory()
        let (_, bytes) = try MP3Test.lame(dir, ["-V2"], seconds: 1)
        var parser = AudioFileStreamParser()
        parser.push(bytes.prefix(200))
        while try parser.next() != nil {}
        #expect(parser.seekOffset(forPacket: 0) == nil)
        #expect(throws: MediaError.self) { try parser.seek(toPacket: 3) }
        parser.push(bytes.dropFirst(200))
        while try parser.next() != nil {}
        let count = try #require(MP3Test.parseOnce(bytes).packetCount)
        #expect(parser.seekOffset(forPacket: count - 1) != nil)
        #expect(parser.seekOffset(forPacket: count) == nil)
        #expect(
            parser.seekOffset(forPacket: 0)
                == AudioFileStreamSeekOffset(byteOffset: MP3Test.parseOnce(bytes).dataOffset ?? -1, isEstimated: false))
    }
}
