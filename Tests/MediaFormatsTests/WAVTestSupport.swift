import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport
import Testing

/// Helpers shared by the WAV and tone tests: running ffmpeg/sox, building WAV files by hand, reading back.
enum WAVTest {
    /// Runs `ffmpeg -v error -y <arguments>` and fails unless it exits 0 (a file made from ffmpeg's
    /// generators alone is made once: ``GeneratedFixture``).
    static func ffmpeg(_ arguments: [String]) throws {
        try GeneratedFixture.ffmpeg(["-nostdin", "-v", "error", "-y"] + arguments)
    }

    /// Runs `sox <arguments>` and fails unless it exits 0.
    static func sox(_ arguments: [String]) throws {
        try ExternalTool.check("sox", arguments)
    }

    /// `ffmpeg -i path -f rawFormat -` : the file's samples as ffmpeg decodes them, in `rawFormat`.
    static func ffmpegRaw(_ path: String, _ rawFormat: String) throws -> [UInt8] {
        [UInt8](try ExternalTool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", rawFormat, "-"]).stdout)
    }

    /// The frame count ffprobe reports for the first stream (`duration_ts` at time base 1/rate).
    static func ffprobeFrames(_ path: String) throws -> Int64 {
        let stream = try ExternalTool.probeFirstStream(path)
        let timeBase = try #require(stream["time_base"] as? String)
        let rate = try #require(stream["sample_rate"] as? String)
        #expect(timeBase == "1/\(rate)")
        return try #require((stream["duration_ts"] as? NSNumber)?.int64Value)
    }

    /// The raw format name FFmpeg uses for a sample type (`-f s24le`).
    static func rawFormat(_ type: PCMSampleType) -> String {
        switch type {
        case .u8: return "u8"
        case .s16: return "s16le"
        case .s24: return "s24le"
        case .s32: return "s32le"
        case .f32: return "f32le"
        case .f64: return "f64le"
        }
    }

    /// The bytes of a file.
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes `bytes` to `path`.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Every sample of `reader` and their bytes concatenated.
    static func readAll(_ reader: WAVReader) throws -> (samples: [MediaSample], bytes: [UInt8]) {
        var source = reader  // a class: the copy shares the reader's position
        return try drain(&source)
    }

    /// Every sample of a source and their bytes concatenated.
    static func drain<S: MediaSource>(_ source: inout S) throws -> (samples: [MediaSample], bytes: [UInt8]) {
        var samples: [MediaSample] = []
        var bytes: [UInt8] = []
        while let sample = try source.next() {
            samples.append(sample)
            bytes += sample.data
        }
        return (samples, bytes)
    }

    // MARK: building files by hand

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// A RIFF chunk: id, size (the body's, unless `declaredSize` is given), body, pad byte when odd.
    static func chunk(_ id: String, _ body: [UInt8], declaredSize: UInt32? = nil) -> [UInt8] {
        var bytes = Array(id.utf8) + le32(declaredSize ?? UInt32(body.count)) + body
        if body.count % 2 == 1 { bytes.append(0) }
        return bytes
    }

    /// A `data` chunk without a pad byte (the data runs to the end of the file).
    static func dataChunk(_ body: [UInt8], declaredSize: UInt32? = nil) -> [UInt8] {
        Array("data".utf8) + le32(declaredSize ?? UInt32(body.count)) + body
    }

    /// A 16-byte WAVEFORMATEX body.
    static func fmtBody(
        tag: UInt16 = 1, channels: UInt16 = 2, rate: UInt32 = 48_000, bits: UInt16 = 16, blockAlign: UInt16? = nil
    ) -> [UInt8] {
        let align = blockAlign ?? channels * ((bits + 7) / 8)
        return le16(tag) + le16(channels) + le32(rate) + le32(rate * UInt32(align)) + le16(align) + le16(bits)
    }

    /// A 40-byte WAVE_FORMAT_EXTENSIBLE body.
    static func extensibleBody(
        subFormat: UInt16 = 1, channels: UInt16, rate: UInt32 = 48_000, bits: UInt16, validBits: UInt16? = nil,
        mask: UInt32
    ) -> [UInt8] {
        let align = channels * ((bits + 7) / 8)
        let guidTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        return le16(0xFFFE) + le16(channels) + le32(rate) + le32(rate * UInt32(align)) + le16(align) + le16(bits)
            + le16(22) + le16(validBits ?? bits) + le32(mask) + le16(subFormat) + guidTail
    }

    /// A RIFF/WAVE file of `chunks` (RIFF size computed unless given).
    static func riff(_ chunks: [[UInt8]], riffSize: UInt32? = nil) -> [UInt8] {
        let body = Array("WAVE".utf8) + chunks.flatMap { $0 }
        return Array("RIFF".utf8) + le32(riffSize ?? UInt32(body.count)) + body
    }

    /// `count` deterministic bytes (an LCG), for audio data whose values do not matter.
    static func pattern(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// A canonical s16 stereo 48 kHz file of `frames` frames of `pattern` data: header 44 bytes.
    static func simpleFile(frames: Int) -> (file: [UInt8], data: [UInt8]) {
        let data = pattern(frames * 4)
        return (riff([chunk("fmt ", fmtBody()), dataChunk(data)]), data)
    }
}
