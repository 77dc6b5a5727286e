import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Helpers for the AIFF and CAF tests of ``AudioFileStreamParser``: running files through it (whole and
/// drip-fed), summarising its events, asking the tools nobody here wrote, and building files by hand.
enum ContainerStreamTest {
    /// What a parse reported, gathered from its events.
    struct Summary {
        var events: [AudioFileStreamEvent] = []
        var fileType: AudioFileType?
        var format: AudioStreamBasicDescription?
        var layout: ChannelLayout?
        var cookie: [UInt8]?
        var dataOffset: Int64?
        var byteCount: Int64?
        var packetCount: Int64?
        var tableInfo: AudioFilePacketTableInfo?
        var maximumPacketSize: Int?
        var bitRate: Int?
        var batches: [AudioFilePackets] = []
        var diagnostics: [AudioFileStreamDiagnostic] = []

        init(_ events: [AudioFileStreamEvent]) {
            self.events = events
            for event in events {
                switch event {
                case .fileType(let type): fileType = type
                case .dataFormat(let value): format = value
                case .channelLayout(let value): layout = value
                case .magicCookie(let value): cookie = value
                case .dataOffset(let value): dataOffset = value
                case .audioDataByteCount(let value): byteCount = value
                case .audioDataPacketCount(let value): packetCount = value
                case .packetTableInfo(let value): tableInfo = value
                case .maximumPacketSize(let value): maximumPacketSize = value
                case .bitRate(let value): bitRate = value
                case .readyToProducePackets: break
                case .packets(let batch): batches.append(batch)
                case .diagnostic(let value): diagnostics.append(value)
                }
            }
        }

        /// Every packet's bytes, in order.
        var bytes: [UInt8] { batches.flatMap(\.bytes) }
        /// The packets handed out.
        var packets: Int { batches.reduce(0) { $0 + $1.packetCount } }
        /// The frames they decode to.
        var frames: Int64 { batches.reduce(0) { $0 + $1.frameCount } }
        /// Each packet's size, for variable packets.
        var packetSizes: [Int] { batches.flatMap { $0.descriptions.map(\.dataByteSize) } }
        /// The types of the chunks skipped.
        var skippedChunks: [String] {
            diagnostics.compactMap { if case .chunkSkipped(let type, _, _) = $0 { return type } else { return nil } }
        }
    }

    /// `bytes` pushed whole, then finished; what came out.
    static func parse(_ bytes: [UInt8], batching: AudioFileStreamParser.Batching = .init()) throws(MediaError)
        -> Summary
    {
        var parser = AudioFileStreamParser(batching: batching)
        var events: [AudioFileStreamEvent] = []
        parser.push(bytes)
        while let event = try parser.next() { events.append(event) }
        parser.finish()
        while let event = try parser.next() { events.append(event) }
        return Summary(events)
    }

    /// The error parsing `bytes` ends with, or `nil`.
    static func error(_ bytes: [UInt8]) -> MediaError? {
        do throws(MediaError) {
            _ = try parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// `bytes` drip-fed by ``PushParserVerifier`` (whole, byte by byte for files under 128 KiB, random
    /// splits), which checks that every split gives the same; the summary of the events, and the error.
    static func verified(_ bytes: [UInt8], batching: AudioFileStreamParser.Batching = .init()) throws -> (
        summary: Summary, error: MediaError?
    ) {
        let outcome = try PushParserVerifier.verify(bytes, byteByByte: bytes.count < 131_072) {
            AudioFileStreamParser(batching: batching)
        }
        return (Summary(outcome.outputs), outcome.error)
    }

    /// Feeds `file` whole, seeks to `packet` once ready, pushes the bytes from the offset the parser
    /// gives, and returns that offset and the batches after the seek.
    static func seek(_ file: [UInt8], toPacket packet: Int64) throws -> (
        offset: AudioFileStreamSeekOffset, batches: [AudioFilePackets]
    ) {
        var parser = AudioFileStreamParser()
        parser.push(file)
        while let event = try parser.next() { if event == .readyToProducePackets { break } }
        let offset = try parser.seek(toPacket: packet)
        parser.push(file[Int(offset.byteOffset)...])
        parser.finish()
        var batches: [AudioFilePackets] = []
        while let event = try parser.next() { if case .packets(let batch) = event { batches.append(batch) } }
        return (offset, batches)
    }

    // MARK: tools

    /// The first stream as ffprobe sees it (`-count_packets -show_streams`).
    static func ffprobe(_ path: String) throws -> [String: Any] { try ExternalTool.probeFirstStream(path) }

    /// The demuxed packets' payloads, back to back: `ffmpeg -i path -map 0:a -c copy -f data -`.
    static func ffmpegPackets(_ path: String) throws -> [UInt8] {
        [UInt8](
            try ExternalTool.check(
                "ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "data", "-"]
            ).stdout)
    }

    /// Each packet's size as ffprobe demuxes them.
    static func ffprobePacketSizes(_ path: String) throws -> [Int] {
        let out = try ExternalTool.check(
            "ffprobe", ["-v", "error", "-show_entries", "packet=size", "-of", "csv=p=0", path]
        ).output
        return out.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A field of `sndfile-info`'s closing summary (`Sample Rate`, `Frames`, `Channels`), as an integer.
    static func sndfileInfo(_ path: String, _ field: String) throws -> Int? {
        try sndfileSummary(path)[field].flatMap { Int($0) }
    }

    /// `sndfile-info`'s closing summary, field by field (``ExternalTool/sndfileSummary(_:)``).
    static func sndfileSummary(_ path: String) throws -> [String: String] { try ExternalTool.sndfileSummary(path) }

    /// The number after `label :` on the first line of `sndfile-info`'s chunk listing that starts with it
    /// (after spaces): `Packets`, `Valid frames`, `edit` …
    static func sndfileChunkField(_ path: String, _ label: String) throws -> Int? {
        let text = try ExternalTool.check("sndfile-info", [path]).output
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(label), let colon = trimmed.firstIndex(of: ":") else { continue }
            guard trimmed[..<colon].trimmingCharacters(in: .whitespaces) == label else { continue }
            return Int(trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// A number from ffprobe's JSON, which gives some as strings.
    static func int(_ value: Any?) -> Int? {
        if let number = value as? NSNumber { return number.intValue }
        if let text = value as? String { return Int(text) }
        return nil
    }

    /// A sine tone of `seconds` at `rate` Hz and `channels` channels, encoded by ffmpeg with `arguments`.
    static func ffmpegTone(
        _ path: String, seconds: Double = 0.1, rate: Int = 8000, channels: Int = 2, _ arguments: [String]
    ) throws {
        try WAVTest.ffmpeg(
            ["-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds):sample_rate=\(rate)", "-ac", String(channels)]
                + arguments + [path])
    }

    // MARK: building AIFF by hand

    static func be16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// An AIFF chunk: type, size (the body's unless given), body, pad byte when odd.
    static func aiffChunk(_ type: String, _ body: [UInt8], size: UInt32? = nil) -> [UInt8] {
        Array(type.utf8) + be32(size ?? UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
    }

    /// A `FORM` of `type` (`AIFF`, `AIFC`) around `chunks`.
    static func form(_ type: String, _ chunks: [[UInt8]], size: UInt32? = nil) -> [UInt8] {
        let body = Array(type.utf8) + chunks.flatMap { $0 }
        return Array("FORM".utf8) + be32(size ?? UInt32(body.count)) + body
    }

    /// The 80-bit extended encoding of a positive integer rate.
    static func extended(_ rate: UInt64) -> [UInt8] {
        let top = 63 - rate.leadingZeroBitCount
        let mantissa = rate << (63 - top)
        return be16(16383 + top) + (0..<8).map { UInt8(truncatingIfNeeded: mantissa >> (56 - 8 * $0)) }
    }

    /// A `COMM` body: AIFF's 18 bytes, plus the compression type for AIFF-C.
    static func commBody(
        channels: Int = 2, frames: UInt32, bits: Int = 16, rate: [UInt8] = extended(8000), compression: String? = nil
    ) -> [UInt8] {
        be16(channels) + be32(frames) + be16(bits) + rate + (compression.map { Array($0.utf8) + [0, 0] } ?? [])
    }

    /// An `SSND` body: offset, blockSize, `offset` zero bytes, audio.
    static func ssndBody(_ audio: [UInt8], offset: UInt32 = 0, blockSize: UInt32 = 0) -> [UInt8] {
        be32(offset) + be32(blockSize) + [UInt8](repeating: 0, count: Int(offset)) + audio
    }

    /// The chunks of an AIFF/CAF file: type and header offset (AIFF: 8-byte headers from 12; CAF: 12-byte
    /// headers with 64-bit sizes from 8).
    static func chunks(_ file: [UInt8], caf: Bool) -> [(type: String, offset: Int, size: Int64)] {
        var result: [(String, Int, Int64)] = []
        var offset = caf ? 8 : 12
        let header = caf ? 12 : 8
        while offset + header <= file.count {
            let type = String(decoding: file[offset..<offset + 4], as: UTF8.self)
            let size =
                caf
                ? Int64(bitPattern: file[offset + 4..<offset + 12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                : Int64(file[offset + 4..<offset + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            result.append((type, offset, size))
            guard size >= 0 else { break }
            offset += header + Int(size) + (caf ? 0 : Int(size & 1))
        }
        return result
    }
}
