import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Inputs for the AudioDecoder tests: files made by ffmpeg, lame and sox, their packets (from
/// ContainerDemuxer or sliced out of the file by hand), and what the ffmpeg CLI decodes them to.
enum DecoderFixture {
    /// A test signal with different content per channel (so a channel swap shows) and a little noise
    /// (so the codecs have work to do), `seconds` long.
    static func signal(rate: Int, channels: Int, seconds: Double = 1) -> [String] {
        let left = "0.5*sin(2*PI*440*t)+0.05*(random(0)-0.5)"
        let right = "0.3*sin(2*PI*660*t)+0.05*(random(1)-0.5)"
        let expression = channels == 1 ? left : left + "|" + right
        return ["-f", "lavfi", "-i", "aevalsrc=\(expression):s=\(rate):d=\(seconds)"]
    }

    /// Makes `name` in `dir` by encoding ``signal(rate:channels:seconds:)`` with the ffmpeg `encoder`
    /// arguments; returns its path.
    static func ffmpeg(
        _ name: String, _ encoder: [String], rate: Int, channels: Int, in dir: TemporaryDirectory, seconds: Double = 1
    ) throws -> String {
        let path = dir.file(name)
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-y"] + signal(rate: rate, channels: channels, seconds: seconds) + encoder + [path])
        return path
    }

    /// Makes an MP3 with the LAME command-line encoder (its Xing/LAME tag carries delay and padding)
    /// from a sox-made WAV; returns its path.
    static func lame(_ name: String, rate: Int, channels: Int, in dir: TemporaryDirectory, options: [String] = [])
        throws -> String
    {
        let wav = dir.file(name + ".wav")
        try ExternalTool.check(
            "sox",
            [
                "-n", "-r", "\(rate)", "-c", "\(channels)", "-b", "16", wav, "synth", "1.3", "sine", "440", "sine",
                "660", "vol", "0.5"
            ])
        let path = dir.file(name)
        try ExternalTool.check("lame", ["--quiet"] + options + [wav, path])
        return path
    }

    /// Every packet of the first audio stream of `path`, as ContainerDemuxer hands them out.
    static func packets(_ path: String) throws -> [MediaSample] {
        let demuxer = try ContainerDemuxer(path: path)
        let source = try demuxer.source(stream: try #require(demuxer.firstAudioStream))
        var samples: [MediaSample] = []
        while let sample = try source.next() { samples.append(sample) }
        return samples
    }

    /// The bytes of interleaved PCM samples, end to end.
    static func bytes(_ samples: [MediaSample]) -> [UInt8] {
        samples.flatMap(\.data)
    }

    /// `samples` regrouped `group` at a time into one sample each (for codecs whose samples may hold
    /// several packets), frame counts and trims added up, each group timed as its first packet.
    static func grouped(_ samples: [MediaSample], by group: Int) -> [MediaSample] {
        stride(from: 0, to: samples.count, by: group).map { start in
            let run = samples[start..<min(start + group, samples.count)]
            var first = run[run.startIndex]
            first.data = run.flatMap(\.data)
            first.frameCount = run.reduce(0) { $0 + $1.frameCount }
            first.trimAtStart = run.first?.trimAtStart ?? 0
            first.trimAtEnd = run.last?.trimAtEnd ?? 0
            return first
        }
    }

    /// The payload of the first chunk `id` of a RIFF (WAV) file, and where it starts.
    static func riffChunk(_ id: String, in file: [UInt8]) throws -> (bytes: ArraySlice<UInt8>, offset: Int) {
        var offset = 12
        while offset + 8 <= file.count {
            let size =
                Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16 | Int(file[offset + 7])
                << 24
            let start = offset + 8
            if String(decoding: file[offset..<(offset + 4)], as: UTF8.self) == id {
                return (file[start..<min(start + size, file.count)], start)
            }
            offset = start + size + (size & 1)
        }
        throw DemuxerFixture.FixtureError(description: "no RIFF chunk \(id)")
    }

    /// The payload of the first chunk `id` of a CAF file.
    static func cafChunk(_ id: String, in file: [UInt8]) throws -> ArraySlice<UInt8> {
        var offset = 8
        while offset + 12 <= file.count {
            let size = file[(offset + 4)..<(offset + 12)].reduce(0) { $0 << 8 | Int($1) }
            let start = offset + 12
            if String(decoding: file[offset..<(offset + 4)], as: UTF8.self) == id {
                return file[start..<(size < 0 || start + size > file.count ? file.count : start + size)]
            }
            offset = start + size
        }
        throw DemuxerFixture.FixtureError(description: "no CAF chunk \(id)")
    }

    /// Little-endian values of `type` in `bytes`.
    static func values<T: FixedWidthInteger>(_ bytes: [UInt8], as type: T.Type) -> [T] {
        bytes.withUnsafeBytes { raw in
            (0..<(raw.count / MemoryLayout<T>.size)).map {
                T(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * MemoryLayout<T>.size, as: T.self))
            }
        }
    }

    /// Little-endian 32-bit floats in `bytes`.
    static func floats(_ bytes: [UInt8]) -> [Float] {
        values(bytes, as: UInt32.self).map { Float(bitPattern: $0) }
    }

    /// Core Audio's format id for a four-character code.
    static func code(_ text: String) -> UInt32 {
        text.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
