import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Every reader on a 0-byte file and on a header-only file (a real header, written by sox or ffmpeg, cut
/// right after it). A 0-byte file is refused by every reader with a typed
/// ``MediaError``, as ffmpeg refuses each ("Invalid data found", "End of file"). A header-only file is
/// decided per format as ffmpeg and sox decide it:
/// - WAV, RF64, CAF, AIFF, AU, Y4M: a valid empty stream; ffmpeg reads 0 frames without an error (sox
///   warns about a WAV/AU header that promised more), so the readers end cleanly with zero samples.
/// - MP3 (an ID3v2 tag and no frame), ADTS (one 7-byte header), H.264 (SPS and PPS, no slice): no
///   stream; ffmpeg fails or finds no stream, so the readers throw a typed ``MediaError`` (the
///   FFmpeg demuxer may instead open with no stream, which is said plainly by an empty stream list).
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct EmptyAndHeaderOnlyInputTests {
    /// What reading a whole file gave.
    enum Outcome: Equatable, CustomStringConvertible {
        case samples(Int)
        case error(MediaError.Code)
        case noStream
        /// An error that is not a ``MediaError``: never acceptable.
        case untyped(String)

        var description: String {
            switch self {
            case .samples(let n): "\(n) samples"
            case .error(let code): "error \(code)"
            case .noStream: "no stream"
            case .untyped(let error): "untyped error \(error)"
            }
        }
    }

    /// One format: how to write a real file, where its header ends, whether a header-only file is an
    /// empty stream, and the readers that take it.
    struct Format: Sendable, CustomStringConvertible {
        let name: String
        let fileName: String
        let tool: (String, [String])
        let headerEnd: @Sendable ([UInt8]) -> Int?
        let headerOnlyIsEmptyStream: Bool
        let readers: [String]
        /// Readers that refuse a header-only file of an empty-stream format as cut short (`.truncated`).
        var truncatedBy: [String] = []
        var description: String { name }
    }

    static let audio = ["-v", "error", "-f", "lavfi", "-i", "sine=r=48000:d=0.1"]
    static let video = ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-frames:v", "3"]

    static let formats: [Format] = [
        Format(
            name: "WAV", fileName: "f.wav",
            tool: ("sox", ["-n", "-b", "16", "-c", "2", "-r", "48000", "OUT", "synth", "0.1"]),
            headerEnd: { after("data", 8, in: $0) }, headerOnlyIsEmptyStream: true,
            readers: ["WAVReader", "AudioFileReader", "ContainerDemuxer"]),
        Format(
            name: "RF64", fileName: "f.wav", tool: ("ffmpeg", audio + ["-rf64", "always", "OUT"]),
            headerEnd: { after("data", 8, in: $0) }, headerOnlyIsEmptyStream: true,
            readers: ["WAVReader", "AudioFileReader", "ContainerDemuxer"]),
        Format(
            name: "CAF", fileName: "f.caf", tool: ("ffmpeg", audio + ["OUT"]),
            headerEnd: { after("data", 16, in: $0) }, headerOnlyIsEmptyStream: true,
            readers: ["CAFReader", "AudioFileReader", "ContainerDemuxer"],
            // CAFReader refuses a file that ends before the data its 'data' chunk promised, as sox does
            // ("file is malformed"); AudioFileReader and ffmpeg read 0 frames.
            truncatedBy: ["CAFReader"]),
        Format(
            name: "AIFF", fileName: "f.aiff",
            tool: ("sox", ["-n", "-b", "16", "-c", "2", "-r", "48000", "OUT", "synth", "0.1"]),
            headerEnd: { after("SSND", 16, in: $0) }, headerOnlyIsEmptyStream: true,
            readers: ["AudioFileReader", "ContainerDemuxer"]),
        Format(
            name: "AU", fileName: "f.au",
            tool: ("sox", ["-n", "-b", "16", "-c", "2", "-r", "48000", "OUT", "synth", "0.1"]),
            headerEnd: { $0.count >= 8 ? Int($0[4]) << 24 | Int($0[5]) << 16 | Int($0[6]) << 8 | Int($0[7]) : nil },
            headerOnlyIsEmptyStream: true, readers: ["AudioFileReader", "ContainerDemuxer"]),
        Format(
            name: "MP3", fileName: "f.mp3", tool: ("ffmpeg", audio + ["-c:a", "libmp3lame", "OUT"]),
            headerEnd: {
                $0.count >= 10 ? 10 + (Int($0[6]) << 21 | Int($0[7]) << 14 | Int($0[8]) << 7 | Int($0[9])) : nil
            },
            headerOnlyIsEmptyStream: false, readers: ["AudioFileReader", "ContainerDemuxer"]),
        Format(
            name: "ADTS", fileName: "f.aac", tool: ("ffmpeg", audio + ["-c:a", "aac", "-f", "adts", "OUT"]),
            headerEnd: { _ in 7 }, headerOnlyIsEmptyStream: false,
            readers: ["ADTSReader", "AudioFileReader", "ContainerDemuxer"]),
        Format(
            name: "Annex-B", fileName: "f.h264", tool: ("ffmpeg", video + ["-c:v", "libx264", "-f", "h264", "OUT"]),
            headerEnd: { bytes in
                (try? AnnexBScanner.split(bytes).first { $0.header.nalUnitType.isVCL }).flatMap { $0 }.map {
                    Int($0.offset) - 4
                }
            },
            headerOnlyIsEmptyStream: false, readers: ["AnnexBReader", "ContainerDemuxer"]),
        Format(
            name: "Y4M", fileName: "f.y4m", tool: ("ffmpeg", video + ["-pix_fmt", "yuv420p", "OUT"]),
            headerEnd: { $0.firstIndex(of: 0x0A).map { $0 + 1 } }, headerOnlyIsEmptyStream: true,
            readers: ["Y4MReader", "ContainerDemuxer"])
    ]

    /// The index just past `count` bytes from where `tag` first occurs.
    static func after(_ tag: String, _ count: Int, in bytes: [UInt8]) -> Int? {
        let pattern = Array(tag.utf8)
        guard bytes.count >= pattern.count else { return nil }
        let start = (0...(bytes.count - pattern.count)).first { bytes[$0..<$0 + pattern.count].elementsEqual(pattern) }
        return start.map { $0 + count }
    }

    /// Reads the file at `path` with the reader named `reader` to its end (at most 10,000 samples).
    static func read(_ path: String, with reader: String) -> Outcome {
        do {
            let source: any MediaSource
            switch reader {
            case "WAVReader": source = try WAVReader(path: path)
            case "CAFReader": source = try CAFReader(path: path)
            case "AudioFileReader": source = try AudioFileReader(path: path)
            case "ADTSReader": source = try ADTSReader(path: path)
            case "AnnexBReader": source = try AnnexBReader(path: path)
            case "Y4MReader": source = try Y4MReader(path: path)
            default:
                let demuxer = try ContainerDemuxer(path: path)
                guard let stream = demuxer.streams.first else { return .noStream }
                source = try demuxer.source(stream: stream.index)
            }
            var reading = source
            var count = 0
            while count < 10_000, try reading.next() != nil { count += 1 }
            return .samples(count)
        } catch let error as MediaError {
            return .error(error.code)
        } catch {
            return .untyped("\(error)")
        }
    }

    @Test(arguments: formats)
    func emptyIsRefusedAndHeaderOnlyIsDecided(format: Format) throws {
        let dir = try TemporaryDirectory()
        let full = dir.file(format.fileName)
        try ExternalTool.check(format.tool.0, format.tool.1.map { $0 == "OUT" ? full : $0 })
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: full)))
        let headerEnd = try #require(format.headerEnd(bytes), "\(format): no header end")
        #expect(headerEnd > 0 && headerEnd < bytes.count, "\(format): header ends at \(headerEnd) of \(bytes.count)")
        let empty = dir.file("empty-" + format.fileName)
        try Data().write(to: URL(fileURLWithPath: empty))
        let header = dir.file("header-" + format.fileName)
        try Data(bytes.prefix(headerEnd)).write(to: URL(fileURLWithPath: header))

        for reader in format.readers {
            #expect(Self.read(full, with: reader).isSamples, "\(format) \(reader): the whole file reads")
            let emptyOutcome = Self.read(empty, with: reader)
            #expect(emptyOutcome.isError, "\(format) \(reader), 0 bytes: \(emptyOutcome)")
            let headerOutcome = Self.read(header, with: reader)
            if format.truncatedBy.contains(reader) {
                #expect(headerOutcome == .error(.truncated), "\(format) \(reader), header only: \(headerOutcome)")
            } else if format.headerOnlyIsEmptyStream {
                #expect(headerOutcome == .samples(0), "\(format) \(reader), header only: \(headerOutcome)")
            } else {
                #expect(
                    headerOutcome.isError || (reader == "ContainerDemuxer" && headerOutcome == .noStream),
                    "\(format) \(reader), header only: \(headerOutcome)")
            }
        }
    }
}

extension EmptyAndHeaderOnlyInputTests.Outcome {
    var isError: Bool { if case .error = self { true } else { false } }
    var isSamples: Bool { if case .samples(let n) = self { n > 0 } else { false } }
}
