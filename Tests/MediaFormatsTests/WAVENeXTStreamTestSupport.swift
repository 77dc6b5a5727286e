import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// What ``AudioFileStreamParser`` reported for one file, sorted by kind (the last value of each property).
struct StreamReport {
    /// Every event, in order.
    var events: [AudioFileStreamEvent] = []
    /// The error that ended the parse, if any.
    var error: MediaError?
    var fileType: AudioFileType?
    var format: AudioStreamBasicDescription?
    var layout: ChannelLayout?
    var dataOffset: Int64?
    var byteCount: Int64?
    var packetCount: Int64?
    var packetTable: AudioFilePacketTableInfo?
    var maximumPacketSize: Int?
    var bitRate: Int?
    var batches: [AudioFilePackets] = []
    var diagnostics: [AudioFileStreamDiagnostic] = []
    /// The names of the events that are not packets or diagnostics, in order.
    var propertyOrder: [String] = []

    /// The report of `events`, ended by `error`.
    init(_ events: [AudioFileStreamEvent], error: MediaError? = nil) {
        self.events = events
        self.error = error
        for event in events {
            switch event {
            case .fileType(let t): fileType = t; propertyOrder.append("fileType")
            case .dataFormat(let f): format = f; propertyOrder.append("dataFormat")
            case .channelLayout(let l): layout = l; propertyOrder.append("channelLayout")
            case .magicCookie: propertyOrder.append("magicCookie")
            case .dataOffset(let o): dataOffset = o; propertyOrder.append("dataOffset")
            case .audioDataByteCount(let c): byteCount = c; propertyOrder.append("audioDataByteCount")
            case .audioDataPacketCount(let c): packetCount = c; propertyOrder.append("audioDataPacketCount")
            case .packetTableInfo(let t): packetTable = t; propertyOrder.append("packetTableInfo")
            case .maximumPacketSize(let s): maximumPacketSize = s; propertyOrder.append("maximumPacketSize")
            case .bitRate(let r): bitRate = r; propertyOrder.append("bitRate")
            case .readyToProducePackets: propertyOrder.append("readyToProducePackets")
            case .packets(let p): batches.append(p)
            case .diagnostic(let d): diagnostics.append(d)
            }
        }
    }

    /// The packets' bytes, concatenated.
    var packetBytes: [UInt8] { batches.flatMap(\.bytes) }
    /// The packets in all batches.
    var packets: Int64 { batches.reduce(0) { $0 + Int64($1.packetCount) } }
    /// The frames in all batches.
    var frames: Int64 { batches.reduce(0) { $0 + $1.frameCount } }
    /// The diagnostics other than skipped chunks.
    var otherDiagnostics: [AudioFileStreamDiagnostic] {
        diagnostics.filter { if case .chunkSkipped = $0 { false } else { true } }
    }
}

/// Helpers for the WAVE and NeXT stream parser tests: making files with ffmpeg, sox and libsndfile,
/// parsing them (drip-fed), and what ffprobe and sndfile-info say about them.
enum WAVENeXTStreamTest {
    /// The properties in the order every constant-bit-rate file reports them (without the optional ones).
    static func expectedOrder(byteCount: Bool = true, packetCount: Bool = true, packetTable: Bool = false) -> [String] {
        ["fileType", "dataFormat", "channelLayout", "dataOffset"] + (byteCount ? ["audioDataByteCount"] : [])
            + (packetCount ? ["audioDataPacketCount"] : []) + (packetTable ? ["packetTableInfo"] : [])
            + ["maximumPacketSize", "bitRate", "readyToProducePackets"]
    }

    /// `bytes` parsed whole, byte by byte and in random splits (which must agree), as the whole parse reports it.
    static func verified(
        _ bytes: [UInt8], byteByByte: Bool = true, seeds: [UInt64] = PushParserVerifier.standardSeeds,
        batching: AudioFileStreamParser.Batching = .init()
    ) throws -> StreamReport {
        let outcome = try PushParserVerifier.verify(bytes, seeds: seeds, byteByByte: byteByByte) {
            AudioFileStreamParser(batching: batching)
        }
        return StreamReport(outcome.outputs, error: outcome.error)
    }

