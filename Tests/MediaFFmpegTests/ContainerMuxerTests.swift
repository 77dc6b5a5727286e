import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// ContainerMuxer judged by ffprobe, ffmpeg and GStreamer: 10 s of the test pattern (H.264) and a tone
/// (AAC) from the real encoders, muxed by hand in decode-time order.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerMuxerTests {
    let video = MuxFixtures.video
    let audio = MuxFixtures.audio

    @Test func fixturesAreEncoded() {
        #expect(video.count == 300)
        #expect(audio.count == (480_000 + 1024 + 1023) / 1024)
        #expect(audio.first?.trimAtStart == 1024)
    }

    /// Pattern + tone → MP4: one h264 and one aac stream, durations within a frame, same start, decodes
    /// strictly, GStreamer sees both, moov before mdat.
    @Test func mp4WithVideoAndAudio() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("av.mp4")
        let muxer = try ContainerMuxer(path: path)
        #expect(muxer.format == .mp4)
        try MuxFixtures.mux(muxer, [video, audio])
        #expect(muxer.samplesWritten == Int64(video.count + audio.count))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(muxer.bytesWritten == Int64(size))

        let streams = try MuxFixtures.streams(path)
        #expect(streams.count == 2)
        let v = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let a = try #require(streams.first { $0["codec_type"] as? String == "audio" })
        #expect(v["codec_name"] as? String == "h264")
        #expect(a["codec_name"] as? String == "aac")
        #expect(v["nb_read_packets"] as? String == "300")
        #expect(a["nb_read_packets"] as? String == "\(audio.count)")
        let vDuration = try #require((v["duration"] as? String).flatMap(Double.init))
        let aDuration = try #require((a["duration"] as? String).flatMap(Double.init))
        #expect(abs(vDuration - 10) < 1e-6, "video duration \(vDuration)")
        #expect(abs(vDuration - aDuration) <= 1.0 / 30, "video \(vDuration) s, audio \(aDuration) s")
        let vStart = try #require((v["start_time"] as? String).flatMap(Double.init))
        let aStart = try #require((a["start_time"] as? String).flatMap(Double.init))
        #expect(vStart == aStart, "start_time video \(vStart), audio \(aStart)")

        let decode = try MuxFixtures.strictDecode(path)
        #expect(decode.status == 0, "\(decode.stderr)")
        #expect(decode.stderr.isEmpty, "\(decode.stderr)")

        let discovered = try ExternalTool.run("gst-discoverer-1.0", ["file://" + path])
        #expect(discovered.status == 0, "\(discovered.stderr)")
        #expect(discovered.output.contains("H.264"), "\(discovered.output)")
        #expect(discovered.output.contains("MPEG-4 AAC"), "\(discovered.output)")

        let boxes = ISOBMFF.topLevelBoxes([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))).map(\.type)
        let moov = try #require(boxes.firstIndex(of: "moov"))
        let mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(moov < mdat, "top-level boxes: \(boxes)")
    }

    /// The same tracks into MOV, MPEG-TS, FLV and Matroska: both streams with the right codecs, every
    /// packet there, strict decode.
    @Test(arguments: ["mov", "ts", "flv", "mkv"])
    func otherContainers(fileExtension: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("av." + fileExtension)
        let muxer = try ContainerMuxer(path: path)
        #expect(muxer.format == ContainerFormat(fileExtension: fileExtension))
        try MuxFixtures.mux(muxer, [video, audio])

        let streams = try MuxFixtures.streams(path)
        #expect(streams.count == 2)
        let v = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let a = try #require(streams.first { $0["codec_type"] as? String == "audio" })
        #expect(v["codec_name"] as? String == "h264")
        #expect(a["codec_name"] as? String == "aac")
        #expect(v["nb_read_packets"] as? String == "\(video.count)")
        #expect(a["nb_read_packets"] as? String == "\(audio.count)")
        #expect(a["sample_rate"] as? String == "48000")
        #expect(a["channels"] as? Int == 2)
        let decode = try MuxFixtures.strictDecode(path)
        #expect(decode.status == 0, "\(decode.stderr)")
        #expect(try MuxFixtures.decodedVideoFrames(path, strict: true) == 300)

        let discovered = try ExternalTool.run("gst-discoverer-1.0", ["file://" + path])
        #expect(discovered.status == 0, "\(discovered.stderr)")
        #expect(discovered.output.contains("H.264") && discovered.output.contains("MPEG-4 AAC"), "\(discovered.output)")
    }

    /// In MPEG-TS libavformat turns AVCC into Annex-B (its automatic h264_mp4toannexb, with SPS/PPS
    /// before every IDR) and puts ADTS headers on the AAC packets.
    @Test func mpegTSCarriesAnnexBAndADTS() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("av.ts")
        try MuxFixtures.mux(try ContainerMuxer(path: path), [video, audio])
        func firstPacket(_ stream: String) throws -> [UInt8] {
            let json = try ExternalTool.ffprobeJSON(
                path, ["-select_streams", stream, "-read_intervals", "%+#1", "-show_packets", "-show_data"])
            let packet = try #require((json["packets"] as? [[String: Any]])?.first)
            let dump = try #require(packet["data"] as? String)
            // Lines of "offset: hex groups  ascii": keep the hex groups.
            let hex = dump.split(separator: "\n").flatMap { line in
                line.split(separator: ":", maxSplits: 1).dropFirst().first.map {
                    $0.split(separator: " ").prefix(8).joined()
                } ?? ""
            }
            return stride(from: 0, to: hex.count - 1, by: 2).compactMap {
                UInt8(String(hex[hex.index(hex.startIndex, offsetBy: $0)...].prefix(2)), radix: 16)
            }
        }
        let adts = try firstPacket("a:0")
        #expect(
            adts.count > 7 && adts[0] == 0xFF && adts[1] & 0xF0 == 0xF0,
            "first audio packet does not start with an ADTS sync word: \(adts.prefix(8))")
        let annexB = try firstPacket("v:0")
        #expect(Array(annexB.prefix(4)) == [0, 0, 0, 1], "first video packet: \(annexB.prefix(8))")
        let sps = try #require(video[0].format.video?.h264?.sequenceParameterSets.first)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let needle = [0, 0, 1] + sps.prefix(4)
        let spsCount = (0..<(bytes.count - needle.count)).filter {
            bytes[$0] == 0 && Array(bytes[$0..<$0 + needle.count]) == needle
        }.count
        #expect(spsCount == video.filter { $0.flags.contains(.keyframe) }.count, "SPS in-band \(spsCount) times")
    }

    /// `.ts` gets 188-byte packets, `.m2ts` the 192-byte BDAV packets (a 4-byte timestamp before each
    /// sync byte), and ffmpeg reads both.
    @Test func transportStreamPacketSizes() throws {
        let dir = try TemporaryDirectory()
        for (name, size, sync) in [("a.ts", 188, 0), ("a.m2ts", 192, 4)] {
            let path = dir.file(name)
            try MuxFixtures.mux(try ContainerMuxer(path: path), [Array(video.prefix(60)), Array(audio.prefix(94))])
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(bytes.count % size == 0, "\(name): \(bytes.count) bytes")
            #expect(
                stride(from: sync, to: bytes.count, by: size).allSatisfy { bytes[$0] == 0x47 },
                "\(name): sync bytes every \(size)")
            #expect(try MuxFixtures.decodedVideoFrames(path, strict: true) == 60)
        }
    }

    /// Fragmented MP4: moof boxes, ffprobe reads it; cut at a fragment boundary it decodes strictly to
    /// the frames before the cut, and cut in the middle of a fragment the complete fragments still decode.
    @Test func fragmentedMP4SurvivesTruncation() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("frag.mp4")
        var options = ContainerMuxer.Options()
        options.fragmented = true
        try MuxFixtures.mux(try ContainerMuxer(path: path, options: options), [video, audio])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let boxes = ISOBMFF.topLevelBoxes(bytes)
        let moofs = boxes.filter { $0.type == "moof" }
        #expect(moofs.count >= 10, "\(boxes.map(\.type))")  // one per keyframe: 10 in 300 frames
        let streams = try MuxFixtures.streams(path)
        #expect(streams.first { $0["codec_type"] as? String == "video" }?["nb_read_packets"] as? String == "300")
        #expect(try MuxFixtures.decodedVideoFrames(path, strict: true) == 300)

        // Cut where the 5th fragment starts: exactly the first four fragments, 4 × 30 frames.
        let fifth = moofs[4].offset
        let atBoundary = dir.file("cut-boundary.mp4")
        try Data(bytes[..<fifth]).write(to: URL(fileURLWithPath: atBoundary))
        #expect(try MuxFixtures.decodedVideoFrames(atBoundary, strict: true) == 120)

        // Cut in the middle of the file: at least the complete fragments before the cut decode.
        let middle = bytes.count / 2
        let complete = moofs.filter { $0.offset + $0.size < middle }.count - 1  // the last one's mdat may be cut
        let cut = dir.file("cut-middle.mp4")
        try Data(bytes[..<middle]).write(to: URL(fileURLWithPath: cut))
        let frames = try MuxFixtures.decodedVideoFrames(cut)
        #expect(frames >= complete * 30, "\(frames) frames from a cut after \(complete) complete fragments")
        #expect(frames < 300)
    }

    /// While a fragmented MP4 is being written (no finish yet: a process killed now), the file on disk
    /// already holds every fragment cut so far (the muxer flushes each one as it is cut; libavformat's
    /// file protocol alone would keep up to 256 KiB back).
    @Test func fragmentsReachTheFileBeforeFinish() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("live.mp4")
        var options = ContainerMuxer.Options()
        options.fragmented = true
        let muxer = try ContainerMuxer(path: path, options: options)
        try muxer.begin(tracks: [video[0].format, audio[0].format])
        // Up to 5.5 s: the fragments of frames 0–149 are complete once the keyframe at 150 has come.
        let half = MediaTime(value: 11, timescale: 2)
        for (sample, track) in MuxFixtures.interleave([video, audio]) where sample.timing.effectiveDecodeTime < half {
            try muxer.write(sample, track: track)
        }
        let snapshot = dir.file("snapshot.mp4")
        try FileManager.default.copyItem(atPath: path, toPath: snapshot)
        let frames = try MuxFixtures.decodedVideoFrames(snapshot)
        #expect(frames >= 150 && frames < 300, "\(frames) frames in the file before finish")
        try muxer.finish()
        // 167: decode times start 2 frames early
        let written = video.filter { $0.timing.effectiveDecodeTime < half }.count
        #expect(try MuxFixtures.decodedVideoFrames(path, strict: true) == written)
    }

    /// Fragmented MP4 into memory: ffprobe reads the bytes.
    @Test func fragmentedMP4IntoMemoryOutput() throws {
        let output = MemoryOutput()
        var options = ContainerMuxer.Options()
        options.fragmented = true
        let muxer = try ContainerMuxer(output: output, format: .mp4, options: options)
        try MuxFixtures.mux(muxer, [video, audio])
        #expect(muxer.bytesWritten == Int64(output.bytes.count))
        #expect(ISOBMFF.topLevelBoxes(output.bytes).contains { $0.type == "moof" })
        let dir = try TemporaryDirectory()
        let path = dir.file("memory.mp4")
        try Data(output.bytes).write(to: URL(fileURLWithPath: path))
        let streams = try MuxFixtures.streams(path)
        #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac"])
        #expect(streams.first?["nb_read_packets"] as? String == "300")
        #expect(try MuxFixtures.decodedVideoFrames(path, strict: true) == 300)
    }

    /// A non-fragmented MP4 into a seekable MemoryOutput (moov at the end) and into a non-seekable one
    /// (refused up front; fragmented works).
    @Test func mp4IntoMemoryOutputs() throws {
        let output = MemoryOutput()
        try MuxFixtures.mux(try ContainerMuxer(output: output, format: .mp4), [video, audio])
        let types = ISOBMFF.topLevelBoxes(output.bytes).map(\.type)
        #expect(types.last == "moov", "\(types)")
        let dir = try TemporaryDirectory()
        let path = dir.file("memory.mp4")
        try Data(output.bytes).write(to: URL(fileURLWithPath: path))
        #expect(try MuxFixtures.decodedVideoFrames(path, strict: true) == 300)

        #expect { try ContainerMuxer(output: NonSeekableOutput(MemoryOutput()), format: .mp4) } throws: {
            ($0 as? MediaError)?.code == .unsupportedFormat
        }
        let stream = MemoryOutput()
        var options = ContainerMuxer.Options()
        options.fragmented = true
        try MuxFixtures.mux(
            try ContainerMuxer(output: NonSeekableOutput(stream), format: .mp4, options: options), [video, audio])
        let streamPath = dir.file("stream.mp4")
        try Data(stream.bytes).write(to: URL(fileURLWithPath: streamPath))
        #expect(try MuxFixtures.decodedVideoFrames(streamPath, strict: true) == 300)
    }
}
