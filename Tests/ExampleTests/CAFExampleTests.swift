import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// The `caf-info` and `caf-recorder` examples: JSON output, the Apple file's chunks, the magic cookie's
/// layout, and one clear line on bad input.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct CAFExampleTests {
    static let info = TestPaths.executable("caf-info")
    static let recorder = TestPaths.executable("caf-recorder")
    static let appleFile = TestPaths.fixture("mattetti-audio_ring.caf")
    static let requiredKeys = [
        "formatID", "sampleRate", "channels", "bitsPerChannel", "framesPerPacket", "bytesPerPacket", "packets",
        "validFrames", "primingFrames", "remainderFrames", "cookie", "chunks"
    ]

    /// Runs `caf-info --json` on `path` and parses its standard output as one JSON object.
    static func infoJSON(_ path: String) throws -> [String: Any] {
        let run = try ExternalTool.run(info, [path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: run.stdout)
        return try #require(object as? [String: Any], "caf-info --json printed \(run.output)")
    }

    /// Records `arguments` with caf-recorder; returns the status and stderr lines.
    static func record(_ arguments: [String]) throws -> (status: Int32, lines: [String]) {
        let result = try ExternalTool.run(recorder, arguments)
        return (result.status, result.stderr.split(separator: "\n").map(String.init))
    }

    /// Bytes of a lowercase hex string.
    static func bytes(hex: String) -> [UInt8] {
        let chars = Array(hex.utf8)
        return stride(from: 0, to: chars.count - 1, by: 2).compactMap {
            UInt8(String(decoding: chars[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
    }

    @Test func examplesAreBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.info), "build the package first: swift build")
        #expect(FileManager.default.isExecutableFile(atPath: Self.recorder), "build the package first: swift build")
    }

    /// The Apple file: every required key, the values its SOURCES.tsv line gives, and its chunks in order.
    @Test func jsonForTheAppleFile() throws {
        let json = try Self.infoJSON(Self.appleFile)
        for key in Self.requiredKeys { #expect(json[key] != nil, "missing key \(key)") }
        #expect(json["formatID"] as? String == "aac ")
        #expect(json["sampleRate"] as? Int == 44_100)
        #expect(json["channels"] as? Int == 2)
        #expect(json["framesPerPacket"] as? Int == 1024)
        #expect(json["bytesPerPacket"] as? Int == 0)
        #expect(json["packets"] as? Int == 89)
        #expect(json["validFrames"] as? Int == 88_064)
        #expect(json["primingFrames"] as? Int == 2112)
        #expect(json["remainderFrames"] as? Int == 960)
        #expect((json["cookie"] as? String)?.count == 78)
        let chunks = try #require(json["chunks"] as? [[String: Any]])
        #expect(
            chunks.compactMap { $0["type"] as? String } == [
                "desc", "kuki", "pakt", "uuid", "uuid", "info", "free", "data"
            ])
        #expect(chunks.first?["offset"] as? Int == 8)
        #expect(chunks.first?["size"] as? Int == 32)
        #expect(chunks.last?["offset"] as? Int == 4080)
    }

    /// A PCM recording: lpcm, 16 bits, 4 bytes per packet, every frame valid, no cookie.
    @Test func jsonForOurPCMFile() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("pcm.caf")
        let run = try Self.record(["--format", "lpcm", "--frames", "12345", "--output", out, "--quiet"])
        #expect(run.status == 0, "\(run.lines)")
        let json = try Self.infoJSON(out)
        for key in Self.requiredKeys { #expect(json[key] != nil, "missing key \(key)") }
        #expect(json["formatID"] as? String == "lpcm")
        #expect(json["sampleRate"] as? Int == 48_000)
        #expect(json["bitsPerChannel"] as? Int == 16)
        #expect(json["bytesPerPacket"] as? Int == 4)
        #expect(json["framesPerPacket"] as? Int == 1)
        #expect(json["packets"] as? Int == 12_345)
        #expect(json["validFrames"] as? Int == 12_345)
        #expect(json["primingFrames"] as? Int == 0)
        #expect(json["cookie"] as? String == "")
        let types = (json["chunks"] as? [[String: Any]])?.compactMap { $0["type"] as? String }
        #expect(types == ["desc", "data"])
    }

    /// Our kuki has Apple's layout: 39 bytes, the same descriptor tags and 80 80 80 length bytes; only the
    /// buffer size, the bitrates and the AudioSpecificConfig (48 kHz here, 44.1 kHz there) differ.
    @Test func cookieHasApplesStructure() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("aac.caf")
        let run = try Self.record(["--frames", "20000", "--output", out, "--quiet"])
        #expect(run.status == 0, "\(run.lines)")
        let ours = Self.bytes(hex: try #require(try Self.infoJSON(out)["cookie"] as? String))
        let apple = Self.bytes(hex: try #require(try Self.infoJSON(Self.appleFile)["cookie"] as? String))
        #expect(ours.count == 39)
        #expect(apple.count == 39)
        guard ours.count == 39, apple.count == 39 else { return }
        #expect(Array(ours.prefix(4)) == [0x03, 0x80, 0x80, 0x80])
        // 03 ES_Descriptor, 04 DecoderConfigDescriptor (AAC, buffer size, max and average bitrate),
        // 05 DecoderSpecificInfo (the 2-byte ASC at 31...32), 06 SLConfigDescriptor; lengths as 80 80 80 nn.
        for tagAt in [0, 8, 26, 33] {
            #expect(Array(ours[tagAt + 1...tagAt + 3]) == [0x80, 0x80, 0x80], "length bytes after tag at \(tagAt)")
        }
        let variable = Set(18...25).union([31, 32])  // max and average bitrate, ASC
        for index in 0..<min(ours.count, apple.count) where !variable.contains(index) {
            #expect(ours[index] == apple[index], "byte \(index): \(ours[index]) vs Apple's \(apple[index])")
        }
        #expect(ours[31] >> 3 == 2 && apple[31] >> 3 == 2, "both AAC-LC")
        #expect(ours[31...32] != apple[31...32], "the ASCs should differ (48 kHz vs 44.1 kHz)")
        #expect(Array(ours[31...32]) == [0x11, 0x90], "AAC-LC, 48 kHz, 2 channels")
    }

    /// caf-info on files it cannot read: status 1 and exactly one line naming the problem.
    @Test func cafInfoRejectsBadFilesWithOneLine() throws {
        let dir = try TemporaryDirectory()
        let good = dir.file("good.caf")
        #expect(try Self.record(["--frames", "5000", "--output", good, "--quiet"]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let cases: [(String, Data?)] = [
            ("truncated.caf", bytes.prefix(70)),
            ("header-only.caf", bytes.prefix(8)),
            ("not-caf.caf", Data("RIFF....WAVEfmt this is not a CAF file at all".utf8)),
            ("empty.caf", Data()),
            ("missing.caf", nil)
        ]
        for (name, content) in cases {
            let path = dir.file(name)
            if let content { try content.write(to: URL(fileURLWithPath: path)) }
            let run = try ExternalTool.run(Self.info, [path])
            let lines = run.stderr.split(separator: "\n").map(String.init)
            #expect(run.status == 1, "\(name) exited \(run.status)")
            #expect(lines.count == 1, "\(name): \(lines)")
            #expect(lines.first?.hasPrefix("caf-info: ") == true, "\(name): \(lines)")
            #expect(run.stdout.isEmpty, "\(name) printed to stdout")
        }
        let usage = try ExternalTool.run(Self.info, ["--frobnicate"])
        #expect(usage.status == 64)  // EX_USAGE, as every example
        #expect(usage.stderr.split(separator: "\n").count == 1)
    }

    /// caf-recorder on a missing input, an unknown input kind or a bad option: non-zero, one line.
    @Test func cafRecorderRejectsBadInputWithOneLine() throws {
        let dir = try TemporaryDirectory()
        let garbage = dir.file("garbage.wav")
        try Data("RIFF\u{0}\u{1}\u{2}\u{3}not a wave file at all".utf8).write(to: URL(fileURLWithPath: garbage))
        let notCAF = dir.file("garbage.caf")
        try Data("this is not a CAF file either".utf8).write(to: URL(fileURLWithPath: notCAF))
        let out = dir.file("out.caf")
        let cases: [[String]] = [
            ["--input", dir.file("missing.wav"), "--output", out],
            ["--input", dir.file("missing.aac"), "--output", out],
            ["--input", garbage, "--output", out],
            ["--input", notCAF, "--output", out],
            ["--input", dir.file("in.mp3"), "--output", out],
            ["--frobnicate", "--output", out],
            ["--format", "mp3", "--output", out],
            ["--frames", "-5", "--output", out],
            ["--tone", "440"]
        ]
        for arguments in cases {
            let run = try Self.record(arguments)
            #expect(run.status != 0, "\(arguments) exited 0")
            #expect(run.status < 128, "\(arguments) crashed with status \(run.status)")
            #expect(run.lines.count == 1, "\(arguments): \(run.lines)")
            #expect(run.lines.first?.hasPrefix("caf-recorder: ") == true, "\(arguments): \(run.lines)")
        }
    }
}
