import Foundation
import MediaCore
import MediaFormats
import MediaTestSupport

/// Annex-B streams for the reader and muxer tests that H264Fixtures does not make, and what FFmpeg's
/// tools say about a stream.
enum AnnexBFixtures {
    private static let cache = LockedBox<[String: [UInt8]]>([:])

    /// The extra x264 variants: name and the ffmpeg arguments between the input and `-f h264`.
    static let variants: [String: [String]] = [
        "slices": ["-x264-params", "slices=4:keyint=10"],
        "keyint10": ["-x264-params", "keyint=10:min-keyint=10:scenecut=0"]
    ]

    /// The stream `name`: 30 frames of 320x240 testsrc2 at 30 fps, made once per test run.
    static func bytes(_ name: String) throws -> [UInt8] {
        try cache.withLock { cache in
            if let bytes = cache[name] { return bytes }
            guard let extra = variants[name] else { throw H264FixtureError(description: "no fixture named \(name)") }
            let dir = try TemporaryDirectory()
            let path = dir.file("\(name).h264")
            try ExternalTool.check(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "30",
                    "-c:v", "libx264", "-preset", "veryfast"
                ] + extra + ["-f", "h264", path])
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            cache[name] = bytes
            return bytes
        }
    }

    /// The stream with every SPS and PPS after the first ones removed (parameter sets in band only at
    /// the start), rebuilt with 4-byte start codes.
    static func parametersOnlyAtStart(_ stream: [UInt8]) throws -> [UInt8] {
        var seen: Set<UInt8> = []
        var output: [UInt8] = []
        for nal in try AnnexBScanner.split(stream) {
            let type = nal.header.nalUnitType.rawValue
            if type == 7 || type == 8 {
                guard !seen.contains(type) else { continue }
                seen.insert(type)
            }
            output += [0, 0, 0, 1] + nal.bytes
        }
        return output
    }
}

/// What FFmpeg's tools say about an Annex-B file.
enum AnnexBFFmpegView {
    /// The packets ffprobe's H.264 parser splits the file into, and how many have the key flag.
    static func packets(_ path: String) throws -> (count: Int, keyframes: Int) {
        let output = try ExternalTool.check(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-of", "csv=p=0", path
            ]
        ).output
        let lines = output.split(separator: "\n").filter { !$0.isEmpty }
        return (lines.count, lines.filter { $0.hasPrefix("K") }.count)
    }

    /// The framemd5 lines (without comments) of decoding the file with `-xerror`.
    static func frameMD5(_ path: String) throws -> [String] {
        let output = try ExternalTool.check("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "framemd5", "-"])
            .output
        return output.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// The md5 column of framemd5 lines.
    static func md5s(_ lines: [String]) -> [String] {
        lines.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// The `nal_unit_type` of every NAL unit in the packets, in order, as FFmpeg's `trace_headers`
    /// bitstream filter prints them.
    static func tracedNALTypes(_ path: String) throws -> [Int64] {
        let trace = try ExternalTool.check(
            "ffmpeg",
            [
                "-nostats", "-hide_banner", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"
            ]
        ).stderr
        let stream = H264Stream(name: "traced", bytes: [], probe: [:], trace: trace, avcC: [])
        return stream.traceFields.packets.filter { $0.name == "nal_unit_type" }.map(\.value)
    }
}

/// Writes `bytes` to `name` in `dir` and returns the path.
func writeAnnexBFile(_ bytes: [UInt8], _ name: String, in dir: TemporaryDirectory) throws -> String {
    let path = dir.file(name)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

/// What ``AnnexBAccessUnitParser`` gives for `bytes`, checked by ``PushParserVerifier`` to be the same
/// whole, byte by byte and in random splits: the access units and the error that ended the parse.
func parseAnnexB(_ bytes: [UInt8]) throws -> (samples: [MediaSample], error: MediaError?) {
    let outcome = try PushParserVerifier.verify(bytes) { AnnexBAccessUnitParser() }
    return (outcome.outputs, outcome.error)
}

/// The NAL unit types of an AVCC payload, in order.
func annexBPayloadNALTypes(_ sample: MediaSample) throws -> [UInt8] {
    try H264Bitstream.avccNALUnits(sample.data).map { ($0.first ?? 0) & 0x1F }
}

/// The error `body` throws, as a MediaError.
func annexBError(_ body: () throws -> Void) -> MediaError? {
    do {
        try body()
        return nil
    } catch let error as MediaError {
        return error
    } catch {
        return MediaError(.invalidArgument, "not a MediaError: \(error)")
    }
}
