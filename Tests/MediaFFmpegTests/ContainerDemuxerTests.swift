import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ContainerDemuxer judged by ffprobe, ffmpeg and GStreamer: streams, codecs, packet counts and the
/// pts/dts/size of every packet as ffprobe reports them; AVCC back to Annex-B decoding to the same frames;
/// AAC through ADTS decoding to the same sample count; priming trims; seeking; memory input; bad input.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerTests {
    typealias Fixture = DemuxerFixture

    static func fourCC(_ text: String) -> UInt32 { text.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

    // MARK: 1. Streams, codecs, packets as ffprobe reports them

    @Test(arguments: DemuxerFixture.ffmpegKinds + DemuxerFixture.gstreamerKinds)
    func streamsAndPacketsMatchFFprobe(kind: String) throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make(kind, in: dir)
        let probed = try Fixture.probeStreams(path)
        let probedPackets = try Fixture.probePackets(path)
        let demuxer = try ContainerDemuxer(path: path)

        #expect(demuxer.streams.map(\.index) == probed.map(\.index))
        #expect(demuxer.streams.map(\.codecName) == probed.map(\.codecName))
        #expect(demuxer.streams.map(\.isAudio) == probed.map { $0.codecType == "audio" })
        #expect(demuxer.streams.map(\.isVideo) == probed.map { $0.codecType == "video" })
        #expect(demuxer.duration.isNumeric == (kind != "h264"))  // a raw stream declares no duration (ffprobe: N/A)
        let samples = try Fixture.readAll(demuxer)

        for stream in probed {
            let ours = try #require(samples[stream.index], "no samples for stream \(stream.index) of \(kind)")
            let theirs = probedPackets[stream.index] ?? []
            #expect(ours.count == stream.packetCount, "\(kind) stream \(stream.index) packet count")
            #expect(theirs.count == stream.packetCount)
            guard ours.count == theirs.count else { continue }

            // Timing, exactly, in the stream's time base; a missing dts is the pts.
            let pts = ours.map { Fixture.ticks($0.timing.presentationTime, stream.timeBase) }
            let dts = ours.map { Fixture.ticks($0.timing.decodeTime, stream.timeBase) }
            if kind == "h264" {
                // A raw stream has no time stamps (ffprobe: N/A): decode order at 25 fps, starting
                // has_b_frames frames before zero, as the ffmpeg CLI times it for -c copy.
                #expect(theirs.allSatisfy { $0.pts == nil && $0.dts == nil })
                let delay = try #require(
                    Int64(
                        ExternalTool.check(
                            "ffprobe",
                            [
                                "-v", "error", "-show_entries", "stream=has_b_frames", "-of", "csv=p=0", path
                            ]
                        ).output.trimmingCharacters(in: .whitespacesAndNewlines)))
                let expected = ours.indices.map {
                    Optional((Int64($0) - delay) * stream.timeBase.den / 25 / stream.timeBase.num)
                }
                #expect(pts == expected && dts == expected)
            } else {
                #expect(pts == theirs.map(\.pts), "\(kind) stream \(stream.index) pts")
                #expect(dts == theirs.map { $0.dts ?? $0.pts }, "\(kind) stream \(stream.index) dts")
            }

            let format = try #require(demuxer.streams[stream.index].format)
            switch stream.codecName {
            case "aac":
                let audio = try #require(format.audio)
                #expect(audio.codec == .aac)
                let asc = try AudioSpecificConfig(parsing: audio.magicCookie)
                #expect(asc.sampleRate == stream.sampleRate)
                #expect(asc.channelConfiguration == stream.channels)
                #expect(ours.allSatisfy { $0.frameCount == 1024 && $0.format == .audio(audio) })
                if kind == "ts" || kind == "aac" {
                    // ADTS headers (7 bytes, no CRC) stripped; the AudioSpecificConfig is the 2 bytes they imply.
                    #expect(audio.magicCookie.count == 2)
                    #expect(ours.map { $0.byteCount + 7 } == theirs.map(\.size))
                } else {
                    #expect(ours.map(\.byteCount) == theirs.map(\.size))
                }
            case "h264":
                let video = try #require(format.video)
                let parameters = try #require(video.h264)
                #expect(video.codec == .h264)
                #expect(video.width == stream.width && video.height == stream.height)
                #expect(parameters.sequenceParameterSets.count == 1 && parameters.pictureParameterSets.count == 1)
                #expect(parameters.sequenceParameterSets.allSatisfy { $0.first.map { $0 & 0x1F } == 7 })
                #expect(parameters.pictureParameterSets.allSatisfy { $0.first.map { $0 & 0x1F } == 8 })
                #expect(Fixture.h264ProfileName(parameters.profile) == stream.profile)
                // Every sample is well-formed AVCC holding a picture, with every NAL unit the file has
                // (in-band parameter sets and AUDs are kept, as a remux keeps them).
                var nalCounts: [Int] = []
                for sample in ours {
                    let types = try Self.nalTypes(ofAVCC: sample.data)
                    #expect(types.contains { (1...5).contains($0) })
                    #expect(sample.flags.contains(.keyframe) == types.contains(5))
                    nalCounts.append(types.count)
                }
                if kind == "ts" || kind == "h264" {
                    // Annex-B to AVCC: a 4-byte start code becomes a 4-byte length, a 3-byte one a
                    // 4-byte length (one byte more each).
                    #expect(
                        zip(zip(ours, theirs), nalCounts).allSatisfy { pair, units in
                            (0...units).contains(pair.0.byteCount - pair.1.size)
                        })
                    #expect(ours.map { $0.flags.contains(.keyframe) } == theirs.map(\.isKey))
                } else {
                    #expect(ours.map(\.byteCount) == theirs.map(\.size))
                    #expect(ours.map { $0.flags.contains(.keyframe) } == theirs.map(\.isKey))
                }
            case "mp3":
                #expect(format.audio?.codec == .other(fourCC: Self.fourCC(".mp3")))
                #expect(ours.map(\.byteCount) == theirs.map(\.size))
                #expect(ours.allSatisfy { $0.frameCount == 1152 })
            case "pcm_s16le", "pcm_s16be":
                #expect(format.audio?.codec == .pcm(.s16))
                #expect(format.audio?.sampleRate == stream.sampleRate)
                #expect(ours.map(\.byteCount) == theirs.map(\.size))
                #expect(ours.reduce(0) { $0 + $1.frameCount } == 132_300)
                // The bytes, byte-swapped for AIFF, are what ffmpeg decodes to s16le.
                let decoded = try ExternalTool.decode(path, format: "s16le")
                #expect(Data(ours.flatMap(\.data)) == decoded)
            default:
                Issue.record("unexpected codec \(stream.codecName) in \(kind)")
            }
        }
    }

    /// The `nal_unit_type` of each NAL unit of an AVCC sample (4-byte lengths); throws when a length
    /// runs past the end.
    static func nalTypes(ofAVCC bytes: [UInt8]) throws -> [UInt8] {
        var types: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            try #require(bytes.count - offset >= 5)
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            try #require(length > 0 && length <= bytes.count - offset - 4, "AVCC length \(length) at \(offset)")
            types.append(bytes[offset + 4] & 0x1F)
            offset += 4 + length
        }
        return types
    }

    // MARK: 2. Round trips judged by ffmpeg

    /// The AVCC samples, written as Annex-B by AnnexBMuxer (parameter sets before each IDR), decode
    /// with `-xerror` to exactly the frames ffmpeg decodes from the original file.
    @Test(arguments: ["mp4", "ts", "mkv", "flv", "h264", "gst-video.mp4"])
    func h264SamplesBackToAnnexBDecodeToTheSameFrames(kind: String) throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make(kind, in: dir)
        let demuxer = try ContainerDemuxer(path: path)
        let source = try demuxer.source(stream: try #require(demuxer.firstVideoStream))
        let out = dir.file("video.h264")
        let muxer = AnnexBMuxer(output: try FileOutput(path: out))
        var count = 0
        while let sample = try source.next() {
            try muxer.write(sample)
            count += 1
        }
        try muxer.finish()
        let original = try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-xerror", "-i", path, "-map", "0:v", "-f", "framemd5", "-"])
        let ours = try ExternalTool.run("ffmpeg", ["-v", "error", "-xerror", "-i", out, "-f", "framemd5", "-"])
        #expect(ours.status == 0, "\(ours.stderr)")
        #expect(ours.stderr.isEmpty, "\(ours.stderr)")
        let hashes = { (text: String) in
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last ?? "" }
        }
        #expect(hashes(ours.output).count == (kind == "gst-video.mp4" ? 50 : 75))
        #expect(hashes(ours.output) == hashes(original.output))
        #expect(count == hashes(original.output).count)
    }

    /// The AAC samples through ADTSMuxer decode with ffmpeg to every frame of every packet. Less the
    /// priming (`trimAtStart`), that is what ffmpeg decodes from the original: ffmpeg 5.1 drops the
    /// priming but keeps the end padding. Less all trims, it is the track's length as the container
    /// declares it (`duration_ts`, for MP4-family files whose time base is the sample rate).
    @Test(arguments: ["m4a", "mp4", "ts", "mkv", "flv", "aac", "gst-audio.mp4"])
    func aacSamplesThroughADTSDecodeToTheSameSampleCount(kind: String) throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make(kind, in: dir)
        let demuxer = try ContainerDemuxer(path: path)
        let source = try demuxer.source(stream: try #require(demuxer.firstAudioStream))
        let out = dir.file("audio.aac")
        let muxer = ADTSMuxer(output: try FileOutput(path: out))
        var packets = 0
        var trimmedAtStart = 0
        var trimmedAtEnd = 0
        while let sample = try source.next() {
            try muxer.write(sample)
            packets += 1
            trimmedAtStart += sample.trimAtStart
            trimmedAtEnd += sample.trimAtEnd
        }
        try muxer.finish()
        let adtsFrames = try ExternalTool.decode(out, format: "s16le").count / 2
        let originalFrames = try ExternalTool.decode(path, format: "s16le", extra: ["-vn"]).count / 2
        #expect(adtsFrames == packets * 1024)
        #expect(
            adtsFrames - trimmedAtStart == originalFrames,
            "\(kind): \(packets) packets, trims \(trimmedAtStart)/\(trimmedAtEnd)")
        let stream = try #require(
            try ExternalTool.ffprobeJSON(path, ["-show_streams", "-select_streams", "a"])["streams"] as? [[String: Any]]
        ).first
        if let stream, stream["time_base"] as? String == "1/\(stream["sample_rate"] as? String ?? "")" {
            let declared = try #require(stream["duration_ts"] as? Int)
            #expect(adtsFrames - trimmedAtStart - trimmedAtEnd == declared, "\(kind)")
        } else {
            #expect(trimmedAtStart == 0 && trimmedAtEnd == 0, "\(kind) says nothing of priming")
        }
        switch kind {
        case "m4a", "mp4": #expect(trimmedAtStart == 1024 && trimmedAtEnd > 0)
        // no edit list; the last stts entry is 1015
        case "gst-audio.mp4": #expect(trimmedAtStart == 0 && trimmedAtEnd == 9)
        default: break
        }
    }

    /// Decoding our samples with the library's AACDecoder (which drops the trimmed frames) gives the
    /// very samples ffmpeg decodes from the M4A, and exactly the 3 s the track declares (ffmpeg 5.1
    /// keeps the end padding, 820 frames more).
    @Test func aacDecoderOnDemuxedSamplesMatchesFFmpegDecodingTheFile() throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make("m4a", in: dir)
        let demuxer = try ContainerDemuxer(path: path)
        let source = try demuxer.source(stream: 0)
        let decoder = AACDecoder(outputFormat: .f32)
        var pcm: [Float] = []
        let collect = { (sample: MediaSample) in
            sample.withUnsafeBytes { pcm += $0.bindMemory(to: Float.self) }
        }
        while let sample = try source.next() { try decoder.process(sample, into: collect) }
        try decoder.finish(into: collect)
        let reference = RawAudio.floats(try ExternalTool.decode(path, format: "f32le"))
        #expect(pcm.count == 132_300)
        #expect(reference.count == 131 * 1024 - 1024)
        let worst = zip(pcm, reference.prefix(pcm.count)).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-6, "largest difference \(worst)")
    }

    /// The library's H264Decoder takes the demuxed samples as they are (AVCC, parameter sets in the
    /// format) and gives exactly the pictures ffmpeg decodes from the file.
    @Test(arguments: ["mp4", "ts"])
    func h264DecoderOnDemuxedSamplesGivesFFmpegsPictures(kind: String) throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make(kind, in: dir)
        let demuxer = try ContainerDemuxer(path: path)
        let source = try demuxer.source(stream: try #require(demuxer.firstVideoStream))
        let decoder = H264Decoder()
        var pictures = Data()
        var count = 0
        let collect = { (frame: MediaSample) in
            for plane in frame.planes { pictures.append(contentsOf: plane) }
            count += 1
        }
        while let sample = try source.next() { try decoder.process(sample, into: collect) }
        try decoder.finish(into: collect)
        let reference = try ExternalTool.check(
            "ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
        ).stdout
        #expect(count == 75)
        #expect(decoder.damagedFrameCount == 0)
        #expect(pictures.count == 75 * 320 * 240 * 3 / 2)
        #expect(pictures == reference)
    }

    @Test func pathsAreFilesNotURLs() throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make("wav", in: dir)
        // FFmpeg would read this as its concat protocol; as a path it is a file that does not exist.
        #expect { try ContainerDemuxer(path: "concat:\(path)|\(path)") } throws: { ($0 as? MediaError)?.code == .io }
        #expect(try ContainerDemuxer(path: path).streams.count == 1)
    }

    // MARK: 3. Priming

    /// `ffmpeg -c:a aac` of exactly 48000 frames: FFmpeg 5.1's mov demuxer gives a first packet at pts
    /// −1024 with 1024 frames of AV_PKT_DATA_SKIP_SAMPLES, and a last packet of duration 896 (the last
    /// `stts` entry); those become the trims, and the frames left are exactly the 48000.
    @Test func primingOfAnFFmpegM4AIsTrimmedToTheExactLength() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("n48000.m4a")
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-c:a", "aac", path]
        )
        let demuxer = try ContainerDemuxer(path: path)
        let source = try demuxer.source(stream: 0)
        var samples: [MediaSample] = []
        while let sample = try source.next() { samples.append(sample) }
        let n = 48_000
        let starts = samples.map(\.trimAtStart)
        let ends = samples.map(\.trimAtEnd)
        #expect(samples.count == 48)  // ceil((48000 + 1024) / 1024)
        #expect(samples.count * 1024 - starts.reduce(0, +) - ends.reduce(0, +) == n)
        #expect(starts.first == 1024 && starts.dropFirst().allSatisfy { $0 == 0 })
        #expect(ends.last == 48 * 1024 - 1024 - n && ends.dropLast().allSatisfy { $0 == 0 })
        #expect(samples.first?.timing.presentationTime == MediaTime(value: -1024, timescale: 48_000))
        #expect(samples.reduce(0) { $0 + $1.validFrameCount } == n)
        // ffprobe agrees on the length; ffmpeg 5.1 decodes the priming away but keeps the end padding.
        let stream = try #require(try ExternalTool.ffprobeJSON(path, ["-show_streams"])["streams"] as? [[String: Any]])
            .first
        #expect(stream?["duration_ts"] as? Int == n)
        #expect(try ExternalTool.decode(path, format: "s16le").count / 2 == n + ends.reduce(0, +))
    }

    // MARK: 4. Seek

    @Test func seekToTwoSecondsLandsOnAKeyframeAtOrBefore() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("gop.mp4")
        // Keyframes every 10 frames (0.4 s), no scene-cut ones, so "at or before 2 s" has one answer: 2.0 s.
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-f", "lavfi", "-i",
                "testsrc2=size=320x240:rate=25",
                "-t", "3", "-c:a", "aac", "-c:v", "libx264", "-g", "10", "-keyint_min", "10", "-sc_threshold", "0", path
            ])
        let demuxer = try ContainerDemuxer(path: path)
        let video = try demuxer.source(stream: try #require(demuxer.firstVideoStream))
        let audio = try demuxer.source(stream: try #require(demuxer.firstAudioStream))
        _ = try video.next()
        _ = try audio.next()
        for target in [MediaTime(value: 2, timescale: 1), MediaTime(value: 2300, timescale: 1000)] {
            try demuxer.seek(to: target)
            let first = try #require(try video.next())
            #expect(first.flags.contains(.keyframe))
            #expect(first.flags.contains(.discontinuity))
            #expect(first.timing.presentationTime <= target)
            #expect(first.timing.presentationTime == MediaTime(value: 2, timescale: 1))
            var previousDTS = first.timing.decodeTime
            var presentation: [MediaTime] = [first.timing.presentationTime]
            while let sample = try video.next() {
                #expect(sample.timing.decodeTime > previousDTS)
                #expect(!sample.flags.contains(.discontinuity))
                previousDTS = sample.timing.decodeTime
                presentation.append(sample.timing.presentationTime)
            }
            #expect(
                presentation.sorted() == presentation.sorted { $0 < $1 }
                    && Set(presentation).count == presentation.count)
            #expect(presentation.count == 25)  // 2.0 s ..< 3.0 s at 25 fps
            #expect(presentation.min() == MediaTime(value: 2, timescale: 1))
            // Audio continues from about there too (queued while video was read).
            let firstAudio = try #require(try audio.next())
            #expect(
                abs((firstAudio.timing.presentationTime - MediaTime(value: 2, timescale: 1)).converted(to: 1000).value)
                    < 100)
            var previous = firstAudio.timing.presentationTime
            while let sample = try audio.next() {
                #expect(sample.timing.presentationTime > previous)
                previous = sample.timing.presentationTime
            }
        }
    }

    /// MPEG-TS has no index: libavformat's binary search lands near the time, and the demuxer drops
    /// video up to the next keyframe, so the video source still resumes on a keyframe.
    @Test func seekInMPEGTSResumesVideoOnAKeyframe() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("gop.ts")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "3", "-c:v", "libx264",
                "-g", "10", "-keyint_min", "10", "-sc_threshold", "0", path
            ])
        let demuxer = try ContainerDemuxer(path: path)
        let video = try demuxer.source(stream: 0)
        let start = try #require(try video.next()).timing.presentationTime
        try demuxer.seek(to: start + MediaTime(value: 2, timescale: 1))
        let first = try #require(try video.next())
        #expect(first.flags.contains(.keyframe) && first.flags.contains(.discontinuity))
        let offset = (first.timing.presentationTime - start).converted(to: 1000)
        #expect(offset.value >= 1200 && offset.value <= 2400, "resumed at \(offset.value) ms")
        var count = 1
        while try video.next() != nil { count += 1 }
        #expect(count == 75 - Int(offset.value / 40))
    }

    // MARK: 5. Reading from bytes

    @Test(arguments: ["mp4", "ts", "mkv", "wav"])
    func bytesGiveTheSameSamplesAsThePath(kind: String) throws {
        let dir = try TemporaryDirectory()
        let path = try Fixture.make(kind, in: dir)
        let fromPath = try ContainerDemuxer(path: path)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let fromBytes = try ContainerDemuxer(bytes: bytes)
        #expect(fromBytes.formatName == fromPath.formatName)
        #expect(fromBytes.streams == fromPath.streams)
        let a = try Fixture.readAll(fromPath)
        let b = try Fixture.readAll(fromBytes)
        #expect(!a.isEmpty && a.values.allSatisfy { !$0.isEmpty })
        #expect(a == b)
        // A named format skips probing and reads the same.
        let named = ["mp4": "mp4", "ts": "mpegts", "mkv": "matroska", "wav": "wav"][kind]
        let c = try Fixture.readAll(ContainerDemuxer(bytes: bytes, formatName: named))
        #expect(c == a)
    }

    @Test func formatNamesAreLibavformats() throws {
        let dir = try TemporaryDirectory()
        #expect(try ContainerDemuxer(path: Fixture.make("mp4", in: dir)).formatName == "mov,mp4,m4a,3gp,3g2,mj2")
        #expect(try ContainerDemuxer(path: Fixture.make("mkv", in: dir)).formatName == "matroska,webm")
        #expect(try ContainerDemuxer(path: Fixture.make("ts", in: dir)).formatName == "mpegts")
        let mp4 = try ContainerDemuxer(path: dir.file("in.mp4"))
        #expect(mp4.duration == MediaTime(value: 3, timescale: 1))
        #expect(
            mp4.streams.map(\.packetCount) == [75, 130].map(Optional.some)
                || mp4.streams.map(\.packetCount) == [75, 131].map(Optional.some))
        #expect(mp4.streams[0].duration == MediaTime(value: 3, timescale: 1))
        #expect(mp4.firstVideoStream == 0 && mp4.firstAudioStream == 1)
    }
}
