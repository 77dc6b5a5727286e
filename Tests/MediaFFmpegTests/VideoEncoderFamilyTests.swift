import Foundation
import MediaCore
import MediaFFmpeg
import MediaTestSupport
import Testing

/// HEVCEncoder, AV1Encoder and VP9Encoder (one session with H264Encoder) against the `ffmpeg` CLI with
/// the same settings on the same frames, muxed by ContainerMuxer and read back by ffprobe; VideoDecoder
/// against ffmpeg's decoding of the CLI's file.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct VideoEncoderFamilyTests {
    /// One encoder, its settings, the CLI's flags for the same, and the container both write.
    struct Case: CustomStringConvertible, Sendable {
        let codec: String
        let container: String
        let cli: [String]
        let settings: VideoEncoderSettings
        var description: String { codec }

        func encoder(av1: String = "libsvtav1") throws -> VideoEncoder {
            switch codec {
            case "hevc": return try HEVCEncoder(settings: settings)
            case "av1":
                var settings = settings
                if av1 == "libaom-av1" { settings.preset = "8" }  // libaom's cpu-used goes to 8 (SVT's preset to 13)
                return try AV1Encoder(settings: settings, encoderName: av1)
            default: return try VP9Encoder(settings: settings)
            }
        }
    }

    static let cases: [Case] = {
        var hevc = VideoEncoderSettings()
        hevc.preset = "fast"
        hevc.averageBitRate = 400_000
        hevc.threads = 1
        var av1 = VideoEncoderSettings()
        av1.preset = "12"
        av1.threads = 1
        var vp9 = VideoEncoderSettings()
        vp9.averageBitRate = 400_000
        vp9.preset = "4"
        vp9.threads = 1
        return [
            Case(
                codec: "hevc", container: "mp4", cli: ["-c:v", "libx265", "-preset", "fast", "-b:v", "400k"],
                settings: hevc),
            Case(codec: "av1", container: "mp4", cli: ["-c:v", "libsvtav1", "-preset", "12"], settings: av1),
            Case(
                codec: "vp9", container: "webm", cli: ["-c:v", "libvpx-vp9", "-b:v", "400k", "-cpu-used", "4"],
                settings: vp9)
        ]
    }()

    /// Each packet's pts and dts (in seconds: the muxers' timescales differ), flags and MD5, as ffprobe reads them from `path`'s video stream.
    static func packets(_ path: String) throws -> [String] {
        let json = try ExternalTool.ffprobeJSON(
            path, ["-select_streams", "v", "-show_packets", "-show_data_hash", "md5"])
        let packets = try #require(json["packets"] as? [[String: Any]])
        return packets.map { packet in
            ["pts_time", "dts_time", "flags", "data_hash"].map { "\(packet[$0] ?? "-")" }.joined(separator: " ")
        }
    }

    /// `ffmpeg` with `flags` on the clip's raw frames, one thread: the same pictures our encoders get,
    /// without the aspect ratio and chroma location a y4m header would add (x265 and SVT-AV1 write them
    /// into the stream, which changes every packet after).
    static func cliEncode(_ clip: VideoClip, _ flags: [String], to path: String) throws {
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(clip.width)x\(clip.height)", "-r",
                "\(clip.rate.numerator)/\(clip.rate.denominator)", "-i", clip.yuvPath, "-threads", "1"
            ] + flags + [path])
    }

    /// The payload of the first `type` box anywhere in `bytes` (sample entries hide theirs from a box walk).
    static func box(_ type: String, in bytes: [UInt8]) -> [UInt8]? {
        let tag = Array(type.utf8)
        guard bytes.count > 8 else { return nil }
        for at in 4..<(bytes.count - 4) where Array(bytes[at..<at + 4]) == tag {
            let size = bytes[at - 4..<at].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, at - 4 + size <= bytes.count else { continue }
            return Array(bytes[at + 4..<at - 4 + size])
        }
        return nil
    }

    /// Our packets are the CLI's (one thread each), and VideoDecoder decodes them to the frames ffmpeg
    /// decodes from the CLI's file.
    @Test(arguments: cases) func matchesTheCLI(_ test: Case) throws {
        let clip = try VideoClip(count: 48)
        let encoder = try test.encoder()
        let ours = try Video.run(encoder, clip.frames)
        #expect(ours.count == 48)
        #expect(ours.first?.flags.contains(.keyframe) == true)
        let oursPath = clip.dir.file("ours.\(test.container)")
        try MuxFixtures.mux(try ContainerMuxer(path: oursPath), [ours])
        let cliPath = clip.dir.file("cli.\(test.container)")
        try Self.cliEncode(clip, test.cli, to: cliPath)
        let oursPackets = try Self.packets(oursPath)
        #expect(oursPackets.count == 48)
        let cliPackets = try Self.packets(cliPath)
        let differing = zip(oursPackets, cliPackets).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(oursPackets == cliPackets, "packets differ from the CLI's, first at \(String(describing: differing))")

        let decoded = try Video.run(VideoDecoder(), ours)
        #expect(decoded.count == 48)
        var raw: [UInt8] = []
        for frame in decoded {
            let format = try #require(frame.format.video)
            for plane in 0..<3 {
                let rows = format.planeRows[plane]
                let width = plane == 0 ? format.width : (format.width + 1) / 2
                let stride = format.bytesPerRow[plane]
                frame.withUnsafeBytes(plane: plane) { bytes in
                    for row in 0..<rows { raw += bytes[row * stride..<row * stride + width] }
                }
            }
        }
        let cliRaw = try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", cliPath, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        #expect([UInt8](cliRaw.stdout) == raw, "decoded frames differ from ffmpeg's")
        #expect(zip(clip.frames, decoded).allSatisfy { Video.lumaPSNR($0, $1) >= 30 })
    }

    /// HEVC in MP4: an `hvc1` sample entry whose `hvcC` is the CLI's, byte for byte; mediainfo and
    /// ffprobe name it; ffmpeg -xerror and GStreamer decode it.
    @Test func hevcInMP4IsTaggedHvc1WithTheCLIsHvcC() throws {
        let clip = try VideoClip(count: 24)
        let ours = try Video.run(try HEVCEncoder(settings: Self.cases[0].settings), clip.frames)
        let path = clip.dir.file("ours.mp4")
        try MuxFixtures.mux(try ContainerMuxer(path: path), [ours])
        let cliPath = clip.dir.file("cli.mp4")
        try Self.cliEncode(clip, Self.cases[0].cli, to: cliPath)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let cliBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cliPath)))
        let hvcC = try #require(Self.box("hvcC", in: bytes))
        let cliHvcC = try #require(Self.box("hvcC", in: cliBytes))
        let differing = zip(hvcC, cliHvcC).enumerated().filter { $0.element.0 != $0.element.1 }.prefix(8)
        #expect(hvcC.count == cliHvcC.count && hvcC == cliHvcC, "hvcC differs from the CLI's at \(Array(differing))")
        #expect(Self.box("hvc1", in: bytes) != nil)
        let stream = try #require(try MuxFixtures.streams(path).first)
        #expect(stream["codec_name"] as? String == "hevc")
        #expect(stream["codec_tag_string"] as? String == "hvc1")
        let info = try ExternalTool.check("mediainfo", ["--Inform=Video;%Format%/%CodecID%", path])
        #expect(info.output.trimmingCharacters(in: .whitespacesAndNewlines) == "HEVC/hvc1", "\(info.output)")
        #expect(try MuxFixtures.strictDecode(path).status == 0)
        let discovered = try ExternalTool.run("gst-discoverer-1.0", ["file://" + path])
        #expect(discovered.output.contains("H.265"), "\(discovered.output)")
    }

    /// AV1 in MP4: `av01` with `av1C`, decoded by dav1d and by libaom without an error.
    @Test func av1InMP4DecodesWithDav1dAndLibaom() throws {
        let clip = try VideoClip(count: 24)
        let ours = try Video.run(try AV1Encoder(settings: Self.cases[1].settings), clip.frames)
        let path = clip.dir.file("ours.mp4")
        try MuxFixtures.mux(try ContainerMuxer(path: path), [ours])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Self.box("av01", in: bytes) != nil)
        let av1C = try #require(Self.box("av1C", in: bytes))
        #expect(av1C.first == 0x81, "av1C marker and version")
        for decoder in ["libdav1d", "libaom-av1"] {
            let run = try ExternalTool.run(
                "ffmpeg", ["-v", "error", "-xerror", "-c:v", decoder, "-i", path, "-f", "framemd5", "-"])
            #expect(run.status == 0, "\(decoder): \(run.stderr)")
            #expect(run.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 24, "\(decoder)")
        }
    }

    /// VP9 and Opus in WebM: ffmpeg -xerror decodes both, GStreamer discovers both.
    @Test func vp9AndOpusInWebM() throws {
        let clip = try VideoClip(count: 24)
        let video = try Video.run(try VP9Encoder(settings: Self.cases[2].settings), clip.frames)
        let tone = PCM.sine(frames: 48_000)
        let audio = try Video.run(try OpusEncoder(), tone)
        let path = clip.dir.file("ours.webm")
        try MuxFixtures.mux(try ContainerMuxer(path: path), [video, audio])
        let decode = try MuxFixtures.strictDecode(path)
        #expect(decode.status == 0, "\(decode.stderr)")
        #expect(decode.stderr.isEmpty, "\(decode.stderr)")
        let discovered = try ExternalTool.run("gst-discoverer-1.0", ["file://" + path])
        #expect(discovered.status == 0, "\(discovered.stderr)")
        #expect(discovered.output.contains("VP9"), "\(discovered.output)")
        #expect(discovered.output.contains("Opus"), "\(discovered.output)")
    }

    /// A keyframe request before frame 20 makes frame 20 a keyframe, in our flags and in ffprobe's
    /// (AV1 with libaom: FFmpeg 5.1's SVT-AV1 wrapper cannot, `svtAV1SaysItIgnoresKeyframeRequests`).
    @Test(arguments: cases) func aKeyframeRequestMakesAKeyframe(_ test: Case) throws {
        let clip = try VideoClip(count: 30)
        let encoder = try test.encoder(av1: "libaom-av1")
        let request = KeyframeRequest()
        encoder.keyframeRequest = request
        var out: [MediaSample] = []
        for (index, frame) in clip.frames.enumerated() {
            if index == 20 { request.request() }
            try encoder.process(frame) { out.append($0) }
        }
        try encoder.finish { out.append($0) }
        let keyed = out.sorted { $0.timing.presentationTime < $1.timing.presentationTime }.map {
            $0.flags.contains(.keyframe)
        }
        #expect(keyed.count == 30)
        #expect(keyed[0] && keyed[20], "\(keyed)")
        let path = clip.dir.file("ours.\(test.container)")
        try MuxFixtures.mux(try ContainerMuxer(path: path), [out])
        let probed = try Video.probeKeyFrames(path)
        #expect(probed.count == 30)
        #expect(probed.count == 30 && probed[20], "\(probed)")
    }

    /// SVT-AV1 through FFmpeg 5.1 cannot force a keyframe: the request is logged as a warning naming
    /// the frame, and the stream goes on.
    @Test func svtAV1SaysItIgnoresKeyframeRequests() throws {
        let clip = try VideoClip(count: 12)
        let encoder = try Self.cases[1].encoder()
        let log = LogRecords()
        encoder.logger = log.logger()
        encoder.forceKeyframe()
        let out = try Video.run(encoder, clip.frames)
        #expect(out.count == 12)
        let warning = try #require(log.with(code: "keyframeNotHonoured").first)
        #expect(warning.metadata["sampleIndex"] == "0")
        #expect(warning.message.contains("libsvtav1"))
    }

    /// Settings an encoder has no equivalent for, and formats it does not take, are refused by name.
    @Test func refusals() throws {
        var level = VideoEncoderSettings()
        level.level = "4.1"
        #expect { try VP9Encoder(settings: level) } throws: { ($0 as? MediaError)?.code == .invalidArgument }
        #expect { try AV1Encoder(settings: level) } throws: { ($0 as? MediaError)?.code == .invalidArgument }
        var profile = VideoEncoderSettings()
        profile.profile = "baseline"
        #expect { try AV1Encoder(settings: profile) } throws: { "\($0)".contains("baseline") }
        #expect { try HEVCEncoder(encoderName: "hevc_nonexistent") } throws: {
            ($0 as? MediaError)?.code == .unavailable && "\($0)".contains("hevc_nonexistent")
        }
        let nv12 = try VideoClip(count: 1).frames.map { frame in
            MediaSample(
                format: .video(.raw(.nv12, width: 320, height: 240, frameRate: FrameRate(24))),
                planes: [[UInt8](repeating: 0, count: 320 * 240), [UInt8](repeating: 128, count: 320 * 120)],
                timing: frame.timing, frameCount: 1)
        }
        #expect { try Video.run(try AV1Encoder(), nv12) } throws: {
            ($0 as? MediaError)?.code == .formatMismatch && "\($0)".contains("AV1Encoder")
                && "\($0)".contains("VideoConverter")
        }
        #expect {
            try Video.run(VideoDecoder(), try Video.run(try H264Encoder(), try VideoClip(count: 2).frames))
        } throws: {
            ($0 as? MediaError)?.code == .formatMismatch && "\($0)".contains("H264Decoder")
        }
    }
}
