import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport

/// What the parser produced from one input: the packets, the diagnostics and the error that ended it.
struct ParseOutcome: Equatable {
    var packets: [MediaSample] = []
    var diagnostics: [ADTSDiagnostic] = []
    var error: MediaError?
    var bytesConsumed: Int64 = 0
}

/// What is compared of an ``ADTSParser`` at the end besides its packets.
struct ADTSParserState: Equatable {
    var diagnostics: [ADTSDiagnostic]
    var bytesConsumed: Int64

    init(_ parser: ADTSParser) {
        diagnostics = parser.diagnostics
        bytesConsumed = parser.bytesConsumed
    }
}

/// Parses `bytes` with ``ADTSParser`` whole, byte by byte and in random splits
/// (``PushParserVerifier``), checks that all give the same packets, error, diagnostics and byte count,
/// and returns them.
func parseADTS(_ bytes: [UInt8]) throws -> ParseOutcome {
    let outcome = try PushParserVerifier.verify(bytes) {
        ADTSParser()
    } state: {
        ADTSParserState($0)
    }
    return ParseOutcome(
        packets: outcome.outputs, diagnostics: outcome.state.diagnostics, error: outcome.error,
        bytesConsumed: outcome.state.bytesConsumed)
}

/// The byte ranges of the frames of a clean ADTS stream starting at `start`, found by following each
/// header's `aac_frame_length` (13 bits from bit 30), independently of the parser under test.
func frameRanges(_ bytes: [UInt8], from start: Int = 0) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var p = start
    while p + 7 <= bytes.count, bytes[p] == 0xFF, bytes[p + 1] & 0xF0 == 0xF0 {
        let length = Int(bytes[p + 3] & 0x03) << 11 | Int(bytes[p + 4]) << 3 | Int(bytes[p + 5]) >> 5
        guard length >= 7, p + length <= bytes.count else { break }
        ranges.append(p..<p + length)
        p += length
    }
    return ranges
}

/// The bytes of a file.
func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Encodes one second of a 440 Hz sine with FFmpeg's AAC encoder into an ADTS file in `directory`
/// and returns its bytes.
func ffmpegADTS(
    in directory: TemporaryDirectory, name: String = "ffmpeg.aac", sampleRate: Int = 48_000, channels: Int = 2,
    extra: [String] = []
) throws -> [UInt8] {
    let path = directory.file(name)
    try ExternalTool.check(
        "ffmpeg",
        [
            "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=\(sampleRate)", "-ac", "\(channels)", "-t", "1",
            "-c:a", "aac", "-b:a", "128k"
        ] + extra + ["-f", "adts", path])
    return try fileBytes(path)
}

/// The extradata (AudioSpecificConfig) FFmpeg's AAC encoder writes for the same settings as
/// ``ffmpegADTS(in:name:sampleRate:channels:extra:)``, read back with `ffprobe -show_data` from an MP4.
func ffmpegExtradata(in directory: TemporaryDirectory, sampleRate: Int = 48_000, channels: Int = 2) throws -> [UInt8] {
    let path = directory.file("extradata-\(sampleRate)-\(channels).m4a")
    try ExternalTool.check(
        "ffmpeg",
        [
            "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=\(sampleRate)", "-ac", "\(channels)", "-t", "0.1",
            "-c:a", "aac", "-b:a", "128k", path
        ])
    let json = try ExternalTool.ffprobeJSON(path, ["-show_streams", "-show_data"])
    guard let streams = json["streams"] as? [[String: Any]], let stream = streams.first else { return [] }
    // "\n00000000: 1190 56e5 00                             ..V..\n": hex groups after the offset,
    // before the two-space gap that precedes the ASCII column.
    guard let dump = stream["extradata"] as? String else { return [] }
    var bytes: [UInt8] = []
    for line in dump.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let hex = line[line.index(after: colon)...].dropFirst().components(separatedBy: "  ").first ?? ""
        let digits = hex.filter { !$0.isWhitespace }
        var index = digits.startIndex
        while let next = digits.index(index, offsetBy: 2, limitedBy: digits.endIndex), index < digits.endIndex {
            if let byte = UInt8(digits[index..<next], radix: 16) { bytes.append(byte) }
            index = next
        }
    }
    return bytes
}

/// An AAC packet of `payload` with the format of `config`.
func aacPacket(_ payload: [UInt8], config: AudioSpecificConfig, index: Int64 = 0) -> MediaSample {
    MediaSample(
        format: .audio(config.audioFormat), data: payload,
        timing: .audio(startFrame: index * 1024, frameCount: 1024, sampleRate: config.sampleRate), frameCount: 1024)
}

/// The `aac_frame_length` field of the header at `offset`, replaced by `length`.
func settingFrameLength(_ bytes: [UInt8], at offset: Int, to length: Int) -> [UInt8] {
    var copy = bytes
    copy[offset + 3] = copy[offset + 3] & 0xFC | UInt8((length >> 11) & 0x03)
    copy[offset + 4] = UInt8((length >> 3) & 0xFF)
    copy[offset + 5] = copy[offset + 5] & 0x1F | UInt8((length & 0x07) << 5)
    return copy
}
