import Foundation
import MediaCore
import MediaFFmpeg
import MediaTestSupport
import Testing

/// The H.264 encoder changes its rate while running (through a ``BitRateControl`` or
/// ``H264Encoder/setAverageBitRate(_:)``), and the stream stays one valid stream.
@Suite(.timeLimit(.minutes(10)), .ffmpegLeakGate) struct AdaptiveBitRateEncoderTests {
    static let fps = 25

    /// What an encode gave: the access units, and bits per second over a span of presentation times.
    struct Encoded {
        var samples: [MediaSample] = []

        func bitsPerSecond(from start: Double, to end: Double) -> Double {
            let bytes = samples.filter {
                guard let t = $0.timing.presentationTime.seconds else { return false }
                return t >= start && t < end
            }.reduce(0) { $0 + $1.data.count }
            return Double(bytes * 8) / (end - start)
        }
    }

    /// Encodes `seconds` of the noisy 640x360 pattern; before frame `n`, `change(n, encoder)` may act.
    static func encode(
        _ encoder: H264Encoder, seconds: Int, change: (Int, H264Encoder) throws -> Void
    ) throws -> Encoded {
        var source = try NoisyPattern(frames: Int64(seconds * fps))
        let stage = CheckedStage(encoder)
        var out = Encoded()
        var n = 0
        while let frame = try source.next() {
            try change(n, encoder)
            try stage.process(frame) { out.samples.append($0) }
            n += 1
        }
        try stage.finish { out.samples.append($0) }
        return out
    }

    static func settings(_ edit: (inout H264Encoder.Settings) -> Void = { _ in }) -> H264Encoder.Settings {
        var settings = H264Encoder.Settings()
        settings.realTime = true
        settings.preset = "veryfast"
        settings.averageBitRate = 2_000_000
        settings.maxKeyFrameInterval = 50
        edit(&settings)
        return settings
    }

    /// 2 Mb/s, lowered to 500 kb/s through the control after 3 s: the second after the change is skipped
    /// (the VBV drains), the two after it carry less than 40 % of the bits of seconds 1–3. ffmpeg
    /// decodes every frame with `-xerror`, and the parameter sets never change.
    @Test func controlLowersTheRateMidStream() throws {
        let control = try BitRateControl(bitRate: 2_000_000)
        let encoder = try H264Encoder(settings: Self.settings(), bitRateControl: control)
        let encoded = try Self.encode(encoder, seconds: 6) { n, _ in
            if n == 3 * Self.fps { try control.setBitRate(500_000) }
        }
        let before = encoded.bitsPerSecond(from: 1, to: 3)
        let after = encoded.bitsPerSecond(from: 4, to: 6)
        #expect(before > 1_200_000 && before < 2_800_000, "before the change: \(before) b/s")
        #expect(after < 0.4 * before, "before \(before) b/s, after \(after) b/s")
        #expect(encoder.averageBitRate == 500_000)
        try Self.expectValidStream(encoded, frames: 6 * Self.fps)
    }

    /// Raised directly on the encoder (no control; a CBR-like VBV in the settings): 500 kb/s, then
    /// 2 Mb/s after 3 s. The rate follows both ways, and the stream stays valid.
    @Test func setAverageBitRateRaisesTheRate() throws {
        let encoder = try H264Encoder(
            settings: Self.settings {
                $0.averageBitRate = 500_000
                $0.dataRateLimit = (maxBitRate: 500_000, bufferSize: 500_000)
            })
        #expect(encoder.bitRateControl == nil)
        let encoded = try Self.encode(encoder, seconds: 6) { n, encoder in
            if n == 3 * Self.fps { try encoder.setAverageBitRate(2_000_000) }
        }
        let before = encoded.bitsPerSecond(from: 1, to: 3)
        let after = encoded.bitsPerSecond(from: 4, to: 6)
        #expect(before > 300_000 && before < 700_000, "before the change: \(before) b/s")
        #expect(after > 2.5 * before, "before \(before) b/s, after \(after) b/s")
        #expect(encoder.averageBitRate == 2_000_000)
        try Self.expectValidStream(encoded, frames: 6 * Self.fps)
    }

    /// The documented limit: with a VBV maximum rate above the average (2 Mb/s average, 4 Mb/s max),
    /// x264 keeps its long-term average and only the cap moves with the target, so lowering the target
    /// to 500 kb/s (cap 1 Mb/s) halves the rate rather than quartering it (measured: 2.06 → 1.02 Mb/s).
    @Test func aboveAverageMaxRateOnlyMovesTheCap() throws {
        let encoder = try H264Encoder(
            settings: Self.settings { $0.dataRateLimit = (maxBitRate: 4_000_000, bufferSize: 2_000_000) })
        let encoded = try Self.encode(encoder, seconds: 6) { n, encoder in
            if n == 3 * Self.fps { try encoder.setAverageBitRate(500_000) }
        }
        let before = encoded.bitsPerSecond(from: 1, to: 3)
        let after = encoded.bitsPerSecond(from: 4, to: 6)
        #expect(after > 0.35 * before && after < 0.7 * before, "before \(before) b/s, after \(after) b/s")
        try Self.expectValidStream(encoded, frames: 6 * Self.fps)
    }

    /// What cannot change its rate says so: a control without an average (constant quality), a direct
    /// change without a VBV or a control (x264 would ignore it), rates out of range.
    @Test func refusals() throws {
        let control = try BitRateControl(bitRate: 1_000_000)
        #expect(
            Self.refused {
                _ = try H264Encoder(settings: Self.settings { $0.averageBitRate = nil }, bitRateControl: control)
            })
        let plain = try H264Encoder(settings: Self.settings())
        #expect(Self.refused { try plain.setAverageBitRate(1_000_000) })
        let controlled = try H264Encoder(settings: Self.settings(), bitRateControl: control)
        #expect(Self.refused { try controlled.setAverageBitRate(999) })
        #expect(Self.refused { try control.setBitRate(2_000_000_000) })
        #expect(Self.refused { _ = try BitRateControl(bitRate: 0) })
        // The direct call writes the control, so the two never disagree.
        try controlled.setAverageBitRate(750_000)
        #expect(control.bitRate == 750_000)
        #expect(controlled.averageBitRate == 750_000)
        #expect(plain.averageBitRate == 2_000_000)
        #expect(try H264Encoder(settings: Self.settings { $0.averageBitRate = nil }).averageBitRate == nil)
    }

    /// Whether `body` throws a ``MediaError`` with code `invalidArgument`.
    static func refused(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch {
            return (error as? MediaError)?.code == .invalidArgument
        }
    }

    /// The access units decode with `ffmpeg -xerror` to `frames` frames, all under one format.
    static func expectValidStream(_ encoded: Encoded, frames: Int) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("abr.h264")
        try Video.write(Video.annexB(encoded.samples), to: path)
        #expect(try Video.frameHashes(path).count == frames)
        #expect(encoded.samples.count == frames)
        let formats = Set(encoded.samples.map(\.format))
        #expect(formats.count == 1, "the format (SPS/PPS) changed mid-stream: \(formats.count) formats")
    }
}
