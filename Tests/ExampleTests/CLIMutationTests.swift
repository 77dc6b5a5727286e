import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Damaged input never ends a command-line program with a signal. A box size near 2^63 made `transcode`
/// die with an arithmetic-overflow trap (issue 33); this suite damages files of seven containers, written
/// by ffmpeg, the ways real damage looks (bytes changed, sizes and counts made huge or zero next to the
/// chunk and box names, the file cut), and runs each damaged file through `media-info`, `audio-convert`
/// and `transcode`. Every run must end by itself within a minute with an exit status (0 for what could
/// still be read, 1 for a clear error), never by a signal. The damage is seeded, so a failure names
/// its fixture, mutant and program, and reproduces.
@Suite(.timeLimit(.minutes(10))) struct CLIMutationTests {
    /// A file ffmpeg writes: its name, extension and the ffmpeg arguments between the inputs and the path.
    struct Fixture: CustomTestStringConvertible, Sendable {
        var name: String
        var ext: String
        var ffmpeg: [String]
        var hasVideo = false
        var testDescription: String { name }
    }

    static let audioInput = ["-f", "lavfi", "-i", "sine=f=440:r=44100:d=0.6", "-ac", "2"]
    static let videoInput = ["-f", "lavfi", "-i", "testsrc=s=64x48:r=10:d=0.6"]
    static let fixtures: [Fixture] = [
        Fixture(name: "mp3", ext: "mp3", ffmpeg: ["-c:a", "libmp3lame", "-b:a", "64k"]),
        Fixture(name: "aiff", ext: "aiff", ffmpeg: ["-c:a", "pcm_s16be"]),
        Fixture(name: "au", ext: "au", ffmpeg: ["-c:a", "pcm_s16be"]),
        Fixture(name: "rf64", ext: "wav", ffmpeg: ["-c:a", "pcm_s16le", "-rf64", "always"]),
        Fixture(name: "mp4", ext: "mp4", ffmpeg: ["-c:v", "libx264", "-c:a", "aac"], hasVideo: true),
        Fixture(name: "mpegts", ext: "ts", ffmpeg: ["-c:v", "libx264", "-c:a", "aac"], hasVideo: true),
        Fixture(name: "matroska", ext: "mkv", ffmpeg: ["-c:v", "libx264", "-c:a", "aac"], hasVideo: true)
    ]
    /// Damaged copies of each fixture; each goes through every program.
    static let mutantsPerFixture = 16

    /// The names next to which containers keep sizes and counts: RIFF/RF64, AIFF, AU, ISO BMFF boxes,
    /// Xing/LAME. MPEG-TS and Matroska have none of these; their damage is random.
    static let sizedNames = [
        "RIFF", "RF64", "ds64", "fmt ", "data", "fact", "FORM", "COMM", "SSND", ".snd", "ftyp", "moov", "mvhd",
        "trak", "mdia", "minf", "stbl", "stsz", "stco", "co64", "stts", "stsc", "stsd", "mdat", "Xing", "Info"
    ].map { Array($0.utf8) }

    /// A deterministic generator (an LCG), so that a failing mutant can be made again.
    struct Noise {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
    }

    /// Mutant `index` of `bytes`: one of four kinds of damage.
    static func mutate(_ bytes: [UInt8], index: Int, seed: UInt64) -> [UInt8] {
        var noise = Noise(state: seed &* 1_000_003 &+ UInt64(index))
        var out = bytes
        let extremes: [[UInt8]] = [
            [0xFF, 0xFF, 0xFF, 0xFF], [0x7F, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0], [0x80, 0, 0, 0],
            [0, 0, 0, 1, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0],
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        ]
        var places: [Int] = []
        for start in 0..<max(0, out.count - 4)
        where sizedNames.contains(where: { out[start..<(start + 4)].elementsEqual($0) }) {
            places.append(start)
        }
        // Every other mutant damages a size or count (cycling through the extreme values); the others
        // change bytes anywhere, put an extreme value in the headers, or cut the file.
        let kind = index % 2 == 0 ? 0 : 1 + (index / 2) % 3
        switch places.isEmpty && kind == 0 ? 1 : kind {
        case 0:  // a size or count next to a chunk or box name made extreme
            // Half of them at one of the first three names: the top-level structure.
            let name = places[noise.next(noise.next(2) == 0 ? min(3, places.count) : places.count)]
            let value = extremes[(index / 2) % extremes.count]
            if value.count == 12, name >= 4 {
                // An ISO BMFF box's 64-bit size: 1 before the name, the size after it.
                out.replaceSubrange((name - 4)..<name, with: value[0..<4])
                for (i, byte) in value[4...].enumerated() where name + 4 + i < out.count { out[name + 4 + i] = byte }
                break
            }
            // The size before an ISO BMFF box's name or after a RIFF/AIFF chunk's, or a field further on.
            let at = max(0, [name - 4, name + 4, name + 8 + 4 * noise.next(6)][noise.next(3)])
            for (i, byte) in value.enumerated() where at + i < out.count { out[at + i] = byte }
        case 1:  // a few bytes changed anywhere
            for _ in 0..<(1 + noise.next(8)) { out[noise.next(out.count)] = UInt8(noise.next(256)) }
        case 2:  // an extreme value in the first kilobytes, where the headers are
            let value = extremes[noise.next(extremes.count)]
            let at = noise.next(min(out.count, 4096))
            for (i, byte) in value.enumerated() where at + i < out.count { out[at + i] = byte }
        default:  // cut short, and a few bytes changed before the cut
            out = Array(out.prefix(1 + noise.next(out.count - 1)))
            for _ in 0..<noise.next(3) { out[noise.next(out.count)] = UInt8(noise.next(256)) }
        }
        return out
    }

    @Test(arguments: fixtures)
    func noProgramEndsWithASignal(fixture: Fixture) throws {
        let dir = try TemporaryDirectory()
        let original = dir.file("original.\(fixture.ext)")
        try ExternalTool.check(
            "ffmpeg",
            ["-nostdin", "-v", "error"] + (fixture.hasVideo ? Self.videoInput : []) + Self.audioInput + fixture.ffmpeg
                + [original])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let seed = UInt64(Self.fixtures.firstIndex { $0.name == fixture.name } ?? 0) + 1
        var noticed = 0
        for index in 0..<Self.mutantsPerFixture {
            let damaged = Self.mutate(bytes, index: index, seed: seed)
            let path = dir.file("mutant-\(index).\(fixture.ext)")
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let runs: [(String, [String])] = [
                ("media-info", [path]),
                ("audio-convert", ["--input", path, "--output", dir.file("out-\(index).wav")]),
                ("transcode", ["--input", path, "--output", dir.file("out-\(index).mkv")])
            ]
            for (program, arguments) in runs {
                let child = try ChildProcess(
                    TestPaths.executable(program), arguments, environment: ProcessInfo.processInfo.environment,
                    outputBase: dir.file("\(program)-\(index)"))
                let ended = child.wait(timeout: 60)
                if !ended { child.kill(grace: 0) }
                let status = child.result.status
                let what = "\(program) on \(fixture.name) mutant \(index) (\(Self.describe(damaged, against: bytes)))"
                #expect(ended, "\(what) did not end within 60 s")
                #expect(
                    ended && (0..<128).contains(status),
                    "\(what) ended with \(status): \(child.result.stderr.suffix(400))")
                if status != 0 || !child.result.stderr.isEmpty { noticed += 1 }
            }
        }
        // The damage is real: the programs refused or warned about some of it.
        #expect(noticed > 0, "no program noticed damage in any \(fixture.name) mutant")
    }

    /// Where `damaged` differs from `original`, for a failure's message.
    static func describe(_ damaged: [UInt8], against original: [UInt8]) -> String {
        if damaged.count < original.count, damaged.elementsEqual(original.prefix(damaged.count)) {
            return "cut at \(damaged.count) of \(original.count) bytes"
        }
        let changed = zip(damaged, original).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        let cut = damaged.count < original.count ? ", cut at \(damaged.count)" : ""
        return "bytes changed at \(changed.prefix(8).map(String.init).joined(separator: ", "))\(cut)"
    }
}
