import Foundation
import Logging
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// One diagnostic type for every reader: ``DiagnosticListing/mediaDiagnostics`` of the WAV, ADTS, CAF
/// and audio-file readers, handled by one function over `any DiagnosticListing`, is what each logs, in
/// order, with the codes and byte offsets of the damage made here.
@Suite(.timeLimit(.minutes(2))) struct DiagnosticListingTests {
    /// Reads `reader` to its end with a logger set, and returns what it lists and what it logged, each
    /// as (code, byte offset, message).
    static func listedAndLogged(_ reader: any DiagnosticListing & MediaSource) throws -> (
        listed: [String], logged: [String]
    ) {
        let records = LogRecords()
        reader.logger = records.logger(level: .trace)
        var source = reader
        while try source.next() != nil {}
        let listed = reader.mediaDiagnostics.map { "\($0.code ?? "-")@\($0.byteOffset ?? -1): \($0.message)" }
        let logged = records.all.map {
            "\($0.metadata[DiagnosticKey.code] ?? "-")@\($0.metadata[DiagnosticKey.byteOffset] ?? "-1"): \($0.message)"
        }
        return (listed, logged)
    }

    @Test func aWAVCutShortListsWhatItLogs() throws {
        let directory = try TemporaryDirectory()
        let reader = try WAVReader(path: try ReaderLoggingTests.cutWAV(in: directory))
        let (listed, logged) = try Self.listedAndLogged(reader)
        #expect(listed == logged)
        #expect(listed.count == 1 && listed[0].hasPrefix("dataBeyondEndOfFile@36: "))
    }

    @Test func anADTSStreamWithGarbageListsWhatItLogs() throws {
        let directory = try TemporaryDirectory()
        let clean = try ffmpegADTS(in: directory)
        let at = frameRanges(clean)[10].upperBound
        let damaged = Array(clean[..<at]) + Array(repeating: 0x5A, count: 37) + Array(clean[at...])
        let (listed, logged) = try Self.listedAndLogged(ADTSReader(bytes: damaged))
        #expect(listed == logged)
        #expect(listed.first?.hasPrefix("resynchronized@\(at): ") == true)
    }

    @Test func theSameADTSDamageThroughTheAudioFileReaderHasTheSameCodeAndOffset() throws {
        let directory = try TemporaryDirectory()
        let clean = try ffmpegADTS(in: directory)
        let at = frameRanges(clean)[10].upperBound
        let path = directory.file("damaged.aac")
        try Data(Array(clean[..<at]) + Array(repeating: 0x5A, count: 37) + Array(clean[at...])).write(
            to: URL(fileURLWithPath: path))
        let (listed, logged) = try Self.listedAndLogged(AudioFileReader(path: path))
        #expect(listed == logged)
        #expect(listed.contains { $0.hasPrefix("resynchronized@\(at): ") }, "\(listed)")
    }

    @Test func aCAFWithAnOpenDataSizeListsWhatItLogs() throws {
        var bytes = try CAFAnnexBLoggingTests.pcmCAF()
        let data = try #require(try CAFReader(bytes: bytes).chunks.first { $0.type == "data" })
        for index in 0..<8 { bytes[Int(data.offset) + 4 + index] = 0xFF }  // mChunkSize -1
        let (listed, logged) = try Self.listedAndLogged(CAFReader(bytes: bytes))
        #expect(listed == logged)
        #expect(listed.contains { $0.hasPrefix("openDataSize@\(data.offset): ") }, "\(listed)")
    }
}
