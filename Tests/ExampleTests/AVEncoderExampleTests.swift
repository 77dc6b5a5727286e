import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `av-encoder` example end to end, judged by ffprobe, ffmpeg and GStreamer: both streams in every
/// container, durations and start times that agree, `moov` before `mdat`, two outputs from one encode,
/// an hour of MPEG-TS without drift, Ctrl-C leaving a playable file, and one-line usage errors.
@Suite(.timeLimit(.minutes(20)), .serialized, .ffmpegLeakGate) struct AVEncoderExampleTests {
    static let encoder = TestPaths.executable("av-encoder")

    /// Runs the example and returns status and standard error.
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let result = try ExternalTool.run(encoder, arguments)
        return (result.status, result.stderr)
    }

    /// ffprobe's streams of `path`, counting packets.
    static func streams(_ path: String) throws -> [[String: Any]] {
        let json = try ExternalTool.ffprobeJSON(path, ["-count_packets", "-show_streams"])
        return try #require(json["streams"] as? [[String: Any]])
    }

    static func number(_ value: Any?) -> Double? {
        if let text = value as? String { return Double(text) }
        return (value as? NSNumber)?.doubleValue
    }

    /// The top-level ISO-BMFF box types of a file, in order.
    static func topLevelBoxes(_ path: String) throws -> [String] {
        ISOBMFF.topLevelBoxes([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))).map(\.type)
    }

    /// Decodes every stream with `-xerror`; any decoding error fails the test.
    static func expectStrictDecode(_ path: String) throws {
        let run = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
        #expect(run.status == 0, "ffmpeg -xerror failed on \(path): \(run.stderr)")
        #expect(run.stderr.isEmpty, "ffmpeg printed errors for \(path): \(run.stderr)")
    }

    /// The issue's first test: pattern + tone, 10 s → MP4, checked by ffprobe, ffmpeg and GStreamer.
    @Test func patternAndToneIntoMP4() throws {
        let dir = try TemporaryDirectory()
        let mp4 = dir.file("av.mp4")
        let ts = dir.file("av.ts")
        let result = try Self.run([
            "--pattern", "--size", "320x240", "--fps", "30", "--tone", "440", "--duration", "10",
            "--preset", "veryfast", "--output", mp4, "--output", ts, "--quiet"
        ])
        #expect(result.status == 0, "\(result.stderr)")

        let streams = try Self.streams(mp4)
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
        #expect(streams.count == 2)
        #expect(video["codec_name"] as? String == "h264")
        #expect(audio["codec_name"] as? String == "aac")
        #expect(Self.number(video["nb_read_packets"]) == 300)
        let videoDuration = try #require(Self.number(video["duration"]))
        let audioDuration = try #require(Self.number(audio["duration"]))
        #expect(abs(videoDuration - audioDuration) <= 1.0 / 30, "video \(videoDuration) s, audio \(audioDuration) s")
        #expect(Self.number(video["start_time"]) == Self.number(audio["start_time"]))
        try Self.expectStrictDecode(mp4)
        let boxes = try Self.topLevelBoxes(mp4)
        let moov = try #require(boxes.firstIndex(of: "moov"))
        let mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(moov < mdat, "boxes: \(boxes)")
        let discovered = try ExternalTool.run("gst-discoverer-1.0", [mp4])
        #expect(discovered.status == 0, "\(discovered.stderr)")
        #expect(discovered.output.contains("video #") && discovered.output.contains("H.264"), "\(discovered.output)")
        #expect(
            discovered.output.contains("audio #") && discovered.output.contains("MPEG-4 AAC"), "\(discovered.output)")

        // The second output of the same encode: the same number of packets per stream.
        let tsStreams = try Self.streams(ts)
        #expect(tsStreams.count == 2)
        #expect(Self.number(tsStreams.first { $0["codec_type"] as? String == "video" }?["nb_read_packets"]) == 300)
        #expect(
            Self.number(tsStreams.first { $0["codec_type"] as? String == "audio" }?["nb_read_packets"])
                == Self.number(audio["nb_read_packets"]))
        try Self.expectStrictDecode(ts)
    }

    @Test(arguments: ["mov", "flv", "mkv"])
    func everyContainerHoldsBothStreams(_ ext: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("av.\(ext)")
        let result = try Self.run([
            "--pattern", "--size", "160x120", "--tone", "1000", "--duration", "2", "--preset", "ultrafast", "--output",
            path, "-q"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let streams = try Self.streams(path)
        #expect(Set(streams.compactMap { $0["codec_name"] as? String }) == ["h264", "aac"])
        try Self.expectStrictDecode(path)
    }

    @Test func m4aTakesTheAudioOnly() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.m4a")
        let result = try Self.run(["--pattern", "--tone", "440", "--duration", "1", "--output", path, "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let streams = try Self.streams(path)
        #expect(streams.map { $0["codec_name"] as? String } == ["aac"])
    }

    /// Ten minutes of pattern and audio into MPEG-TS, generated faster than real time: every audio packet's
    /// pts is its exact time on MPEG-TS's 90 kHz clock rounded once (no error accumulates), the last audio
    /// and the last video end within one video frame of each other, and no timestamp goes backwards.
    ///
    /// The audio is 11,025 Hz mono from ffmpeg's `sine` source: an AAC frame there lasts 1024/11025 s,
    /// 8,359.18… ticks of 90 kHz, so a pipeline that rounds each frame's duration and adds drifts by 0.18
    /// of a tick a frame (48 kHz's 1,920 ticks would hide that), 1,160 ticks (13 ms) over these ten
    /// minutes, where the check allows one tick. It is a sixth of the encoding work of 48 kHz stereo, which
    /// sanitized builds feel most. (The muxer alone is checked over a whole hour, in
    /// `ContainerMuxerTimingTests`.)
    @Test func tenMinutesOfMPEGTSDoNotDrift() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("ten.ts"), wav = dir.file("ten.wav")
        let seconds = 600
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=11025", "-t", "\(seconds)", "-ac",
                "1", "-c:a", "pcm_s16le", wav
            ])
        let result = try Self.run([
            "--pattern", "--size", "64x64", "--fps", "10", "--audio", wav, "--duration", "\(seconds)",
            "--preset", "ultrafast", "--audio-bitrate", "32000", "--output", path, "-q"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let packets = try ExternalTool.check(
            "ffprobe",
            ["-v", "error", "-show_entries", "packet=codec_type,pts,dts,duration", "-of", "csv=p=0", path]
        ).output.split(separator: "\n")
        var lastDTS: [String: Int] = [:]
        var lastEnd: [String: Int] = [:]
        var audioPTS: [Int] = []
        var backwards = 0
        for line in packets {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 4, let pts = Int(fields[1]), let dts = Int(fields[2]) else { continue }
            let kind = fields[0]
            if let previous = lastDTS[kind], dts < previous { backwards += 1 }
            lastDTS[kind] = dts
            lastEnd[kind] = max(lastEnd[kind] ?? 0, pts + (Int(fields[3]) ?? 0))
            if kind == "audio" { audioPTS.append(pts) }
        }
        #expect(backwards == 0)
        // Packet n of the audio starts n·1024/11025 s after the first: n·1024·90000/11025 ticks, rounded once.
        let first = try #require(audioPTS.first)
        var worst = 0
        for (n, pts) in audioPTS.enumerated() {
            let exact: Double = Double(n) * 1024 * 90_000 / 11_025
            worst = max(worst, Int(abs(Double(pts - first) - exact).rounded(.up)))
        }
        #expect(audioPTS.count > seconds * 11_025 / 1024 - 2, "\(audioPTS.count) audio packets")
        #expect(worst <= 1, "an audio packet's pts is \(worst) ticks from its exact time")
        let videoEnd = try #require(lastEnd["video"])
        let audioEnd = try #require(lastEnd["audio"])
        #expect(abs(videoEnd - audioEnd) < 9_000, "video ends at tick \(videoEnd), audio at \(audioEnd)")
        let videoPackets = packets.filter { $0.hasPrefix("video,") }.count
        #expect(videoPackets == seconds * 10, "\(videoPackets) video frames")
    }

    @Test func usageErrorsAreOneLineWithStatus64() throws {
        let none = try Self.run(["--pattern", "--duration", "1"])
        #expect(none.status == 64)
        #expect(none.stderr == "av-encoder: give at least one --output\n")
        let both = try Self.run(["--pattern", "--video", "x.y4m", "--duration", "1", "--output", "/tmp/x.mp4"])
        #expect(both.status == 64)
        #expect(both.stderr.split(separator: "\n").count == 1)
        let unknown = try Self.run(["--pattern", "--duration", "1", "--output", "/tmp/x.xyz"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("x.xyz"))
        let help = try ExternalTool.run(Self.encoder, ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--audio-bitrate"))
    }
}
