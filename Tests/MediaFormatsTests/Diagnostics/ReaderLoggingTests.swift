import Foundation
import Logging
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// The readers' diagnostics reach a `Logger` (message and metadata) and a pipeline's progress, with no
/// logger as well.
@Suite(.timeLimit(.minutes(2))) struct ReaderLoggingTests {
    /// A 16-bit mono 8 kHz WAV of 0.1 s (1600 data bytes) made by sox, cut to 800 data bytes: its header
    /// declares 1600 bytes at the `data` chunk (byte offset 36).
    static func cutWAV(in directory: TemporaryDirectory) throws -> String {
        let whole = directory.file("whole.wav")
        try ExternalTool.check("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", whole, "synth", "0.1", "sine", "440"])
        let bytes = try fileBytes(whole)
        try #require(bytes.count == 44 + 1600)
        let cut = directory.file("cut.wav")
        try Data(bytes.prefix(44 + 800)).write(to: URL(fileURLWithPath: cut))
        return cut
    }

    @Test func aWAVCutShortLogsDataBeyondEndOfFileWithItsOffset() throws {
        let directory = try TemporaryDirectory()
        let reader = try WAVReader(path: try Self.cutWAV(in: directory))
        let records = LogRecords()
        reader.logger = records.logger()  // the header's diagnostic is logged when the logger is set
        while try reader.next() != nil {}

        let record = try #require(records.all.only)
        #expect(record.level == .warning)
        #expect(record.metadata == ["stage": "WAVReader", "code": "dataBeyondEndOfFile", "byteOffset": "36"])
        #expect(record.message.hasPrefix("WAV 'data' chunk declares 1600 bytes"))
        #expect(record.message.hasSuffix("at byte offset 36."))
        #expect(reader.framesRead == 400)
    }

    @Test func aPipelineCountsTheWarningWithoutALoggerAndHandsItsLoggerToTheReader() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.cutWAV(in: directory)

        var silent = Pipeline(source: try WAVReader(path: path), sink: CollectingSink())
        let progress = try silent.run()
        #expect(progress.warningCount == 1)
        #expect(progress.warnings.map { $0[DiagnosticKey.code] } == ["dataBeyondEndOfFile"])
        #expect(progress.warnings.first?[DiagnosticKey.stage] == "WAVReader")

        let records = LogRecords()
        var logged = Pipeline(
            source: try WAVReader(path: path), sink: CollectingSink(), logger: records.logger(level: .warning))
        let counted = try logged.run()
        #expect(counted.warningCount == 1)
        #expect(records.with(code: "dataBeyondEndOfFile").map { $0.metadata["byteOffset"] } == ["36"])

        // A reader with a logger of its own keeps it: its warnings go there, not to the run's count.
        let own = LogRecords()
        let reader = try WAVReader(path: path)
        reader.logger = own.logger()
        var separate = Pipeline(source: reader, sink: CollectingSink(), logger: records.logger())
        #expect(try separate.run().warningCount == 0)
        #expect(own.all.count == 1 && records.all.count == 1)
    }

    @Test func anADTSStreamWithGarbageBetweenFramesLogsTheResynchronisation() throws {
        let directory = try TemporaryDirectory()
        let clean = try ffmpegADTS(in: directory)
        let frames = frameRanges(clean)
        try #require(frames.count == 48)
        let at = frames[10].upperBound  // 37 bytes with no sync word between frames 10 and 11
        let damaged = Array(clean[..<at]) + Array(repeating: 0x5A, count: 37) + Array(clean[at...])

        let reader = ADTSReader(bytes: damaged)
        let records = LogRecords()
        reader.logger = records.logger()
        var packets = 0
        while try reader.next() != nil { packets += 1 }

        #expect(packets == 48)
        #expect(reader.diagnostics == [.resynchronized(byteOffset: Int64(at), skippedBytes: 37)])
        let record = try #require(records.all.only)
        #expect(record.level == .warning)
        #expect(
            record.metadata == ["stage": "ADTSReader", "code": "resynchronized", "byteOffset": "\(at)", "count": "37"])
        #expect(record.message == "Skipped 37 bytes at byte offset \(at) to resynchronise to the next ADTS frame.")
    }

    @Test func aCleanStreamLogsNothing() throws {
        let directory = try TemporaryDirectory()
        let reader = ADTSReader(bytes: try ffmpegADTS(in: directory))
        let records = LogRecords()
        reader.logger = records.logger()
        while try reader.next() != nil {}
        #expect(records.all.isEmpty)
    }
}

extension Array {
    /// The element when there is exactly one.
    fileprivate var only: Element? { count == 1 ? first : nil }
}
