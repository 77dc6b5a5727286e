import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// What ``AudioFileStreamParser`` said about an MP3 file, event by event, gathered for assertions.
struct MP3Parse {
    var events: [AudioFileStreamEvent] = []
    var error: MediaError?

    var format: AudioStreamBasicDescription? {
        events.lazy.compactMap { if case .dataFormat(let f) = $0 { f } else { nil } }.first
    }
    var layout: ChannelLayout? {
        events.lazy.compactMap { if case .channelLayout(let l) = $0 { l } else { nil } }.first
    }
    var dataOffset: Int64? { events.lazy.compactMap { if case .dataOffset(let o) = $0 { o } else { nil } }.first }
    var packetCount: Int64? {
        events.lazy.compactMap { if case .audioDataPacketCount(let n) = $0 { n } else { nil } }.first
    }
    var byteCount: Int64? {
        events.lazy.compactMap { if case .audioDataByteCount(let n) = $0 { n } else { nil } }.first
    }
    var packetTable: AudioFilePacketTableInfo? {
        events.lazy.compactMap { if case .packetTableInfo(let p) = $0 { p } else { nil } }.first
    }
    var maximumPacketSize: Int? {
        events.lazy.compactMap { if case .maximumPacketSize(let n) = $0 { n } else { nil } }.first
    }
    var bitRate: Int? { events.lazy.compactMap { if case .bitRate(let n) = $0 { n } else { nil } }.first }
    var batches: [AudioFilePackets] { events.compactMap { if case .packets(let p) = $0 { p } else { nil } } }
    var diagnostics: [AudioFileStreamDiagnostic] {
        events.compactMap { if case .diagnostic(let d) = $0 { d } else { nil } }
    }
    var resyncs: [AudioFileStreamDiagnostic] {
        diagnostics.filter { if case .resynchronized = $0 { true } else { false } }
    }
    var tags: [(kind: String, offset: Int64, length: Int64)] {
        diagnostics.compactMap { if case .tagSkipped(let k, let o, let l) = $0 { (k, o, l) } else { nil } }
    }

    /// Every packet: its file offset and bytes, in order.
    var packets: [(offset: Int64, bytes: [UInt8])] {
        batches.flatMap { batch in
            batch.descriptions.map { d in
                (
                    batch.fileOffset + Int64(d.startOffset),
                    Array(batch.bytes[d.startOffset..<(d.startOffset + d.dataByteSize)])
                )
            }
        }
    }
}

/// Encoding, probing and parsing MP3 files for the MP3 suites.
enum MP3Test {
    /// Parses `bytes` with ``AudioFileStreamParser`` through ``PushParserVerifier`` (whole, byte by byte
    /// unless `byteByByte` is false, random splits), so every result is split-independent.
    static func parse(
        _ bytes: [UInt8], byteByByte: Bool = true, seeds: [UInt64] = [1, 2, 3], hint: AudioFileType? = nil
    ) throws -> MP3Parse {
        let outcome = try PushParserVerifier.verify(bytes, seeds: seeds, byteByByte: byteByByte) {
            AudioFileStreamParser(fileTypeHint: hint)
        }
        return MP3Parse(events: outcome.outputs, error: outcome.error)
    }

    /// Parses `bytes` whole, once (for long files and many cuts).
    static func parseOnce(_ bytes: [UInt8]) -> MP3Parse {
        var parser = AudioFileStreamParser()
        var result = MP3Parse()
        parser.push(bytes)
        parser.finish()
        do throws(MediaError) {
            while let event = try parser.next() { result.events.append(event) }
        } catch {
            result.error = error
        }
        return result
    }

    /// `seconds` of a two-tone signal (with a little noise, so that VBR varies) from sox as a WAV file.
    static func wav(_ dir: TemporaryDirectory, rate: Int, channels: Int, seconds: Double, name: String = "in.wav")
        throws -> String
    {
        let path = dir.file(name)
        try ExternalTool.check(
            "sox",
            [
                "-n", "-r", "\(rate)", "-c", "\(channels)", "-b", "16", path, "synth", "\(seconds)", "sine", "440",
                "sine", "1250",
                "pinknoise", "remix"
            ] + (channels == 1 ? ["1-3"] : ["1,3", "2,3"]) + ["gain", "-6"])
        return path
    }

