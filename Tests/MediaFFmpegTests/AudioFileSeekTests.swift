import Foundation
import MediaPipeline
import MediaTestSupport
import Testing

/// Seeking an ``AudioFile`` (``AudioFileReader`` and ``AudioDecoder``) to a frame gives the same samples as
/// decoding the whole file from the start: 1000 random positions spread over every container and codec.
///
/// Exact (bit for bit) for PCM, A-law, µ-law, IMA ADPCM (WAV) and ALAC, whose packets decode on their
/// own, and for MP3 and AAC, which carry state from packet to packet (MP3's bit reservoir and filter
/// bank, AAC's overlap): the reader starts them early (10 and 2 packets) and the float samples from the
/// target on are then identical. One exception, measured: AAC with perceptual noise substitution
/// (ffmpeg's encoder uses it by default). FFmpeg's decoder fills PNS bands from a random generator
/// seeded when the decoder starts, so those bands differ however early decoding starts (6 packets
/// changed nothing): on this signal by at most 2.6e-4 (about -72 dBFS, the level of those noise bands).
/// That case is checked within 1e-3; the same stream encoded without PNS is checked bit for bit.
/// Apple IMA4 is checked within 128 16-bit steps, the precision of its packet header's predictor: the
/// decoder carries its own predictor across packets whose headers are close to it (see
/// ``AudioFileReader``), so a decode that starts at a packet keeps a constant offset from one that
/// started earlier until a header resets both (measured here: about 0.002, 60 steps).
@Suite(.timeLimit(.minutes(10)), .serialized, .ffmpegLeakGate) struct AudioFileSeekTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var ffmpeg: [String]
        var seeks: Int
        /// The largest difference allowed between a sample after a seek and from the start (0: bit-exact).
        var tolerance: Float = 0
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "wav", ffmpeg: ["-c:a", "pcm_s24le", "-f", "wav"], seeks: 100),
        Case(name: "aif", ffmpeg: ["-c:a", "pcm_s16be", "-f", "aiff"], seeks: 100),
        Case(name: "au", ffmpeg: ["-c:a", "pcm_alaw", "-f", "au"], seeks: 100),
        Case(name: "ima4.caf", ffmpeg: ["-c:a", "adpcm_ima_qt", "-f", "caf"], seeks: 100, tolerance: 128 / 32_768),
        Case(name: "ima.wav", ffmpeg: ["-c:a", "adpcm_ima_wav", "-f", "wav"], seeks: 100),
        Case(name: "alac.caf", ffmpeg: ["-c:a", "alac", "-f", "caf"], seeks: 100),
        Case(name: "aac", ffmpeg: ["-c:a", "aac", "-b:a", "128k", "-aac_pns", "0", "-f", "adts"], seeks: 100),
        Case(name: "pns.aac", ffmpeg: ["-c:a", "aac", "-b:a", "128k", "-f", "adts"], seeks: 50, tolerance: 1e-3),
        Case(name: "mp3", ffmpeg: ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3"], seeks: 250)
    ]

    /// The interleaved floats `file` decodes from where it stands, stopping once at least `limit`
    /// frames are there.
    static func decode(_ file: AudioFile, limit: Int? = nil) throws -> [Float] {
        let wanted = limit.map { $0 * file.fileFormat.channelCount } ?? .max
        var out: [Float] = []
        while out.count < wanted, let pcm = try file.read() {
            pcm.withUnsafeBytes { out.append(contentsOf: $0.bindMemory(to: Float.self)) }
        }
        return out
    }

    @Test(arguments: cases)
    func seekingToAFrameGivesWhatDecodingFromTheStartGives(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("in.\(c.name)")
        try ExternalTool.check(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                "aevalsrc=0.4*sin(2*PI*440*t)+0.1*sin(2*PI*3000*t)|0.3*sin(2*PI*660*t):s=44100:d=3", "-ac", "2"
            ] + c.ffmpeg + [path])
        let whole = try Self.decode(try AudioFile(path: path, outputFormat: PCMFormat(.f32)))
        let frames = whole.count / 2
        #expect(frames > 44_100 * 3 - 2048 && frames <= 44_100 * 3 + 2048, "\(frames) frames")
        let file = try AudioFile(path: path, outputFormat: PCMFormat(.f32))
        var generator = SplitMix64(seed: UInt64(c.name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
        let length = 300
        var mismatches: [Int] = []
        for _ in 0..<c.seeks {
            let target = Int(generator.next() % UInt64(frames - length))
            try file.seek(toFrame: Int64(target))
            let got = try Self.decode(file, limit: length)
            let expected = whole[(target * 2)..<((target + length) * 2)]
            let same = got.count >= length * 2 && zip(got, expected).allSatisfy { abs($0 - $1) <= c.tolerance }
            if !same { mismatches.append(target) }
        }
        #expect(
            mismatches.isEmpty,
            "\(mismatches.count) of \(c.seeks) seeks differ, e.g. at frame \(mismatches.first ?? -1)")
    }
}