    /// `bytes` parsed in one push.
    static func parsed(_ bytes: [UInt8], batching: AudioFileStreamParser.Batching = .init()) -> StreamReport {
        var parser = AudioFileStreamParser(batching: batching)
        var events: [AudioFileStreamEvent] = []
        parser.push(bytes)
        parser.finish()
        do {
            while let event = try parser.next() { events.append(event) }
        } catch {
            return StreamReport(events, error: error)
        }
        return StreamReport(events)
    }

    /// `ffmpeg` making `frames` frames of seeded noise at `rate` Hz in `channels` channels with `codec`.
    static func ffmpegNoise(
        _ path: String, codec: String, rate: Int = 8_000, channels: Int = 2, frames: Int = 1001, extra: [String] = []
    ) throws {
        try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "anoisesrc=r=\(rate):a=0.5:seed=7",
                "-af", "atrim=end_sample=\(frames)", "-ac", String(channels), "-c:a", codec
            ] + extra + [path])
    }

    /// `sox` making a `seconds`-long tone in `path` with the output options `options` (`-e u-law` …).
    static func soxTone(
        _ path: String, options: [String], rate: Int = 8_000, channels: Int = 1, seconds: String = "0.1251"
    ) throws {
        try ExternalTool.check(
            "sox",
            ["-n", "-r", String(rate), "-c", String(channels)] + options + [path, "synth", seconds, "sine", "440"])
    }

    /// `sndfile-convert <options> from to`.
    static func sndfileConvert(_ from: String, _ to: String, _ options: [String]) throws {
        try ExternalTool.check("sndfile-convert", options + [from, to])
    }

    /// ffprobe's first stream and the position of its first packet (the data offset), from one run.
    static func probe(_ path: String) throws -> (stream: [String: Any], firstPacketPosition: Int64) {
        let json = try ExternalTool.ffprobeJSON(path, ["-show_streams", "-show_packets", "-read_intervals", "%+#1"])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        let packets = try #require(json["packets"] as? [[String: Any]])
        let pos = try #require((packets.first?["pos"] as? String).flatMap { Int64($0) })
        return (stream, pos)
    }

    /// The stream's data bytes as ffmpeg's demuxer reads them (`-c copy -f data`).
    static func demuxedBytes(_ path: String) throws -> [UInt8] {
        [UInt8](
            try ExternalTool.check(
                "ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "data", "-"]
            ).stdout)
    }

    /// `sndfile-info path`'s text.
    static func sndfileInfo(_ path: String) throws -> String {
        try ExternalTool.check("sndfile-info", [path]).output
    }

    /// The integer value of the first `key : value` line of sndfile-info's text whose key is `key`
    /// (`"data"`, `"Frames"`, `"Block Align"`, `"Data Offset"`), whatever the spacing.
    static func field(_ key: String, in text: String) -> Int64? {
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            guard line[..<colon].trimmingCharacters(in: .whitespaces) == key else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let number = Int64(value.prefix { $0.isNumber }) { return number }
        }
        return nil
    }

    /// ffprobe's integer field `key` (given as a string or a number).
    static func int(_ stream: [String: Any], _ key: String) -> Int64? {
        if let text = stream[key] as? String { return Int64(text) }
        return (stream[key] as? NSNumber)?.int64Value
    }

    /// The bytes of a file.
    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The layout ffprobe names.
    static func layout(ffprobeName name: String?, channels: Int) -> ChannelLayout {
        switch name {
        case "mono": return .mono
        case "stereo": return .stereo
        case "5.1": return .surround51
        case "5.1(side)": return .surround51Side
        default: return .default(channelCount: channels)
        }
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func be32(_ v: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// A 24-byte NeXT/Sun header followed by `annotation` (padded to `dataOffset`).
    static func auHeader(
        dataOffset: UInt32 = 24, dataSize: UInt32, encoding: UInt32 = 3, rate: UInt32 = 8_000, channels: UInt32 = 1
    ) -> [UInt8] {
        Array(".snd".utf8) + be32(dataOffset) + be32(dataSize) + be32(encoding) + be32(rate) + be32(channels)
            + [UInt8](repeating: 0x41, count: max(0, Int(dataOffset) - 24))
    }
}
