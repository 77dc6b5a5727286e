import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Damaged MP3 files: garbage between frames and before the first, damaged headers, cut-off files, the
/// free format and Layer I (refused), streams that change format, input with no frame at all. Every
/// outcome is checked against the frames an independent header walk finds in the undamaged file, and
/// goes through the drip-feed verifier (the same events and errors however the input is split).
@Suite(.timeLimit(.minutes(2))) struct MP3DamageTests {
    /// A tagless LAME file of `seconds` (`arguments` as for lame) and its frames.
    static func clean(_ arguments: [String] = ["-V4", "-t"], seconds: Double = 1) throws -> (
        bytes: [UInt8], frames: [(offset: Int, length: Int)]
    ) {
        let dir = try TemporaryDirectory()
        let (_, bytes) = try MP3Test.lame(dir, arguments, seconds: seconds)
        let frames = MP3Test.frames(bytes, from: 0)
        #expect(frames.last.map { $0.offset + $0.length } == bytes.count)
        return (bytes, frames)
    }

    /// `count` pseudo-random bytes (a fixed LCG, so that failures reproduce), with a fake frame header
    /// at the start when `fakeHeader`.
    static func garbage(_ count: Int, seed: UInt64, fakeHeader: Bool = false) -> [UInt8] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1
        var bytes = (0..<count).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        if fakeHeader && count >= 4 { bytes.replaceSubrange(0..<4, with: [0xFF, 0xFB, 0x90, 0x64]) }
        return bytes
    }

    static func slice(_ bytes: [UInt8], _ frame: (offset: Int, length: Int)) -> [UInt8] {
        Array(bytes[frame.offset..<(frame.offset + frame.length)])
    }

    /// Garbage after frame `frameIndex - 1`: nothing confirms that frame, so it is dropped with the
    /// garbage (its header cannot be told from a false one), and the skipped count is both. Garbage that
    /// starts with a header of the stream confirms the frame before it, and only the garbage is skipped.
    @Test(arguments: [(5, 1, false), (12, 37, false), (20, 700, true), (30, 3000, true), (25, 2, true)])
    func garbageBetweenFramesIsSkippedExactly(frameIndex: Int, count: Int, fakeHeader: Bool) throws {
        let (clean, frames) = try Self.clean()
        let at = frames[frameIndex].offset
        let bytes =
            Array(clean[..<at]) + Self.garbage(count, seed: UInt64(count), fakeHeader: fakeHeader) + Array(clean[at...])
        let parse = try MP3Test.parse(bytes)
        #expect(parse.error == nil)
        let lost = fakeHeader && count >= 4 ? nil : frameIndex - 1
        let from = lost.map { frames[$0].offset } ?? at
        #expect(parse.diagnostics == [.resynchronized(byteOffset: Int64(from), skippedBytes: Int64(at + count - from))])
        var expected = frames.map { Self.slice(clean, $0) }
        if let lost { expected.remove(at: lost) }
        #expect(parse.packets.map(\.bytes) == expected)
        let after = try #require(parse.batches.first { $0.fileOffset == Int64(at + count) })
        #expect(after.isDiscontinuity && after.firstPacket == Int64(expected.count - (frames.count - frameIndex)))
        #expect(parse.batches.filter(\.isDiscontinuity).count == 1)
    }

    @Test func aStreamJoinedMidFrameStartsAtTheNextConfirmedFrame() throws {
        let (clean, frames) = try Self.clean()
        let cut = frames[3].offset + 100
        let parse = try MP3Test.parse(Array(clean[cut...]), hint: .mp3)
        #expect(parse.error == nil)
        #expect(parse.diagnostics == [.resynchronized(byteOffset: 0, skippedBytes: Int64(frames[4].offset - cut))])
        #expect(parse.dataOffset == Int64(frames[4].offset - cut))
        #expect(parse.packets.map(\.bytes) == frames.dropFirst(4).map { Self.slice(clean, $0) })
    }

    /// An ADTS sync pattern in the bytes skipped before the first whole frame (about one random position
    /// in 20,000 has one) does not make the stream ADTS: the type sniffer's scan takes a header only when
    /// another of its type follows where its length says, and an MP3 hint makes it look for MP3 only.
    @Test(arguments: [nil, AudioFileType.mp3])
    func anADTSPatternInTheSkippedBytesIsNotTakenForADTS(hint: AudioFileType?) throws {
        let (clean, frames) = try Self.clean()
        let cut = frames[3].offset + 100
        var bytes = Array(clean[cut...])
        #expect(frames[4].offset - cut > 140)
        // AAC LC, 44.1 kHz, stereo, a 128-byte frame, whose follower's place holds no header.
        bytes.replaceSubrange(10..<17, with: [0xFF, 0xF1, 0x50, 0x80, 0x10, 0x1F, 0xFC])
        bytes[138] = 0
        let parse = try MP3Test.parse(bytes, hint: hint)
        #expect(parse.error == nil)
        #expect(parse.diagnostics == [.resynchronized(byteOffset: 0, skippedBytes: Int64(frames[4].offset - cut))])
        #expect(parse.packets.map(\.bytes) == frames.dropFirst(4).map { Self.slice(clean, $0) })
    }

    /// A damaged bit-rate index makes the header claim another length: the next header is not where it
    /// says, so the frame is dropped and the parser resynchronises at the next one.
    @Test(arguments: [0xE0, 0x60, 0x10] as [UInt8])
    func aDamagedBitRateCostsOneFrame(bitRateBits: UInt8) throws {
        let (clean, frames) = try Self.clean(["-b", "128", "-t"])
        let k = 15
        var bytes = clean
        bytes[frames[k].offset + 2] = bytes[frames[k].offset + 2] & 0x0F | bitRateBits
        let parse = try MP3Test.parse(bytes)
        #expect(
            parse.diagnostics == [
                .resynchronized(byteOffset: Int64(frames[k].offset), skippedBytes: Int64(frames[k].length))
            ])
        var expected = frames.map { Self.slice(clean, $0) }
        expected.remove(at: k)
        #expect(parse.packets.map(\.bytes) == expected)
    }

    @Test func freeFormatIsRefusedWithItsOffset() throws {
        let (clean, _) = try Self.clean(["-b", "128", "-t"])
        let tag = MP3TagTests.id3v2(title: "Free")
        var bytes = tag + clean
        bytes[tag.count + 2] &= 0x0F  // bit-rate index 0
        let parse = try MP3Test.parse(bytes)
        #expect(parse.error?.code == .unsupportedFormat)
        #expect(parse.error?.byteOffset == Int64(tag.count))
        #expect(parse.error?.message.contains("free-format") == true)
    }

    @Test func layerIIsRefused() throws {
        // MPEG-1 Layer I, 128 kbit/s, 44.1 kHz, no CRC, silent: (12 * 128000 / 44100) * 4 = 136 bytes.
        let frame = [0xFF, 0xFF, 0x40, 0xC0] + [UInt8](repeating: 0, count: 132)
        let bytes = Array([[UInt8]](repeating: frame, count: 12).joined())
        let dir = try TemporaryDirectory()
        let path = dir.file("layer1.mp1")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try MP3Test.probe(path).codec == "mp1", "ffprobe sees a Layer I stream")
        let parse = try MP3Test.parse(bytes)
        #expect(parse.error?.code == .unsupportedFormat)
        #expect(parse.error?.byteOffset == 0)
    }

    @Test func noFrameAtAllIsInvalidData() throws {
        let parse = try MP3Test.parse(Self.garbage(3000, seed: 9), hint: .mp3)
        #expect(parse.error?.code == .invalidData)
        #expect(parse.events == [.fileType(.mp3)])
        let empty = try MP3Test.parse([], hint: .mp3)
        #expect(empty.error?.code == .invalidData)
        let lone = try MP3Test.parse([0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 100), hint: .mp3)
        #expect(lone.error?.code == .truncated, "a first frame cut off by the end")
        #expect(lone.error?.byteOffset == 0)
    }

    @Test func garbageAtTheEndIsTrailingBytes() throws {
        let (clean, frames) = try Self.clean()
        let junk = Self.garbage(333, seed: 4)
        let parse = try MP3Test.parse(clean + junk)
        let last = try #require(frames.last)
        #expect(
            parse.diagnostics == [
                .trailingBytesSkipped(byteOffset: Int64(last.offset), count: Int64(last.length + 333))
            ])
        #expect(parse.packets.count == frames.count - 1, "nothing confirms the last frame")
        // Fewer than a header's bytes after the last frame: a next frame cut off, not damage.
        let stray = try MP3Test.parse(clean + [0xFF, 0xFB])
        #expect(stray.diagnostics == [.trailingBytesSkipped(byteOffset: Int64(clean.count), count: 2)])
        #expect(stray.packets.count == frames.count)
    }

    /// The file cut at many offsets: never a crash, the packets a prefix of the whole file's, the
    /// cut-off frame reported with its declared and available sizes.
    @Test func cutAtManyOffsets() throws {
        let dir = try TemporaryDirectory()
        let (_, bytes) = try MP3Test.lame(dir, ["-V2", "--add-id3v2", "--tt", "Cut"], seconds: 1)
        let id3 = MP3Test.id3v2Length(bytes)
        let frames = MP3Test.frames(bytes, from: id3)
        let whole = MP3Test.parseOnce(bytes).packets.map(\.bytes)
        var cuts = Array(stride(from: 0, to: bytes.count, by: 53))
        cuts += frames.prefix(8).flatMap { frame in
            let (at, length) = (frame.offset, frame.length)
            return [at, at + 1, at + 3, at + 4, at + length - 1]
        }
        for cut in cuts {
            let parse = MP3Test.parseOnce(Array(bytes[..<cut]))
            if let error = parse.error {
                #expect(error.byteOffset != nil, "cut at \(cut): \(error)")
                continue
            }
            let packets = parse.packets.map(\.bytes)
            #expect(Array(whole.prefix(packets.count)) == packets, "cut at \(cut)")
            guard let k = frames.firstIndex(where: { $0.offset < cut && cut < $0.offset + $0.length }), k >= 4 else {
                continue
            }
            let inside = cut - frames[k].offset
            #expect(packets.count == k - 1, "cut at \(cut): the frames before the cut one, without the Info frame")
            let expected: AudioFileStreamDiagnostic =
                inside >= 4
                ? .truncatedPacket(byteOffset: Int64(frames[k].offset), declared: frames[k].length, available: inside)
                : .trailingBytesSkipped(byteOffset: Int64(frames[k].offset), count: Int64(inside))
            #expect(parse.diagnostics.last == expected, "cut at \(cut)")
        }
        // A few cuts through the drip-feed verifier: the same outcome however the input is split.
        for cut in [frames[6].offset + 200, frames[9].offset + 2, id3 + 5] {
            _ = try MP3Test.parse(Array(bytes[..<cut]), byteByByte: cut < 20_000)
        }
    }

    @Test func aStreamThatChangesFormatGetsANewDataFormat() throws {
        let dir = try TemporaryDirectory()
        let first = try MP3Test.lame(dir, ["-b", "128", "-t"], rate: 44_100, channels: 2, seconds: 0.5, name: "a.mp3")
            .bytes
        let second = try MP3Test.lame(
            dir, ["-b", "64", "-t", "-m", "m"], rate: 32_000, channels: 1, seconds: 0.5, name: "b.mp3"
        ).bytes
        let parse = try MP3Test.parse(first + second)
        #expect(parse.error == nil)
        #expect(parse.diagnostics.isEmpty)
        let formats = parse.events.compactMap { if case .dataFormat(let f) = $0 { f } else { nil } }
        #expect(formats.map(\.sampleRate) == [44_100, 32_000])
        #expect(formats.map(\.channelsPerFrame) == [2, 1])
        let layouts = parse.events.compactMap { if case .channelLayout(let l) = $0 { l } else { nil } }
        #expect(layouts == [.stereo, .mono])
        let a = MP3Test.frames(first, from: 0).count, b = MP3Test.frames(second, from: 0).count
        #expect(parse.packets.count == a + b)
        #expect(parse.batches.contains { $0.firstPacket == Int64(a) }, "a batch starts with the new format")
    }
}
