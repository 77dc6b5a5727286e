import Foundation
import MediaPipeline
import MediaTestSupport
import Testing
@testable import MediaFormats  // SplitMix64

/// AudioDecoder on damaged input: a corrupt packet is a typed error stamped with its index, a codec
/// or configuration it cannot take is refused before FFmpeg sees a packet, and random damage never
/// crashes or hangs it.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AudioDecoderDamageTests {
    struct Damage: Sendable, CustomStringConvertible {
        var file: String
        var encoder: [String]
        var channels: Int
        /// What becomes of packet 3.
        var damage: @Sendable ([UInt8]) -> [UInt8]
        var what: String
        var description: String { "\(file): \(what)" }
    }

    static let damages: [Damage] = [
        Damage(
            file: "a.mp3", encoder: ["-c:a", "libmp3lame"], channels: 2,
            damage: { Array(repeating: 0, count: $0.count) }, what: "zeros (no MPEG header)"),
        Damage(
            file: "a.mp2", encoder: ["-c:a", "mp2"], channels: 1, damage: { Array(repeating: 0, count: $0.count) },
            what: "zeros (no MPEG header)"),
        Damage(
            file: "a.m4a", encoder: ["-c:a", "alac"], channels: 2, damage: { [0x80] + $0.dropFirst() },
            what: "a data stream element, which ALAC has not"),
        Damage(
            file: "a.aifc", encoder: ["-c:a", "adpcm_ima_qt"], channels: 2, damage: { Array($0.dropLast()) },
            what: "a byte short of a packet"),
        Damage(
            file: "a.wav", encoder: ["-c:a", "adpcm_ima_wav"], channels: 2, damage: { Array($0.prefix(3)) },
            what: "3 bytes, less than a block header"),
        Damage(
            file: "u.caf", encoder: ["-c:a", "pcm_mulaw"], channels: 2, damage: { Array($0.dropLast()) },
            what: "half a frame")
    ]

    /// The error for decoding `packets` (nil when there is none).
    static func decodeError(_ packets: [MediaSample], output: PCMFormat = .f32Planar) -> MediaError? {
        do {
            _ = try PCM.run(AudioDecoder(outputFormat: output), packets)
            return nil
        } catch {
            return error as? MediaError ?? MediaError(.invalidArgument, "not a MediaError: \(error)")
        }
    }

    @Test(arguments: damages)
    func aCorruptPacketIsADecoderFailureStampedWithItsIndex(_ d: Damage) throws {
        let dir = try TemporaryDirectory()
        var packets = try DecoderFixture.packets(
            try DecoderFixture.ffmpeg(d.file, d.encoder, rate: 44_100, channels: d.channels, in: dir))
        #expect(Self.decodeError(packets) == nil)
        packets[3].data = d.damage(packets[3].data)
        let error = try #require(Self.decodeError(packets))
        #expect(error.code == .decoderFailure, "\(error)")
        #expect(error.sampleIndex == 3)
        #expect(error.stage == "AudioDecoder")
    }

    /// Codecs it does not decode are a format mismatch naming what it takes and what it was given:
    /// Nellymoser (in MOV, as `'nmos'`), which is in no row of the codec table. (FLAC and Opus, then
    /// DTS, were the cases here until the table gave them decoders.)
    @Test(arguments: [("nmos", "a.mov", ["-c:a", "nellymoser", "-ac", "1", "-ar", "22050"])])
    func anotherCodecIsAFormatMismatchNamingBoth(code: String, file: String, encoder: [String]) throws {
        let dir = try TemporaryDirectory()
        let packets = try DecoderFixture.packets(
            try DecoderFixture.ffmpeg(file, encoder, rate: 48_000, channels: 2, in: dir))
        let error = try #require(Self.decodeError(packets))
        #expect(error.code == .formatMismatch)
        #expect(error.sampleIndex == 0)
        #expect(
            error.message.contains("'\(code)'") && error.message.contains("MP3") && error.message.contains("ALAC"),
            "\(error)")

        let video = MediaSample(
            format: .video(.raw(.yuv420p, width: 2, height: 2)), planes: [[0, 0, 0, 0], [0], [0]],
            timing: .init(presentationTime: .zero, decodeTime: .zero, duration: .invalid), frameCount: 1)
        #expect(Self.decodeError([video])?.code == .formatMismatch)
    }

    /// A format change mid-stream is a format mismatch at that sample.
    @Test func aFormatChangeIsAFormatMismatch() throws {
        var samples = PCM.sine(frames: 9000, chunk: 3000)
        samples[2].format = .audio(.pcm(.s16, sampleRate: 44_100, channels: 2))
        let error = try #require(Self.decodeError(samples))
        #expect(error.code == .formatMismatch && error.sampleIndex == 2)
    }

    /// Formats a codec cannot have, empty packets and PCM shorter than its frame count: typed errors.
    @Test func impossibleFormatsAndPacketsAreTypedErrors() throws {
        // One packet of codec `code` with the given cookie and parameters.
        func packet(
            _ code: String, cookie: [UInt8] = [], framesPerPacket: Int = 1, rate: Int = 44_100,
            bytes: [UInt8] = [1, 2, 3, 4]
        ) -> MediaSample {
            let format = AudioFormat(
                codec: code == "aac" ? .aac : .other(fourCC: code.count == 4 ? DecoderFixture.code(code) : 0x6D73_0011),
                sampleRate: rate, channelLayout: .stereo, framesPerPacket: framesPerPacket, magicCookie: cookie)
            return MediaSample(
                format: .audio(format), data: bytes, timing: .audio(startFrame: 0, frameCount: 1, sampleRate: 44_100),
                frameCount: 1)
        }
        let config: [UInt8] = [0, 0, 16, 0, 0, 16, 40, 10, 14, 2, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xAC, 0x44]
        let cases: [(MediaSample, MediaError.Code, String)] = [
            (packet("alac", cookie: Array(config.prefix(10))), .truncated, "cookie shorter than a config"),
            (
                packet("alac", cookie: [0, 0, 0, 200] + Array("alac".utf8) + [0, 0, 0, 0] + config), .invalidData,
                "alac atom longer than the cookie"
            ),
            (
                packet("alac", cookie: [0, 0, 0, 12] + Array("frma".utf8) + Array("alac".utf8) + config), .invalidData,
                "frma without an alac atom"
            ),
            (
                packet("alac", cookie: [0, 0, 0, 3] + Array("frma".utf8) + config), .invalidData,
                "frma atom smaller than its header"
            ),
            (packet("ima-wav", framesPerPacket: 100), .invalidData, "IMA WAV block of 100 frames"),
            (packet("ima-wav", framesPerPacket: 0), .invalidData, "IMA WAV block of 0 frames"),
            (packet("aac"), .invalidData, "AAC without a cookie"),
            (packet(".mp3", rate: 0), .invalidData, "0 Hz"),
            (packet(".mp3", bytes: []), .invalidData, "empty packet")
        ]
        for (sample, code, what) in cases {
            let error = Self.decodeError([sample])
            #expect(error?.code == code, "\(what): \(error.map(String.init(describing:)) ?? "no error")")
            #expect(error?.sampleIndex == 0, "\(what)")
        }
        var short = PCM.sine(frames: 100, chunk: 100)
        short[0].frameCount = 101
        #expect(
            Self.decodeError(short, output: .s16)?.code == .invalidData,
            "PCM shorter than its frame count (passed through)")
        #expect(Self.decodeError(short)?.code == .invalidData, "PCM shorter than its frame count (converted)")
    }

    /// Packets replaced by random bytes, cut short, lengthened or bit-flipped (seeded, 40 trials per
    /// codec): every run ends, with output or with a decoder failure or invalid-data error.
    @Test(arguments: damages.map(\.file))
    func randomDamageNeverCrashes(_ file: String) throws {
        let dir = try TemporaryDirectory()
        let d = Self.damages.first { $0.file == file } ?? Self.damages[0]
        let packets = try DecoderFixture.packets(
            try DecoderFixture.ffmpeg(file, d.encoder, rate: 22_050, channels: d.channels, in: dir, seconds: 0.3))
        var random = SplitMix64(seed: UInt64(file.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
        for trial in 0..<40 {
            var damaged = packets
            for _ in 0..<3 {
                let index = Int(random.next() % UInt64(damaged.count))
                var bytes = damaged[index].data
                switch trial % 4 {
                case 0: bytes = (0..<Int(random.next() % 600)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                case 1: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
                case 2: bytes += (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                default:
                    for _ in 0..<8 where !bytes.isEmpty {
                        bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(1 << (random.next() % 8))
                    }
                }
                damaged[index].data = bytes
            }
            if let error = Self.decodeError(damaged, output: .s16) {
                #expect([.decoderFailure, .invalidData].contains(error.code), "trial \(trial): \(error)")
                #expect(error.sampleIndex != nil, "trial \(trial): \(error)")
            }
        }
    }
}
