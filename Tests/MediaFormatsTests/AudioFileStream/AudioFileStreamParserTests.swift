import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// The stream parser's own part: recognising the file type, refusing what is none of the seven, and
/// the ADTS container (which wraps ``ADTSParser``), judged by ffprobe.
@Suite(.timeLimit(.minutes(2))) struct AudioFileStreamParserTests {
    @Test func anUnknownFileIsRefusedNamingItsFirstBytes() throws {
        let parse = try StreamParse.verified(Array("OggS\u{0}\u{2}garbage that is no audio file at all".utf8))
        let error = try #require(parse.error)
        #expect(error.code == .unsupportedFormat)
        #expect(error.byteOffset == 0)
        #expect(error.message.contains("'OggS'"))
        #expect(parse.events.isEmpty)
    }

    /// The first bytes of containers the parser does not read, and the name its error gives them.
    static let otherContainers: [([UInt8], String)] = {
        let mp4: [UInt8] = [0, 0, 0, 0x1C] + Array("ftypM4A ".utf8)
        let quickTime: [UInt8] = [0, 0, 0, 8] + Array("wide".utf8)
        let ogg: [UInt8] = Array("OggS".utf8) + [0, 2, 0, 0]
        let flac: [UInt8] = Array("fLaC".utf8) + [0, 0, 0, 0x22]
        let matroska: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81]
        let flv: [UInt8] = Array("FLV".utf8) + [1, 4, 0, 0, 0]
        let avi: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("AVI ".utf8)
        return [
            (mp4, "an MPEG-4 or QuickTime file"), (quickTime, "an MPEG-4 or QuickTime file"), (ogg, "an Ogg file"),
            (flac, "a FLAC file"), (matroska, "a Matroska or WebM file"), (flv, "an FLV file"),
            (avi, "a RIFF 'AVI ' file")
        ]
    }()

    /// A container the parser does not read is named, even when its payload holds MPEG audio headers
    /// that confirm each other (here eight 417-byte Layer III frames right after the container's header).
    @Test(arguments: otherContainers)
    func aContainerItDoesNotReadIsNamed(header: [UInt8], name: String) throws {
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)
        let frames = Array([[UInt8]](repeating: frame, count: 8).joined())
        let parse = try StreamParse.verified(header + [UInt8](repeating: 0, count: 24) + frames)
        let error = try #require(parse.error)
        #expect(error.code == .unsupportedFormat)
        #expect(error.byteOffset == 0)
        #expect(error.message.hasPrefix("\(name), which ContainerDemuxer reads"), "\(error.message)")
        #expect(parse.events.isEmpty)
    }

    @Test func anMPEGTSStreamIsNamedOnceThreePacketsHaveCome() throws {
        var packet = [UInt8](repeating: 0xFF, count: 188)
        packet[0] = 0x47
        let parse = try StreamParse.verified(Array([[UInt8]](repeating: packet, count: 4).joined()))
        #expect(parse.error?.message.hasPrefix("an MPEG-TS file") == true, "\(parse.error.map { "\($0)" } ?? "none")")
    }

    @Test func anEmptyFileIsRefused() throws {
        let parse = try StreamParse.verified([])
        #expect(parse.error?.code == .unsupportedFormat)
        #expect(parse.error?.message.contains("empty") == true)
    }

    @Test(arguments: [
        ("RIFF", [0, 0, 0, 0], "WAVE", AudioFileType.wave), ("RF64", [0xFF, 0xFF, 0xFF, 0xFF], "WAVE", .wave),
        ("BW64", [0xFF, 0xFF, 0xFF, 0xFF], "WAVE", .wave), ("FORM", [0, 0, 0, 4], "AIFF", .aiff),
        ("FORM", [0, 0, 0, 4], "AIFC", .aifc),
        ("caff", [0, 1, 0, 0], "desc", .caf), (".snd", [0, 0, 0, 24], "\u{0}\u{0}\u{0}\u{0}", .next)
    ])
    func theFileTypeComesFromTheMagicNumber(magic: String, size: [UInt8], form: String, type: AudioFileType) throws {
        var parser = AudioFileStreamParser()
        parser.push(Array(magic.utf8) + size + Array(form.utf8) + [UInt8](repeating: 0, count: 16))
        #expect(try parser.next() == .fileType(type))
        #expect(parser.fileType == type)
    }

    @Test func aRIFFFileOfAnotherFormIsNotWAVE() throws {
        let parse = try StreamParse.verified(Array("RIFF".utf8) + [4, 0, 0, 0] + Array("AVI LIST".utf8))
        #expect(parse.error?.code == .unsupportedFormat)
        #expect(parse.error?.message.contains("'RIFF'") == true)
    }

    @Test func aFrameHeaderAfterAnID3TagTellsADTSFromMP3() throws {
        let tag: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 5] + [UInt8](repeating: 0x41, count: 5)
        let adts: [UInt8] = [0xFF, 0xF1, 0x50, 0x80]
        let mp3: [UInt8] = [0xFF, 0xFB, 0x90, 0x64]
        var a = AudioFileStreamParser()
        a.push(tag + adts)
        #expect(try a.next() == .fileType(.adts))
        var m = AudioFileStreamParser()
        m.push(tag + mp3)
        #expect(try m.next() == .fileType(.mp3))
        var waiting = AudioFileStreamParser()
        waiting.push(tag)  // the frame after the tag has not arrived: no decision yet
        #expect(try waiting.next() == nil)
    }

    /// Two seconds of 44.1 kHz stereo AAC in ADTS, written by ffmpeg.
    static func ffmpegADTS(in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("tone.aac")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=2", "-ac", "2", "-c:a", "aac",
                "-b:a", "96k", "-f", "adts", path
            ])
        return path
    }

    @Test func adtsPropertiesAndPacketsAgreeWithFFprobe() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.ffmpegADTS(in: dir)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let parse = try StreamParse.verified(bytes, byteByByte: false, batching: .init(maxBytes: 4096, maxPackets: 7))
        #expect(parse.error == nil)
        #expect(parse.fileType == .adts)
        let format = try #require(parse.format)
        #expect(format.formatID == AudioStreamBasicDescription.mpeg4AAC)
        #expect(format.sampleRate == 44_100 && format.channelsPerFrame == 2 && format.framesPerPacket == 1024)
        #expect(parse.cookie == [0x12, 0x10])  // AAC-LC, 44.1 kHz, stereo
        #expect(parse.dataOffset == 0)
        #expect(parse.propertiesPrecedePackets)
        #expect(parse.packetCount == (try ffprobePacketCount(path)))
        #expect(parse.batches.allSatisfy { $0.packetCount <= 7 && ($0.bytes.count <= 4096 || $0.packetCount == 1) })
        // Packet i of the stream is the i-th frame without its 7-byte header.
        let frames = frameRanges(bytes)
        #expect(parse.packets == frames.map { Array(bytes[($0.lowerBound + 7)..<$0.upperBound]) })
        #expect(parse.batches.map(\.fileOffset) == parse.batches.map { Int64(frames[Int($0.firstPacket)].lowerBound) })
        #expect(parse.diagnostics.isEmpty)
    }

    @Test func garbageBetweenADTSFramesIsSkippedAndSaid() throws {
        let dir = try TemporaryDirectory()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try Self.ffmpegADTS(in: dir))))
        let frames = frameRanges(bytes)
        let cut = frames[10].lowerBound
        let garbage = [UInt8](repeating: 0x55, count: 333)
        let damaged = Array(bytes[..<cut]) + garbage + Array(bytes[cut...])
        let parse = try StreamParse.verified(damaged, byteByByte: false)
        #expect(parse.diagnostics == [.resynchronized(byteOffset: Int64(cut), skippedBytes: 333)])
        #expect(parse.packetCount == frames.count)
        let after = try #require(parse.batches.first { $0.firstPacket == 10 })
        #expect(after.isDiscontinuity)
        #expect(after.fileOffset == Int64(cut + 333))
    }

    @Test func theHLSSegmentsID3TagIsReportedAsATag() throws {
        let path = TestPaths.fixture("shaka-player_hls-raw-aac_fileSequence0.aac")
        let bytes = try fileBytes(path)
        let parse = try StreamParse.verified(bytes, byteByByte: false)
        guard case .tagSkipped(let kind, 0, let length) = try #require(parse.diagnostics.first) else {
            Issue.record("expected an ID3v2 tag at 0, got \(parse.diagnostics)")
            return
        }
        #expect(kind == "ID3v2")
        #expect(parse.dataOffset == length)
        #expect(parse.packetCount == (try ffprobePacketCount(path)))
    }

    @Test func seekingWithinWhatWasParsedIsExact() throws {
        let dir = try TemporaryDirectory()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try Self.ffmpegADTS(in: dir))))
        let frames = frameRanges(bytes)
        var parser = AudioFileStreamParser(batching: .init(maxPackets: 4))
        parser.push(bytes)
        parser.finish()
        var events: [AudioFileStreamEvent] = []
        while let event = try parser.next() { events.append(event) }
        let target = try parser.seek(toPacket: 50)
        #expect(target == AudioFileStreamSeekOffset(byteOffset: Int64(frames[50].lowerBound), isEstimated: false))
        parser.push(bytes[frames[50].lowerBound...])
        parser.finish()
        var batch: AudioFilePackets?
        while let event = try parser.next() {
            if case .packets(let b) = event { batch = b; break }
        }
        let first = try #require(batch)
        #expect(first.firstPacket == 50 && first.isDiscontinuity)
        #expect(
            Array(first.bytes[0..<first.descriptions[0].dataByteSize])
                == Array(bytes[(frames[50].lowerBound + 7)..<frames[50].upperBound]))
    }

    /// ffmpeg writes ALAC in CAF with the `pakt` after the `data`: the parser holds the audio until the
    /// table arrives, up to `maxHeldBytes`, and refuses past that with the offsets.
    @Test func audioHeldForALateChunkIsBounded() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("late-pakt.caf")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=1", "-c:a", "alac", "-f", "caf",
                path
            ])
        let bytes = try fileBytes(path)
        let held = try StreamParse.verified(bytes, byteByByte: false)
        #expect(held.error == nil)
        #expect(held.packetCount == (try ffprobePacketCount(path)))
        let refused = try StreamParse.verified(bytes, byteByByte: false, batching: .init(maxHeldBytes: 1000))
        let error = try #require(refused.error)
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("'pakt'") && error.message.contains("1000"))
        #expect(refused.batches.isEmpty)
    }
}
