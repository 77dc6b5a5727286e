import MediaCore

/// How often a source was asked for a sample, readable after the source itself was wrapped.
final class PullCounter {
    var calls = 0
}

/// `samples` in order (then `failure`, if given, instead of the end), counting every call of `next()`.
struct CountingSource: MediaSource {
    var samples: [MediaSample]
    var failure: MediaError?
    let counter: PullCounter
    var name: String { "CountingSource" }

    init(_ samples: [MediaSample], failure: MediaError? = nil, counter: PullCounter = PullCounter()) {
        self.samples = samples
        self.failure = failure
        self.counter = counter
    }

    mutating func next() throws -> MediaSample? {
        counter.calls += 1
        if samples.isEmpty, let failure { throw failure }
        return samples.isEmpty ? nil : samples.removeFirst()
    }
}

/// Test signals for the limits: every frame tells its own index.
enum LimitSignal {
    static let aacConfig: [UInt8] = [0x12, 0x10]

    /// The s16 value of channel `channel` at frame `frame`: its index, so that any cut shows.
    static func value(frame: Int, channel: Int) -> Int16 { Int16(truncatingIfNeeded: frame * 2 + channel) }

    /// Stereo s16 PCM at `rate` in buffers of `sizes` frames, interleaved or planar, timed from
    /// `startFrame` (a live source's clock does not start at zero).
    static func pcm(sizes: [Int], rate: Int = 48_000, startFrame: Int64 = 0, planar: Bool = false) throws
        -> [MediaSample]
    {
        var first = 0
        return try sizes.map { size in
            defer { first += size }
            let frames = first..<(first + size)
            if planar {
                return try MediaSample(
                    pcmPlanes: (0..<2).map { channel in frames.map { value(frame: $0, channel: channel) } },
                    format: .pcm(PCMFormat(.s16, interleaved: false), sampleRate: rate, channels: 2),
                    startFrame: startFrame + Int64(first))
            }
            return try MediaSample(
                pcm: frames.flatMap { frame in (0..<2).map { value(frame: frame, channel: $0) } },
                format: .pcm(.s16, sampleRate: rate, channels: 2), startFrame: startFrame + Int64(first))
        }
    }

    /// The interleaved values of `frames`, as ``pcm(sizes:rate:startFrame:planar:)`` makes them.
    static func values(_ frames: Range<Int>) -> [Int16] {
        frames.flatMap { frame in (0..<2).map { value(frame: frame, channel: $0) } }
    }

    /// `count` AAC packets of 1024 frames at 44.1 kHz, each holding its index; the first
    /// `priming` frames marked as trimAtStart, as an encoder marks its delay.
    static func aac(count: Int, priming: Int = 0) -> [MediaSample] {
        (0..<count).map { index in
            let start = Int64(index * 1024 - priming)
            return MediaSample(
                format: .audio(.aac(sampleRate: 44_100, channelLayout: .stereo, audioSpecificConfig: aacConfig)),
                data: [UInt8(index), 0xAA, 0x55],
                timing: .audio(startFrame: start, frameCount: 1024, sampleRate: 44_100),
                frameCount: 1024, trimAtStart: min(1024, max(0, priming - index * 1024)))
        }
    }

    /// Raw 2×2 gray video frames at 30 fps (pts = dts = n/30, duration 1/30), `count` of them, or the
    /// frames whose presentation (and decode) ticks are given (H.264 with B-frames: pts ≠ dts).
    static func video(count: Int) -> [MediaSample] {
        video(ticks: (0..<count).map { ($0, $0) })
    }

    /// Video frames at 1/30 s ticks: `(presentation, decode)` each.
    static func video(ticks: [(Int, Int)]) -> [MediaSample] {
        let format = VideoFormat.raw(.gray, width: 2, height: 2)
        return ticks.map { pts, dts in
            MediaSample(
                format: .video(format), planes: [[UInt8(truncatingIfNeeded: pts), 0, 0, 0]],
                timing: SampleTiming(
                    presentationTime: MediaTime(value: Int64(pts), timescale: 30),
                    decodeTime: MediaTime(value: Int64(dts), timescale: 30),
                    duration: MediaTime(value: 1, timescale: 30)),
                frameCount: 1)
        }
    }

    /// Every sample `source` gives until its end.
    static func drain(_ source: inout some MediaSource) throws -> [MediaSample] {
        var samples: [MediaSample] = []
        while let sample = try source.next() { samples.append(sample) }
        return samples
    }

    /// The interleaved s16 values of `samples`, in order.
    static func values(of samples: [MediaSample]) throws -> [Int16] {
        try samples.flatMap { try $0.pcm(as: Int16.self) }
    }

    /// The frames of `samples` that play.
    static func frames(of samples: [MediaSample]) -> Int { samples.reduce(0) { $0 + $1.validFrameCount } }
}
