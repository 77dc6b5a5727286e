import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Packets the demuxer leaves unchanged are handed out without a copy (the samples borrow libavformat's
/// buffers), and stay valid and unchanged however long they are kept: past later reads, which reuse
/// the slots of samples let go of, and past the demuxer itself. Judged by ffmpeg's own `-c copy` of the
/// same packets (`-f data`: the payloads back to back).
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct ContainerDemuxerBorrowingTests {
    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var arguments: [String]
        /// Whether the library's canonical form is the file's bytes (so the samples borrow them).
        var borrows: Bool
        var description: String { file }
    }

    static let cases: [Case] = [
        Case(file: "aac.m4a", arguments: ["-c:a", "aac"], borrows: true),
        Case(file: "f32.mkv", arguments: ["-c:a", "pcm_f32le"], borrows: true),
        Case(file: "s16.wav", arguments: ["-c:a", "pcm_s16le"], borrows: true),
        Case(file: "opus.mkv", arguments: ["-c:a", "libopus", "-ar", "48000"], borrows: true),
        // Rewritten to the canonical form: a copy.
        Case(file: "s24be.mov", arguments: ["-c:a", "pcm_s24be"], borrows: false),
        Case(file: "adts.aac", arguments: ["-c:a", "aac"], borrows: false)
    ]

    static func make(_ c: Case, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file(c.file)
        try ExternalTool.check(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-ac", "2"] + c.arguments + [path])
        return path
    }

    /// The stream's packets as ffmpeg copies them out, back to back.
    static func ffmpegPayloads(_ path: String, stream: String = "0:a", in dir: TemporaryDirectory) throws -> Data {
        let out = dir.file("payloads-\(UUID().uuidString.prefix(6)).bin")
        try ExternalTool.check("ffmpeg", ["-v", "error", "-i", path, "-map", stream, "-c", "copy", "-f", "data", out])
        return try Data(contentsOf: URL(fileURLWithPath: out))
    }

    @Test(arguments: cases)
    func samplesKeptPastTheDemuxerKeepTheirBytes(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.make(c, in: dir)
        var kept: [MediaSample] = []
        do {
            let demuxer = try ContainerDemuxer(path: path)
            let source = try demuxer.source(stream: try #require(demuxer.firstAudioStream))
            while let sample = try source.next() { kept.append(sample) }
        }
        #expect(kept.count > 10)
        #expect(kept.allSatisfy { $0.borrowsMemory == c.borrows }, "\(c)")
        var bytes = Data()
        for sample in kept { sample.withUnsafeBytes { bytes.append(contentsOf: $0) } }
        if c.borrows {
            #expect(bytes == (try Self.ffmpegPayloads(path, in: dir)))
        }
    }

    @Test(arguments: cases.filter(\.borrows))
    func samplesLetGoOfLeaveTheirSlotForTheNextPacket(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.make(c, in: dir)
        let demuxer = try ContainerDemuxer(path: path)
        let source = try demuxer.source(stream: try #require(demuxer.firstAudioStream))
        var bytes = Data()
        var count = 0
        while let sample = try source.next() {
            sample.withUnsafeBytes { bytes.append(contentsOf: $0) }
            count += 1
        }
        #expect(count > 10)
        #expect(bytes == (try Self.ffmpegPayloads(path, in: dir)))
    }

    /// H.264 in MP4 is handed out as it is when a packet is the canonical form already (4-byte lengths,
    /// the parameter sets in `avcC`), and copied when it carries SPS and PPS in-band (x264's
    /// `repeat-headers`: they go into the format too). Either way the bytes are ffmpeg's `-c copy`.
    @Test(arguments: [false, true])
    func h264InMP4IsBorrowedUnlessItCarriesParameterSets(repeatHeaders: Bool) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v.mp4")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "2", "-c:v", "libx264", "-g",
                "25"
            ]
                + (repeatHeaders ? ["-x264-params", "repeat-headers=1"] : []) + [path])
        var kept: [MediaSample] = []
        do {
            let demuxer = try ContainerDemuxer(path: path)
            let source = try demuxer.source(stream: try #require(demuxer.firstVideoStream))
            while let sample = try source.next() { kept.append(sample) }
        }
        #expect(kept.count == 50)
        #expect(kept.filter { $0.flags.contains(.keyframe) }.count == 2)
        for (index, sample) in kept.enumerated() {
            let inBand = repeatHeaders && sample.flags.contains(.keyframe)
            #expect(sample.borrowsMemory == !inBand, "sample \(index)")
        }
        var bytes = Data()
        for sample in kept { sample.withUnsafeBytes { bytes.append(contentsOf: $0) } }
        #expect(bytes == (try Self.ffmpegPayloads(path, stream: "0:v", in: dir)))
    }
}
