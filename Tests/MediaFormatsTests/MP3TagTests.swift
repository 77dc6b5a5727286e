import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Tags in MP3 files: ID3v2 (with and without footer, unsynchronised), ID3v1 and APE at the end, tags
/// between frames. Each is skipped by its size with a `tagSkipped` diagnostic, never taken for damage
/// (no `resynchronized`, no `trailingBytesSkipped`), and the packets are the same as without it.
/// The synthetic tags are checked with ffprobe, which reads them, so that they are real tags.
@Suite(.timeLimit(.minutes(2))) struct MP3TagTests {
    /// A tagless LAME CBR file (1 s), its packets' bytes, and the directory.
    static func plain() throws -> (dir: TemporaryDirectory, bytes: [UInt8], packets: [[UInt8]]) {
        let dir = try TemporaryDirectory()
        let (_, bytes) = try MP3Test.lame(dir, ["-b", "64", "-t"], seconds: 1, name: "plain.mp3")
        let packets = MP3Test.frames(bytes, from: 0).map { Array(bytes[$0.offset..<($0.offset + $0.length)]) }
        return (dir, bytes, packets)
    }

    /// An ID3v2.4 tag with one `TIT2` frame of `title`; `footer` sets flag 0x10 and appends `3DI`;
    /// `unsynchronised` sets flag 0x80 (the size field still counts the bytes as stored).
    static func id3v2(title: String, footer: Bool = false, unsynchronised: Bool = false) -> [UInt8] {
        let text = [0x03] + Array(title.utf8)  // UTF-8 encoding byte
        let frame = Array("TIT2".utf8) + syncsafe(text.count) + [0, 0] + text
        let size = syncsafe(frame.count)
        let flags: UInt8 = (footer ? 0x10 : 0) | (unsynchronised ? 0x80 : 0)
        var tag = Array("ID3".utf8) + [4, 0, flags] + size + frame
        if footer { tag += Array("3DI".utf8) + [4, 0, flags] + size }
        return tag
    }

    static func syncsafe(_ n: Int) -> [UInt8] {
        [UInt8((n >> 21) & 0x7F), UInt8((n >> 14) & 0x7F), UInt8((n >> 7) & 0x7F), UInt8(n & 0x7F)]
    }

    /// An APE tag with a `Title` item, with or without its 32-byte header (the footer is always there);
    /// `version` 2000 (APEv2) or 1000 (APEv1, which has no header).
    static func ape(title: String, header: Bool, version: Int = 2000) -> [UInt8] {
        let value = Array(title.utf8)
        let item = le32(value.count) + le32(0) + Array("Title".utf8) + [0] + value
        let size = item.count + 32
        func block(isHeader: Bool) -> [UInt8] {
            let flags = (header ? UInt32(1) << 31 : 0) | (isHeader ? UInt32(1) << 29 : 0)
            return Array("APETAGEX".utf8) + le32(version) + le32(size) + le32(1) + le32(Int(flags))
                + [UInt8](repeating: 0, count: 8)
        }
        return (header ? block(isHeader: true) : []) + item + block(isHeader: false)
    }

    static func le32(_ n: Int) -> [UInt8] { (0..<4).map { UInt8((n >> (8 * $0)) & 0xFF) } }

    /// An ID3v1 tag with `title`.
    static func id3v1(title: String) -> [UInt8] {
        var tag = Array("TAG".utf8) + Array(title.utf8.prefix(30))
        tag += [UInt8](repeating: 0, count: 128 - tag.count - 1) + [12]
        return tag
    }

    /// The title mediainfo reads from `bytes` (saved as `name`): it reads APE tags (with a header),
    /// which ffprobe's MP3 demuxer ignores.
    static func mediainfoTitle(_ bytes: [UInt8], in dir: TemporaryDirectory, name: String) throws -> String {
        let path = dir.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try ExternalTool.check("mediainfo", ["--Output=General;%Title%", path]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// The title ffprobe reads from `bytes` (saved as `name`).
    static func ffprobeTitle(_ bytes: [UInt8], in dir: TemporaryDirectory, name: String) throws -> String? {
        let path = dir.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let json = try ExternalTool.ffprobeJSON(path, ["-show_format"])
        let tags = (json["format"] as? [String: Any])?["tags"] as? [String: Any]
        return (tags?["title"] ?? tags?["Title"] ?? tags?["TITLE"]) as? String
    }

    /// Parses `bytes` (drip-fed) and checks the common promises: no error, no damage reported, the
    /// packets of `packets`.
    static func parseClean(_ bytes: [UInt8], packets: [[UInt8]]) throws -> MP3Parse {
        let parse = try MP3Test.parse(bytes)
        #expect(parse.error == nil)
        #expect(
            parse.diagnostics.allSatisfy { if case .tagSkipped = $0 { true } else { false } }, "\(parse.diagnostics)")
        #expect(parse.packets.map(\.bytes) == packets)
        #expect(parse.batches.allSatisfy { !$0.isDiscontinuity })
        return parse
    }

    @Test func lameID3v2AndID3v1AreSkipped() throws {
        let dir = try TemporaryDirectory()
        let (path, bytes) = try MP3Test.lame(dir, ["-b", "64", "--add-id3v2", "--tt", "Both tags"], seconds: 1)
        let id3 = MP3Test.id3v2Length(bytes)
        #expect(id3 > 10)
        let frames = MP3Test.frames(bytes, from: id3).dropFirst()  // the Info frame
        let parse = try Self.parseClean(
            bytes, packets: frames.map { Array(bytes[$0.offset..<($0.offset + $0.length)]) })
        #expect(parse.tags.map(\.kind) == ["ID3v2", "ID3v1"])
        #expect(parse.tags.first.map { [$0.offset, $0.length] } == [0, Int64(id3)])
        #expect(parse.tags.last.map { [$0.offset, $0.length] } == [Int64(bytes.count - 128), 128])
        let tagStart: Int = bytes.count - 128
        #expect(Array(bytes[tagStart..<(tagStart + 3)]) == Array("TAG".utf8))
        #expect(parse.packets.count == (try MP3Test.probe(path).packets))
    }

    @Test func lameID3v1OnlyAtTheEndIsNotDamage() throws {
        let dir = try TemporaryDirectory()
        let (_, bytes) = try MP3Test.lame(dir, ["-V2", "--id3v1-only", "--tt", "Only v1"], seconds: 1)
        let frames = MP3Test.frames(bytes, from: 0).dropFirst()
        let parse = try Self.parseClean(
            bytes, packets: frames.map { Array(bytes[$0.offset..<($0.offset + $0.length)]) })
        #expect(parse.tags.map(\.kind) == ["ID3v1"])
        #expect(parse.tags.first?.offset == Int64(bytes.count - 128))
    }

    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func id3v2WithFooterOrUnsynchronisationIsSkippedBySize(footer: Bool, unsynchronised: Bool) throws {
        let (dir, plain, packets) = try Self.plain()
        let tag = Self.id3v2(title: "Footer test", footer: footer, unsynchronised: unsynchronised)
        let bytes = tag + plain
        if !unsynchronised { #expect(try Self.ffprobeTitle(bytes, in: dir, name: "id3.mp3") == "Footer test") }
        let parse = try Self.parseClean(bytes, packets: packets)
        #expect(parse.tags.map(\.length) == [Int64(tag.count)])
        #expect(Int64(MP3Test.id3v2Length(tag)) == Int64(tag.count), "the test's own reading of the size field agrees")
        #expect(parse.dataOffset == Int64(tag.count))
        #expect(parse.packets.first?.offset == Int64(tag.count))
    }

    /// APE tags: APEv2 with a header (which mediainfo reads back, so the fixture is a real tag), APEv2
    /// with only its footer, APEv1 (never a header). Without a header the tag can only be found from the
    /// end, once the input has ended; the last frame before it must still be a packet.
    @Test(arguments: [(true, 2000), (false, 2000), (false, 1000)])
    func apeAndID3v1AtTheEndAreTagsNotGarbage(apeHeader: Bool, version: Int) throws {
        let (dir, plain, packets) = try Self.plain()
        let ape = Self.ape(title: "APE title", header: apeHeader, version: version)
        let v1 = Self.id3v1(title: "v1 title")
        let bytes = plain + ape + v1
        if apeHeader { #expect(try Self.mediainfoTitle(plain + ape, in: dir, name: "ape.mp3") == "APE title") }
        #expect(try Self.ffprobeTitle(plain + v1, in: dir, name: "v1.mp3") == "v1 title")
        let parse = try Self.parseClean(bytes, packets: packets)
        let kind = version == 1000 ? "APEv1" : "APEv2"
        #expect(parse.tags.map(\.kind) == [kind, "ID3v1"])
        #expect(parse.tags.map(\.offset) == [Int64(plain.count), Int64(plain.count + ape.count)])
        #expect(parse.tags.map(\.length) == [Int64(ape.count), 128])

        // APE alone at the very end.
        let apeOnly = try Self.parseClean(plain + ape, packets: packets)
        #expect(apeOnly.tags.map(\.kind) == [kind])
        #expect(apeOnly.tags.first?.length == Int64(ape.count))
    }

    @Test func lyrics3AndAPEBeforeID3v1AreTags() throws {
        let (_, plain, packets) = try Self.plain()
        let body = Array("LYRICSBEGININD00002  EAL00005Title".utf8)
        let lyrics = body + Array(String(format: "%06d", body.count).utf8) + Array("LYRICS200".utf8)
        let ape = Self.ape(title: "APE", header: false)
        let bytes = plain + lyrics + ape + Self.id3v1(title: "v1")
        let parse = try Self.parseClean(bytes, packets: packets)
        #expect(parse.tags.map(\.kind) == ["Lyrics3v2", "APEv2", "ID3v1"])
        let (lyricsAt, apeAt): (Int64, Int64) = (Int64(plain.count), Int64(plain.count + lyrics.count))
        let id3v1At: Int64 = apeAt + Int64(ape.count)
        #expect(parse.tags.map(\.offset) == [lyricsAt, apeAt, id3v1At])
    }

    @Test func id3v2BetweenFramesIsSkippedWithoutALossOfSync() throws {
        let (_, plain, packets) = try Self.plain()
        let frames = MP3Test.frames(plain, from: 0)
        let cut = frames[10].offset
        let tag = Self.id3v2(title: "Chapter 2", footer: true)
        let bytes = Array(plain[..<cut]) + tag + Array(plain[cut...])
        let parse = try Self.parseClean(bytes, packets: packets)
        #expect(parse.tags.map(\.offset) == [Int64(cut)])
        #expect(parse.packets[10].offset == Int64(cut + tag.count))
        #expect(parse.batches.first?.packetCount == 10, "a tag ends a batch, so its diagnostic is in order")
    }

    @Test func aTagThatRunsPastTheEndIsReported() throws {
        let (_, plain, packets) = try Self.plain()
        // An ID3v2 header after the audio that declares 5000 bytes; 20 follow.
        let bytes = plain + Array("ID3".utf8) + [3, 0, 0] + Self.syncsafe(5000) + [UInt8](repeating: 0x20, count: 20)
        let parse = try MP3Test.parse(bytes)
        #expect(parse.error == nil)
        #expect(parse.packets.map(\.bytes) == packets)
        #expect(
            parse.diagnostics.last
                == .note("The ID3v2 tag declares 5010 bytes but the file ends after 30", byteOffset: Int64(plain.count))
        )

        // Before any audio, the same is an error: the file ends inside its tag.
        let only = try MP3Test.parse(Array(bytes[plain.count...]), hint: .mp3)
        #expect(only.error?.code == .truncated)
        #expect(only.error?.byteOffset == 0)
    }
}
