import Foundation
import MediaCore
import MediaFFmpeg
import MediaTestSupport
import Testing

@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct H264EncoderTests {
    static func settings(_ edit: (inout H264Encoder.Settings) -> Void = { _ in }) -> H264Encoder.Settings {
        var settings = H264Encoder.Settings()
        settings.preset = "veryfast"
        settings.averageBitRate = 1_500_000
        settings.maxKeyFrameInterval = 30
        edit(&settings)
        return settings
    }

    /// Our stream decodes to exactly the frames of `ffmpeg -c:v libx264 -preset veryfast -b:v 1500k -g 30`
    /// on the same input (framemd5 of both). Both run single-threaded: x264's frame-threaded rate
    /// control depends on thread timing (the CLI itself gives one of two streams under load), so only a
    /// fixed thread count is reproducible. Against the CLI fed the raw .yuv, the NAL units are identical
    /// too: same SPS/PPS, same access units (only start-code lengths differ in the Annex-B files).
    @Test(arguments: [(320, 240, 60), (1280, 720, 30)])
    func matchesTheCLI(width: Int, height: Int, count: Int) throws {
        let clip = try VideoClip(width: width, height: height, count: count)
        let ours = try Video.run(try H264Encoder(settings: Self.settings { $0.threads = 1 }), clip.frames)
        let oursPath = clip.dir.file("ours.h264")
        try Video.write(Video.annexB(ours), to: oursPath)
        let x264 = [
            "-c:v", "libx264", "-preset", "veryfast", "-b:v", "1500k", "-g", "30", "-threads", "1", "-f", "h264"
        ]
        let cliPath = clip.dir.file("cli.h264")
        // `setsar=0`: the y4m says A1:1, which the CLI writes into the VUI, while our frames here come from
        // the raw file and carry no aspect ratio; x264's ABR counts header bits, so a longer SPS changes
        // every later frame. (H264EncoderExampleTests compares Y4MReader's frames, A and C tags included,
        // with the CLI on the same y4m.)
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", clip.y4mPath, "-vf", "setsar=0"] + x264 + [cliPath])
        let oursHashes = try Video.frameHashes(oursPath)
        let cliHashes = try Video.frameHashes(cliPath)
        #expect(oursHashes.count == count)
        #expect(oursHashes == cliHashes, "framemd5 differs")

        let rawPath = clip.dir.file("cli-raw.h264")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-r", "24", "-i",
                clip.yuvPath
            ] + x264 + [rawPath])
        let cliBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: rawPath)))
        let cliSamples = Video.avccSamples(annexB: cliBytes, width: width, height: height, rate: clip.rate)
        #expect(cliSamples.count == ours.count)
        #expect(cliSamples.map(\.data) == ours.map(\.data), "access unit bytes differ")
        #expect(cliSamples.first?.format.video?.h264 == ours.first?.format.video?.h264, "parameter sets differ")
        #expect(try Video.frameHashes(rawPath) == oursHashes)
    }

    /// ffprobe reads the profile, size and every frame; ffmpeg -xerror decodes it all.
    @Test func ffprobeAcceptsTheStream() throws {
        let clip = try VideoClip(count: 24)
        let ours = try Video.run(try H264Encoder(settings: Self.settings { $0.profile = "main" }), clip.frames)
        let path = clip.dir.file("ours.h264")
        try Video.write(Video.annexB(ours), to: path)
        let json = try ExternalTool.ffprobeJSON(path, ["-count_frames", "-show_streams"])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect(stream["profile"] as? String == "Main")
        #expect(stream["width"] as? Int == 320)
        #expect(stream["height"] as? Int == 240)
        #expect(stream["nb_read_frames"] as? String == "24")
        #expect(try Video.frameHashes(path).count == 24)
        #expect(ours.count == 24)
        #expect(ours.first?.format.video?.h264?.profile == 77)
        #expect(ours.allSatisfy { $0.format.video?.width == 320 && $0.format.video?.height == 240 })
        // AVCC, no parameter sets in-band.
        for sample in ours {
            var offset = 0
            let bytes = sample.data
            while offset + 4 <= bytes.count {
                let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                #expect(length > 0 && offset + 4 + length <= bytes.count)
                #expect(![7, 8].contains(bytes[offset + 4] & 0x1F))
                offset += 4 + length
            }
            #expect(offset == bytes.count)
        }
    }

    /// Keyframes land every maxKeyFrameInterval frames, in our flags and in ffprobe's key_frame.
    @Test func keyframesEveryInterval() throws {
        let clip = try VideoClip(count: 48)
        for (settings, interval) in [
            (Self.settings { $0.maxKeyFrameInterval = 12 }, 12),
            (
                Self.settings {
                    $0.maxKeyFrameInterval = nil; $0.maxKeyFrameIntervalDuration = MediaTime(value: 1, timescale: 1)
                }, 24
            )
        ] {
            let ours = try Video.run(try H264Encoder(settings: settings), clip.frames)
            let byPTS = ours.sorted { $0.timing.presentationTime < $1.timing.presentationTime }
            let keyIndices = byPTS.indices.filter { byPTS[$0].flags.contains(.keyframe) }
            #expect(keyIndices == Array(stride(from: 0, to: 48, by: interval)))
            let path = clip.dir.file("key\(interval).h264")
            try Video.write(Video.annexB(ours), to: path)
            let probed = try Video.probeKeyFrames(path)
            #expect(probed.indices.filter { probed[$0] } == keyIndices)
        }
    }

    /// A KeyframeRequest made before frame 20 makes frame 20 an IDR (and ffprobe agrees), in a stream
    /// whose next scheduled keyframe is 250 frames away; one request gives one keyframe.
    @Test func aKeyframeRequestMakesTheNextFrameAKeyframe() throws {
        let clip = try VideoClip(count: 48)
        let encoder = try H264Encoder(settings: Self.settings { $0.maxKeyFrameInterval = 250 })
        let keyframes = KeyframeRequest()
        encoder.keyframeRequest = keyframes
        var ours: [MediaSample] = []
        for (index, frame) in clip.frames.enumerated() {
            if index == 20 { keyframes.request() }
            try encoder.process(frame) { ours.append($0) }
        }
        try encoder.finish { ours.append($0) }
        let byPTS = ours.sorted { $0.timing.presentationTime < $1.timing.presentationTime }
        let keyIndices = byPTS.indices.filter { byPTS[$0].flags.contains(.keyframe) }
        #expect(keyIndices == [0, 20] && keyframes.taken == 1)
        let path = clip.dir.file("requested.h264")
        try Video.write(Video.annexB(ours), to: path)
        let probed = try Video.probeKeyFrames(path)
        #expect(probed.indices.filter { probed[$0] } == [0, 20])
    }

    /// With B-frames, decode times run behind presentation times and strictly increase; the
    /// presentation times are the input's. Without reordering, dts == pts.
    @Test func bFramesAndReordering() throws {
        let clip = try VideoClip(count: 48)
        let inputPTS = clip.frames.map(\.timing.presentationTime)
        let withB = try Video.run(try H264Encoder(settings: Self.settings { $0.maxBFrames = 3 }), clip.frames)
        #expect(withB.contains { $0.timing.decodeTime < $0.timing.presentationTime })
        #expect(zip(withB, withB.dropFirst()).allSatisfy { $0.timing.decodeTime < $1.timing.decodeTime })
        #expect(Set(withB.map(\.timing.presentationTime)) == Set(inputPTS))
        #expect(withB.count == 48)
        #expect(
            withB.allSatisfy {
                $0.timing.decodeTime.timescale == 24 && $0.timing.duration == MediaTime(value: 1, timescale: 24)
            })

        let noB = try Video.run(
            try H264Encoder(settings: Self.settings { $0.allowFrameReordering = false }), clip.frames)
        #expect(noB.count == 48)
        #expect(noB.allSatisfy { $0.timing.decodeTime == $0.timing.presentationTime })
        #expect(noB.map(\.timing.presentationTime) == inputPTS)
    }

    /// realTime (zerolatency): one access unit out for each frame in, at once.
    @Test func realTimeHasNoDelay() throws {
        let clip = try VideoClip(count: 12)
        let encoder = try H264Encoder(settings: Self.settings { $0.realTime = true })
        for (n, frame) in clip.frames.enumerated() {
            var out: [MediaSample] = []
            try encoder.process(frame) { out.append($0) }
            #expect(out.count == 1, "frame \(n) gave \(out.count) samples")
            #expect(out.first?.timing.presentationTime == frame.timing.presentationTime)
        }
        var rest: [MediaSample] = []
        try encoder.finish { rest.append($0) }
        #expect(rest.isEmpty)
    }

    /// A stream that starts at 10 s keeps its times, and decodes like one that starts at 0.
    @Test func firstPresentationTimeNeedNotBeZero() throws {
        let clip = try VideoClip(count: 24, startFrame: 240)
        let ours = try Video.run(try H264Encoder(settings: Self.settings()), clip.frames)
        #expect(ours.map(\.timing.presentationTime).sorted() == clip.frames.map(\.timing.presentationTime))
        #expect(ours.first?.timing.presentationTime == MediaTime(value: 10, timescale: 1))
        let zero = try Video.run(
            try H264Encoder(settings: Self.settings()),
            VideoClip.split(
                clip.frames.flatMap { $0.planes.flatMap { $0 } },
                format: .raw(.yuv420p, width: 320, height: 240, frameRate: FrameRate(24))))
        #expect(zero.map(\.data) == ours.map(\.data))
    }

    /// Padded rows (a stride wider than the picture) give the same stream as packed rows.
    @Test func honoursStrides() throws {
        let clip = try VideoClip(count: 6)
        let padded = clip.frames.map { frame in
            let format = VideoFormat(
                codec: .raw(.yuv420p), width: 320, height: 240, frameRate: FrameRate(24), bytesPerRow: [352, 192, 192])
            var copy = frame
            copy.format = .video(format)
            copy.planes = frame.planes.enumerated().map { index, plane in
                let width = index == 0 ? 320 : 160
                let stride = index == 0 ? 352 : 192
                var out: [UInt8] = []
                for row in 0..<(plane.count / width) {
                    out += plane[row * width..<(row + 1) * width] + [UInt8](repeating: 0xAB, count: stride - width)
                }
                return out
            }
            return copy
        }
        let a = try Video.run(try H264Encoder(settings: Self.settings { $0.threads = 1 }), clip.frames)
        let b = try Video.run(try H264Encoder(settings: Self.settings { $0.threads = 1 }), padded)
        #expect(a.count == 6)
        #expect(a.map(\.data) == b.map(\.data))
    }

    /// nv12 (what capture hardware gives) goes straight into libx264 and decodes within 35 dB of the source.
    @Test func acceptsNV12() throws {
        let clip = try VideoClip(count: 6)
        let nv12 = try Video.run(try VideoConverter(to: .nv12), clip.frames)
        let encoded = try Video.run(try H264Encoder(settings: Self.settings { $0.averageBitRate = 4_000_000 }), nv12)
        #expect(encoded.count == 6)
        let decoded = try Video.run(H264Decoder(), encoded)
        #expect(decoded.count == 6)
        #expect(decoded.allSatisfy { $0.format.video?.pixelFormat == .yuv420p })
        #expect(zip(clip.frames, decoded).allSatisfy { Video.lumaPSNR($0, $1) >= 35 })
    }

    @Test func unavailableEncoders() throws {
        #expect { try H264Encoder(encoderName: "h264_nonexistent") } throws: {
            ($0 as? MediaError)?.code == .unavailable && "\($0)".contains("h264_nonexistent")
        }
        // h264_nvenc is in Debian's build but there is no NVIDIA hardware here: unavailable, either at
        // creation or when the first frame opens it.
        let clip = try VideoClip(count: 1)
        #expect { try Video.run(try H264Encoder(encoderName: "h264_nvenc"), clip.frames) } throws: {
            ($0 as? MediaError)?.code == .unavailable && "\($0)".contains("h264_nvenc")
        }
    }

    @Test func refusesOtherPixelFormatsAndBadFrames() throws {
        let bgra = MediaSample(
            format: .video(.raw(.bgra, width: 16, height: 16, frameRate: FrameRate(24))),
            planes: [[UInt8](repeating: 0, count: 1024)],
            timing: SampleTiming(presentationTime: .zero, duration: MediaTime(value: 1, timescale: 24)), frameCount: 1)
        #expect { try Video.run(try H264Encoder(), [bgra]) } throws: {
            ($0 as? MediaError)?.code == .formatMismatch && "\($0)".contains("VideoConverter")
        }
        let clip = try VideoClip(count: 3)
        var short = clip.frames[2]
        short.planes[0] = Array(short.planes[0].prefix(1000))
        #expect { try Video.run(try H264Encoder(), Array(clip.frames.prefix(2)) + [short]) } throws: {
            ($0 as? MediaError)?.code == .invalidData && ($0 as? MediaError)?.sampleIndex == 2
        }
        let encoder = CheckedStage(try H264Encoder())
        try encoder.finish { _ in }
        #expect { try encoder.process(clip.frames[0]) { _ in } } throws: {
            ($0 as? MediaError)?.code == .stageFinished && ($0 as? MediaError)?.stage == "H264Encoder"
        }
    }
}
