import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Gapless AAC in M4A as iTunes and AVAssetWriter write it, judged by parsing the boxes and by what
/// ffprobe and ffmpeg make of the file.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerMuxerGaplessTests {
    static let n = 100_000
    static let packets = (n + 1024 + 1023) / 1024
    static let remainder = packets * 1024 - 1024 - n

    /// The iTunSMPB fields as numbers.
    static func smpbFields(_ text: String) -> [UInt64] {
        text.split(separator: " ").compactMap { UInt64($0, radix: 16) }
    }

    @Test func m4aIsGaplessAndSampleExact() throws {
        let packets = try MuxFixtures.encodeAudio(frames: Int64(Self.n))
        #expect(packets.count == Self.packets)
        #expect(packets.first?.trimAtStart == 1024)
        #expect(packets.last?.trimAtEnd == Self.remainder)
        let dir = try TemporaryDirectory()
        let path = dir.file("tone.m4a")
        let muxer = try ContainerMuxer(path: path)
        #expect(muxer.format == .m4a)
        try MuxFixtures.mux(muxer, [packets])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))

        // Fast start: the moov (grown by the tag) comes before the mdat.
        let top = ISOBMFF.topLevelBoxes(bytes).map(\.type)
        #expect(try #require(top.firstIndex(of: "moov")) < (try #require(top.firstIndex(of: "mdat"))), "\(top)")
        #expect(Array(bytes[8..<12]) == Array("M4A ".utf8))

        let info = try ISOBMFF.gaplessInfo(bytes)
        #expect(info.mediaTime == 1024)
        #expect(
            info.segmentDuration * 48_000 % info.movieTimescale == 0,
            "edit duration \(info.segmentDuration) at \(info.movieTimescale)")
        #expect(info.segmentDuration * 48_000 / info.movieTimescale == Self.n)
        #expect(
            Self.smpbFields(info.smpb) == [0, 0x400, UInt64(Self.remainder), UInt64(Self.n), 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(info.smpb.hasPrefix(" 00000000 00000400 "))

        // ffprobe reads the same tag (the mov demuxer's freeform atom parser).
        let format = try ExternalTool.ffprobeJSON(path, ["-show_format"])["format"] as? [String: Any]
        let tags = try #require(format?["tags"] as? [String: Any])
        #expect(tags["iTunSMPB"] as? String == info.smpb)

        // ffmpeg honours the edit's start (not its end): N + remainder frames, the sine from frame 0.
        let stereo = RawAudio.floats(try ExternalTool.decode(path))
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        #expect(left.count == Self.n + Self.remainder)
        let reference = (0..<Self.n).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        if left.count >= Self.n {
            var best = (lag: Int.min, value: -Double.infinity)
            for lag in -40...40 {
                var sum = 0.0
                for i in 2048..<(Self.n - 2048) { sum += Double(left[i + lag]) * Double(reference[i]) }
                if sum > best.value { best = (lag, sum) }
            }
            #expect(best.lag == 0, "cross-correlation peaks at lag \(best.lag)")
            let error = (2048..<(Self.n - 2048)).reduce(0.0) { max($0, Double(abs(left[$1] - reference[$1]))) }
            #expect(error < 0.05, "largest difference from the sine: \(error)")
        }
        let strict = try MuxFixtures.strictDecode(path)
        #expect(strict.status == 0, "\(strict.stderr)")

        // GStreamer's qtdemux takes the duration from the edit: N / 48000 s = 2.083333333 s, to the ns.
        let discovered = try ExternalTool.run("gst-discoverer-1.0", ["file://" + path])
        #expect(discovered.status == 0, "\(discovered.stderr)")
        #expect(discovered.output.contains("Duration: 0:00:02.083333333"), "\(discovered.output)")
    }

    /// Fragmented M4A to a stream (non-seekable): one fragment per second, every packet readable.
    @Test func fragmentedM4AToAStream() throws {
        let packets = try MuxFixtures.encodeAudio(frames: Int64(Self.n))
        let memory = MemoryOutput()
        var options = ContainerMuxer.Options()
        options.fragmented = true
        try MuxFixtures.mux(
            try ContainerMuxer(output: NonSeekableOutput(memory), format: .m4a, options: options), [packets])
        let moofs = ISOBMFF.topLevelBoxes(memory.bytes).filter { $0.type == "moof" }.count
        #expect(moofs >= 2, "\(moofs) fragments for 2.1 s")
        let dir = try TemporaryDirectory()
        let path = dir.file("frag.m4a")
        try Data(memory.bytes).write(to: URL(fileURLWithPath: path))
        let stream = try ExternalTool.probeFirstStream(path)
        #expect(stream["codec_name"] as? String == "aac")
        #expect(stream["nb_read_packets"] as? String == "\(Self.packets)")
        #expect(try MuxFixtures.strictDecode(path).status == 0)
    }

    /// Without fast start, and into a seekable MemoryOutput, the moov stays at the end and still gets the
    /// tag; the edit list is the same.
    @Test func m4aWithMovieAtTheEnd() throws {
        let packets = try MuxFixtures.encodeAudio(frames: Int64(Self.n))
        let dir = try TemporaryDirectory()
        var options = ContainerMuxer.Options()
        options.fastStart = false
        let path = dir.file("end.m4a")
        try MuxFixtures.mux(try ContainerMuxer(path: path, options: options), [packets])
        // The output already holds 100 bytes: the file starts after them (its offsets are its own).
        let memory = MemoryOutput()
        let prefix = [UInt8](repeating: 0xAB, count: 100)
        try memory.write(prefix)
        let muxer = try ContainerMuxer(output: memory, format: .m4a)
        try MuxFixtures.mux(muxer, [packets])
        #expect(muxer.bytesWritten == Int64(memory.bytes.count - 100))
        #expect(Array(memory.bytes.prefix(100)) == prefix)
        let memoryPath = dir.file("memory.m4a")
        try Data(memory.bytes.dropFirst(100)).write(to: URL(fileURLWithPath: memoryPath))
        for file in [path, memoryPath] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(ISOBMFF.topLevelBoxes(bytes).map(\.type).last == "moov")
            let info = try ISOBMFF.gaplessInfo(bytes)
            #expect(info.mediaTime == 1024)
            #expect(info.segmentDuration * 48_000 / info.movieTimescale == Self.n)
            #expect(Self.smpbFields(info.smpb).prefix(4) == [0, 0x400, UInt64(Self.remainder), UInt64(Self.n)])
            let left = RawAudio.floats(try ExternalTool.decode(file, channels: 1))
            #expect(left.count == Self.n + Self.remainder)
        }
    }
}