    /// Encodes with `lame` (quiet) and returns the file's bytes.
    static func lame(
        _ dir: TemporaryDirectory, _ arguments: [String], rate: Int = 44_100, channels: Int = 2, seconds: Double = 2,
        name: String = "out.mp3"
    ) throws -> (path: String, bytes: [UInt8]) {
        let input = try wav(dir, rate: rate, channels: channels, seconds: seconds, name: "lame-\(name).wav")
        let path = dir.file(name)
        try ExternalTool.check("lame", ["--quiet"] + arguments + [input, path])
        return (path, try fileBytes(path))
    }

    /// Encodes with ffmpeg (`-c:a libmp3lame`, `-c:a mp2`, …) and returns the file's bytes.
    static func ffmpeg(
        _ dir: TemporaryDirectory, _ arguments: [String], rate: Int = 44_100, channels: Int = 2, seconds: Double = 2,
        name: String
    ) throws -> (path: String, bytes: [UInt8]) {
        let input = try wav(dir, rate: rate, channels: channels, seconds: seconds, name: "ffmpeg-\(name).wav")
        let path = dir.file(name)
        try ExternalTool.check("ffmpeg", ["-v", "error", "-y", "-i", input] + arguments + [path])
        return (path, try fileBytes(path))
    }

    /// What ffprobe says: sample rate, channels and the packets it reads.
    static func probe(_ path: String) throws -> (sampleRate: Int, channels: Int, packets: Int, codec: String) {
        let stream = try ExternalTool.probeFirstStream(path)
        return (
            Int(stream["sample_rate"] as? String ?? "") ?? -1, stream["channels"] as? Int ?? -1,
            Int(stream["nb_read_packets"] as? String ?? "") ?? -1, stream["codec_name"] as? String ?? ""
        )
    }

    /// The frames ffmpeg's gapless decode gives (`-f s16le` length / bytes per frame).
    static func decodedFrames(_ path: String, channels: Int) throws -> Int {
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-"]).stdout.count / (2 * channels)
    }

    /// The frames of a clean MPEG audio stream from `start`, found by following each header's length,
    /// independently of the parser: (offset, length).
    static func frames(_ bytes: [UInt8], from start: Int) -> [(offset: Int, length: Int)] {
        let layer3: [[Int]] = [
            [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
            [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        ]
        let layer2: [[Int]] = [[0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384], layer3[1]]
        let rates: [UInt8: [Int]] = [
            3: [44_100, 48_000, 32_000], 2: [22_050, 24_000, 16_000], 0: [11_025, 12_000, 8_000]
        ]
        var result: [(Int, Int)] = []
        var p = start
        while p + 4 <= bytes.count, bytes[p] == 0xFF, bytes[p + 1] & 0xE0 == 0xE0 {
            let version = (bytes[p + 1] >> 3) & 3, layer = 4 - Int((bytes[p + 1] >> 1) & 3)
            let bitIndex = Int(bytes[p + 2] >> 4), rateIndex = Int((bytes[p + 2] >> 2) & 3),
                pad = Int((bytes[p + 2] >> 1) & 1)
            guard let table = rates[version], rateIndex < 3, bitIndex > 0, bitIndex < 15, layer == 2 || layer == 3
            else { break }
            let lsf = version == 3 ? 0 : 1
            let bitRate = (layer == 3 ? layer3 : layer2)[lsf][bitIndex] * 1000
            let coefficient = layer == 3 && lsf == 1 ? 72 : 144
            let length = coefficient * bitRate / table[rateIndex] + pad
            guard p + length <= bytes.count else { break }
            result.append((p, length))
            p += length
        }
        return result
    }

    /// The length of an ID3v2 tag at the start of `bytes`, 0 without one.
    static func id3v2Length(_ bytes: [UInt8]) -> Int {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 else { return 0 }
        let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        return 10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0)
    }

    /// Whether `diagnostic` is a `resynchronized`.
    static func isResync(_ diagnostic: AudioFileStreamDiagnostic) -> Bool {
        if case .resynchronized = diagnostic { return true }
        return false
    }
}
